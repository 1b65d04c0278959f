// SPDX-License-Identifier: MIT
#pragma once

#include "patternkind.h"

#include <QByteArray>
#include <QList>
#include <QString>

#include <memory>
#include <optional>

namespace gatehouse {

// What the profile (or autodetection) says about one instance. Times in ms.
struct PatternParams
{
    std::optional<qint64> limit; // unknown when Redis does not store it
    qint64 windowMs = 0;         // 0: unknown (limiters then count every member)
    qint64 scoreUnitMs = 1;      // window ZSET scores: 1 = ms (seed 000), 1000 = s (seed 003)
    qint64 stuckAfterMs = 60000; // queues: in flight longer than this is stuck
    int pageSize = 100;          // bounded reads: items, window entries, retry slots
    // Counted tokens (seed 002): the use counter. A literal: the default
    // shares static data instead of allocating for every object.
    QByteArray countField = QByteArrayLiteral("used_by");
};

// One reason for or against what autodetection says an instance is
// (README, "Autodetection"): its kind, its weight (positive for, negative
// against; an instance is shown when the weights sum to at least
// AutoDetector::Threshold) and a sentence an operator can check.
// Behaviour is what the monitor saw the keys do over the first ticks of
// watching (BehaviourTrack).
struct Evidence
{
    enum class Kind { Structure, Name, Family, Profile, Behaviour };
    Kind kind = Kind::Structure;
    int weight = 0;
    QString reason;
};
QString evidenceKindId(Evidence::Kind kind); // "structure", "name", "family", "profile",
                                             // "behaviour"
int evidenceScore(const QList<Evidence> &evidence);

// One instance of a pattern in the watched database: which keys make it up.
// key is the instance's own key (a token family's: its prefix); related are
// the other keys it reads, in the order its pattern's unit documents
// (backend/patterns/<pattern>/); members are a family's keys.
struct PatternObject
{
    PatternKind kind;
    bool countedTokens = false; // TokenFamily: members are HASHes with a use counter
    QByteArray key;
    QList<QByteArray> related;
    QByteArray parent;
    QList<QByteArray> members;
    PatternParams params;
    QString source;           // the profile rule that matched, or "autodetected"
    QList<Evidence> evidence; // autodetected: why it is shown (or only a candidate)

    // Found by its shape rather than named by a profile rule.
    bool autodetected() const { return source == QLatin1String("autodetected"); }
    QByteArray relatedKey(int i) const { return i < related.size() ? related.at(i) : QByteArray(); }
    // Every key this object reads (for keyspace events and for the snapshot).
    QList<QByteArray> keys() const;
};

// A PatternObject shared between the states that show it: an object's
// keys, parameters and evidence change only when it is found again, while
// its state is replaced at every reading, so each state holds a pointer, not
// a copy. Read through -> and * (or as a const PatternObject &); edit()
// copies it first when another state shares it.
class SharedObject
{
public:
    SharedObject() = default;
    SharedObject(const PatternObject &object)
        : m_d(std::make_shared<PatternObject>(object))
    {}
    SharedObject(PatternObject &&object)
        : m_d(std::make_shared<PatternObject>(std::move(object)))
    {}

    const PatternObject *operator->() const { return &get(); }
    const PatternObject &operator*() const { return get(); }
    operator const PatternObject &() const { return get(); }
    const PatternObject &get() const { return m_d ? *m_d : empty(); }
    // Made on first use; a copy when another state holds it too.
    PatternObject &edit();

private:
    static const PatternObject &empty();
    std::shared_ptr<PatternObject> m_d;
};

} // namespace gatehouse
