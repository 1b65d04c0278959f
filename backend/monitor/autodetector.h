// SPDX-License-Identifier: MIT
#pragma once

#include "profile.h"

#include <patterns/keyclassifier.h>
#include <redis/redisvalue.h>

#include <QHash>

namespace gatehouse {

// Instances autodetection found but does not show: their evidence sums to
// more than nothing but less than AutoDetector::Threshold. Grouped by
// pattern and name shape, so 20,000 dated counters are one row
// (`gatehouse-cli profile accept|reject FAMILY`).
struct Candidate
{
    PatternKind kind;
    QByteArray family;            // familyOf() the instances' keys: "stats:{date}:{int}"
    qint64 count = 0;             // instances
    qint64 keys = 0;              // the keys they use (a token family's members)
    int score = 0;                // the best instance's
    QList<QByteArray> sampleKeys; // the first few instances' keys
    QList<Evidence> evidence;     // the best instance's
    PatternObject example;        // the best instance (its suggested rule, when accepted)
};

// Keys no shown instance or candidate uses, summarised by name shape: what
// they are (by name and shape), how many, how big (sampled), how long they live.
struct OtherFamily
{
    QByteArray family;
    QString kind;    // "cache", "page-cache", "session", "dated-counter", "counter",
                     // "timeline", "leaderboard", "flag", "log", "sorted-set", "data"
    QString reason;  // why it is that kind ("\"page\" in its name"): no pattern claimed it
    QByteArray type; // the most common TYPE
    qint64 keys = 0;
    qint64 withTtl = 0;
    qint64 minTtlMs = -1; // over the keys with a TTL
    qint64 maxTtlMs = -1;
    qint64 keysRead = 0;        // keys whose TTL and shape were read (the TTL figures' base)
    qint64 sampledKeys = 0;     // keys whose MEMORY USAGE was read
    qint64 estimatedBytes = -1; // mean sample x keys; -1 when none could be read
    QList<QByteArray> sampleKeys;
};

// What one autodetection found: shown instances (each with its evidence),
// candidates and the ordinary keys.
struct Detection
{
    QList<PatternObject> objects;
    QList<Candidate> candidates;
    QList<OtherFamily> other;
};

// Turns keys judged one by one into pattern instances, generic over the
// pattern registry: every pattern claims the keys its evidence fits
// (PatternUnit::claimKey, the strongest claim wins), then the patterns group
// what they claimed (PatternUnit::groupClaims: windows with their ":retry"
// partners, resources with their consumers, queues with their processing
// lists, token families by prefix). Each instance is then judged
// (PatternUnit::judge: structure, names, family) and shown only when its
// evidence reaches Threshold. Every key counts in its family (familyOf), so
// the ordinary keys are summarised too. Also proposes a profile an operator
// can save and edit (PatternUnit::suggestRule).
class AutoDetector
{
public:
    // An instance is shown when its evidence weighs at least this much: a
    // shape alone rarely does (a counter that expires, a ZSET of recent
    // times), a shape with a name or a distinctive layout does.
    static constexpr int Threshold = 3;

    // The probe commands that give a key's shape, after TYPE and PTTL.
    static QList<QList<QByteArray>> shapeCommands(const QByteArray &key, const QByteArray &type);
    // Fills shape from the replies to shapeCommands.
    static void readShape(KeyShape &shape, const QList<RedisValue> &replies);
    // A hash's sampled fields' TTLs (HPTTL ... FIELDS, Redis 7.4+): sent after
    // shapeCommands, only to servers with per-field expiry; empty when the
    // shape sampled no field.
    static QList<QByteArray> fieldTtlCommand(const KeyShape &shape);
    static void readFieldTtls(KeyShape &shape, const RedisValue &reply);

    // An operator's verdicts (Profile::autodetect): instances a rule of the
    // same pattern matches are shown whatever their score; keys a rejected
    // glob matches are ordinary.
    void setHints(const Profile &profile) { m_hints = profile; }

    // A key read whole (TYPE, PTTL, shapeCommands). family is familyOf(key),
    // when the caller has it.
    void add(const KeyShape &shape, qint64 serverNowMs, const QByteArray &family = QByteArray());

    // Families are judged on their first SettleSample keys read whole: when
    // none of those is part of an instance shown or listed as a candidate
    // (each is claimed by nobody, or part of an instance judged ordinary),
    // the family is settled as ordinary and its later keys are only counted
    // by TYPE; their TTL and values are not read. A million-key keyspace is
    // mostly a few large ordinary families. A later key of a TYPE the sample
    // did not have is read whole.
    static constexpr int SettleSample = 64;
    // The family a key counts in (ClaimPool::boundedFamily).
    QByteArray familyOf(const QByteArray &key) const { return m_pool.boundedFamily(key); }
    bool settled(const QByteArray &family) const;
    // Whether a key of family with this TYPE needs no more than counting.
    bool settledWith(const QByteArray &family, const QByteArray &type) const;
    // A key of a family settled with this TYPE is counted (true); otherwise
    // nothing happens (false) and the key is to be read whole. One lookup:
    // it runs for most keys of a large keyspace.
    bool count(const QByteArray &family, const QByteArray &type, const QByteArray &key);
    // The same by a family's number (familyIndex(), which adds it when new):
    // a key's family is looked up once, when its TYPE is asked, not again
    // when the reply comes.
    int familyIndex(const QByteArray &family);
    // familyIndex(familyOf(key)), allocating no name for a family met before.
    int familyIndexOfKey(const QByteArray &key);
    // The name of a family by its number; empty for a number of an earlier detection.
    QByteArray familyAt(int family) const
    {
        return family >= 0 && std::size_t(family) < m_samplings.size()
                   ? m_samplings[std::size_t(family)].family
                   : QByteArray();
    }
    bool settledAt(int family) const
    {
        return family >= 0 && std::size_t(family) < m_samplings.size()
               && m_samplings[std::size_t(family)].settled;
    }
    bool countAt(int family, const QByteArray &type, const QByteArray &key);
    qint64 countedKeys() const { return m_counted; }

    // A claim no stronger than this says only "perhaps the partner of a key
    // whose name extends mine" (a bare list: the queue of a processing list
    // "<list>:processing", ReliableQueueUnit). A family whose first keys are
    // ordinary but for such keys nobody took is settled too, provisionally:
    // its later keys are counted by TYPE and their names kept until the
    // scan has met every key, when takeDeferred() says which of them a
    // claimed key's name extends (those are read whole after all).
    static constexpr int PartnerStrength = 1;
    // At the end of a scan: the kept keys of provisionally settled families
    // that a claimed key's name extends ("<key>:...", "<key>-...",
    // "<key>.processing"), to read whole (add()); every other kept key is
    // counted in its family. Detection counts what was not taken.
    QList<QByteArray> takeDeferred();
    qsizetype deferredKeys() const { return m_deferred; }
    // Whether key's family wants a MEMORY USAGE sample (the first few keys
    // of each family), counted as asked; and the sample's reply.
    bool wantsMemorySample(const QByteArray &key);
    void addMemorySample(const QByteArray &key, qint64 bytes);

    Detection detect() const;
    // detect() for the last time: the claimed keys are consumed, not copied
    // (grouping takes keys, so detect() works on a copy, and a million keys'
    // claims are most of what discovery holds).
    Detection takeDetection();
    QList<PatternObject> objects() const { return detect().objects; }
    Profile suggestedProfile() const { return suggestedProfile(objects()); }
    // The profile that finds objects (grouped by detect()).
    static Profile suggestedProfile(const QList<PatternObject> &objects);
    qsizetype claimedKeys() const { return m_pool.size(); }

    // What an ordinary family is, by its name's words and its keys' shape.
    static QString ordinaryKind(const QByteArray &family, const FamilyStats &stats,
                                QString *reason = nullptr);

private:
    static Detection detectFrom(ClaimPool &pool, const std::optional<Profile> &hints);

    // Judges a family on the keys read so far (its first SettleSample).
    void judgeSample(const QByteArray &family);

    struct Sampling
    {
        QByteArray family;
        QList<quint32> entries;  // the claimed keys among the first read (ClaimPool::appended)
        QList<QByteArray> types; // the TYPEs the first keys had
        // settled: the later keys counted by TYPE (as types), not yet in the
        // pool's family (countInto()).
        QList<qint64> counted;
        bool decided = false;
        bool settled = false;
        bool partners = false; // settled with keys that may be partners (PartnerStrength)
        // partners: per TYPE of those keys, the patterns that claimed them;
        // a later key of that TYPE counts as claimed by them too (its
        // family's evidence: how many of its keys look alike).
        QList<std::pair<QByteArray, QList<QByteArray>>> partnerClaims;
        // The later keys of those TYPEs, (key, TYPE), until takeDeferred().
        QList<std::pair<QByteArray, QByteArray>> deferred;
    };
    Sampling &sampling(const QByteArray &family)
    {
        return m_samplings[std::size_t(familyIndex(family))];
    }
    // A deferred key of s's family counted in pool, as claimed like its partners.
    static void countDeferred(ClaimPool &pool, const Sampling &s, const QByteArray &type);
    // Puts the keys counted so far into pool's families, and (deferred:
    // detection without takeDeferred()) every key still deferred.
    static void countInto(const std::vector<Sampling> &samplings, ClaimPool &pool, bool deferred);

    ClaimPool m_pool; // claimed keys, and every key's family
    std::optional<Profile> m_hints;
    QHash<QByteArray, int> m_familyIndex; // family -> its m_samplings index
    QByteArray m_scratch;                 // familyIndexOfKey's name, reused
    std::vector<Sampling> m_samplings;    // each family's first keys' verdict
    qint64 m_counted = 0;                 // keys of settled families, counted only
    qsizetype m_deferred = 0;             // keys kept in Sampling::deferred
};

} // namespace gatehouse
