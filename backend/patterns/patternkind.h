// SPDX-License-Identifier: MIT
#pragma once

#include <QHashFunctions>
#include <QLatin1StringView>
#include <QString>

#include <cstring>

namespace gatehouse {

// A coordination pattern's stable id ("sliding-window", "lock", ...), as used in
// profiles, JSON and the CLI. Each pattern declares its own in its folder
// (backend/patterns/<pattern>/) and registers a PatternUnit for it with the
// PatternRegistry; nothing outside the pattern lists the kinds. A kind made
// from a string that no unit registered is simply unknown to the registry.
class PatternKind
{
public:
    constexpr PatternKind() = default;
    // id must outlive the kind: a string literal, or a registered unit's id.
    constexpr explicit PatternKind(const char *id)
        : m_id(id)
    {}

    QString id() const { return QLatin1StringView(m_id); }
    const char *name() const { return m_id; }
    bool isValid() const { return m_id[0] != '\0'; }

    friend bool operator==(PatternKind a, PatternKind b)
    {
        return a.m_id == b.m_id || std::strcmp(a.m_id, b.m_id) == 0;
    }
    friend bool operator!=(PatternKind a, PatternKind b) { return !(a == b); }
    friend size_t qHash(PatternKind kind, size_t seed = 0)
    {
        return qHash(QLatin1StringView(kind.m_id), seed);
    }

private:
    const char *m_id = "";
};

// The id of a kind ("lock"); the registry knows the rest (PatternRegistry).
inline QString patternId(PatternKind kind)
{
    return kind.id();
}

} // namespace gatehouse
