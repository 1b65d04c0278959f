// SPDX-License-Identifier: MIT
#pragma once

#include "patternkind.h"

#include <QByteArray>
#include <QList>
#include <QString>

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

} // namespace gatehouse
