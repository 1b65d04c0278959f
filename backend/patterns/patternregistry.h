// SPDX-License-Identifier: MIT
#pragma once

#include "patternunit.h"

#include <QList>

#include <memory>

namespace gatehouse {

// The patterns Gatehouse knows: every PatternUnit registered once, at first
// use, by registerBuiltInPatterns() (builtinpatterns.cpp: one line per
// pattern). Everything that lists or tells apart patterns asks here; nothing
// switches on a kind. Immutable after registration; safe from any thread.
class PatternRegistry
{
public:
    static const PatternRegistry &instance();

    // In registration order.
    const QList<const PatternUnit *> &units() const { return m_units; }
    // Sections in the order their first pattern registered.
    const QList<Section> &sections() const { return m_sections; }
    const PatternUnit *find(PatternKind kind) const;
    const PatternUnit *find(const QString &id) const;
    std::optional<Section> section(const QString &id) const;
    QList<const PatternUnit *> unitsIn(const QString &section) const;
    QStringList ids() const;
    // Every pattern's shapeHashFields(), each once, in registration order.
    const QList<QByteArray> &shapeHashFields() const { return m_shapeHashFields; }

    // Registration (builtinpatterns.cpp, and tests that add a pattern).
    void add(std::unique_ptr<PatternUnit> unit);

private:
    PatternRegistry() = default;
    QList<std::shared_ptr<const PatternUnit>> m_owned;
    QList<const PatternUnit *> m_units;
    QList<Section> m_sections;
    QList<QByteArray> m_shapeHashFields;
};

// The columns of one section's table: the union, by header, of its patterns'
// columns (PatternUnit::columns()), in the order they first appear. Used alike
// by the console's table model, its CSV export and the CLI's text tables.
class SectionColumns
{
public:
    explicit SectionColumns(const QString &section);

    int count() const { return int(m_headers.size()); }
    const QStringList &headers() const { return m_headers; }
    // Column i of the object's pattern; nullptr when its pattern has none
    // (its cell is empty).
    const Column *column(int i, PatternKind kind) const;
    QString text(int i, const ObjectState &s, qint64 nowMs) const;
    QVariant sortValue(int i, const ObjectState &s, qint64 nowMs) const;
    bool movesWithTime(int i) const { return m_movesWithTime.value(i); }
    bool contains(PatternKind kind) const { return m_columns.contains(kind); }

private:
    QStringList m_headers;
    QList<bool> m_movesWithTime;
    QHash<PatternKind, QList<std::optional<Column>>> m_columns; // by header index
};

// One line per pattern: registry.add(std::make_unique<...Unit>()).
void registerBuiltInPatterns(PatternRegistry &registry);

// Shorthands.
std::optional<PatternKind> patternFromId(const QString &id);
QList<PatternKind> allPatterns();
QString patternSection(PatternKind kind); // "" for an unknown kind
int patternOrder(PatternKind kind);       // registration order; -1 for an unknown kind

} // namespace gatehouse
