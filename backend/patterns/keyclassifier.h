// SPDX-License-Identifier: MIT
#pragma once

#include "patternkind.h"

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QMap>
#include <QString>

#include <optional>
#include <utility>
#include <vector>

namespace gatehouse {

// What a bounded look at one key showed (TYPE, PTTL, and per type: the first
// 64 bytes of a string, a ZSET's size and first/last scores, a few hash fields
// and a sample of two).
struct KeyShape
{
    QByteArray key;
    QByteArray type; // TYPE's reply: "string", "zset", "list", "hash", ...
    qint64 pttlMs = -1;
    QByteArray head;       // strings: GETRANGE 0 63
    qint64 size = 0;       // ZCARD, LLEN, SCARD or XLEN
    double firstScore = 0; // zsets, when size > 0
    double lastScore = 0;
    // hashes: the fields pattern units look for by name (PatternUnit::
    // shapeHashFields) that the hash has, each with its value's first 64 bytes.
    QHash<QByteArray, QByteArray> hashFields;
    bool hasHashField(const QByteArray &field) const { return hashFields.contains(field); }
    // The field's value as an integer; -1 when absent or not one.
    qint64 hashFieldInteger(const QByteArray &field) const;
    // hashes: up to two fields and values, HRANDFIELD's, flat: field, value,
    // ...; streams: up to two of its consumer groups' names (XINFO GROUPS).
    QList<QByteArray> sampleFields;
    // hashes, on a server with per-field expiry: HPTTL of the sampled fields
    // in sampleFields' order (ms; -1 no TTL, -2 gone); empty when not read.
    QList<qint64> fieldTtlsMs;
};

// What one pattern says a key is, judged on its shape alone
// (PatternUnit::claimKey): the evidence autodetection groups into instances.
struct KeyClaim
{
    QString role;     // the pattern's name for it: "window", "retry", "processing", ...
    int strength = 0; // the strongest claim on a key wins; equal: the pattern registered first
};

// Every registered pattern's claim on shape, strongest first (ties in
// registration order); empty when no pattern claims it.
QList<std::pair<PatternKind, KeyClaim>> claimsOn(const KeyShape &shape, qint64 serverNowMs);

// The shape of a key's name (README, "Autodetection"): its segments
// (between ':', '/', '|', '{', '}') with the variable ones replaced by what
// they are: {int}, {hex}, {uuid}, {b62}, {date}, {ip}, {email}; a segment
// "<word>_<variable>" keeps its word ("page_{int}"). Keys of one shape are a
// family ("stats:views:{date}", "code:{hex}"), judged together.
QByteArray familyOf(const QByteArray &key);
// What one name segment is: "int", "hex", "uuid", "b62", "date", "ip",
// "email", or empty for a literal.
QByteArray segmentClass(const QByteArray &segment);
// The lower-case words of a family's literal parts ("stats:views:{date}" ->
// stats, views): random segments never supply a word by chance.
QList<QByteArray> familyWords(const QByteArray &family);
// Whether one of words is in the family's words: whole, or for words of four
// letters or more as the start of one ("lock" in "locks", "ratelimit" in
// "ratelimiter"), and for six or more as its end too ("apiratelimit").
QByteArray matchWord(const QList<QByteArray> &familyWords, const QList<QByteArray> &words);
bool familyHasDate(const QByteArray &family);
// A family as a SCAN/profile glob: every variable segment "*".
QByteArray familyGlob(const QByteArray &family);
// Words in names of ordinary application keys (caches, sessions, stats,
// feeds, timelines, leaderboards, page caches, flags, logs): evidence against
// a coordination pattern.
const QList<QByteArray> &ordinaryWords();

// What discovery saw of one family: every key scanned counts, claimed or not.
struct FamilyStats
{
    qint64 keys = 0;
    QHash<QByteArray, qint64> types; // TYPE -> keys
    // Keys read whole (TYPE, PTTL and shape). A family settled as ordinary on
    // its first keys (AutoDetector::SettleSample) has its later keys only
    // counted by TYPE: withTtl, the TTL range and integerValues are over these.
    qint64 keysRead = 0;
    qint64 withTtl = 0;
    qint64 minTtlMs = -1; // over the keys with a TTL
    qint64 maxTtlMs = -1;
    qint64 integerValues = 0; // strings whose value is an integer
    qint64 sampledBytes = 0;  // MEMORY USAGE of the sampled keys
    int samples = 0;
    int samplesAsked = 0;
    QList<QByteArray> sampleKeys;        // the first few, for the operator
    QByteArray sampleHead;               // the first string's first bytes
    QHash<QByteArray, qint64> claimedBy; // pattern id -> keys it claims (won or not)
};

// The keys claimed during one discovery, which the patterns group into
// instances (PatternUnit::groupClaims), each taking the keys it uses.
//
// A million-key keyspace has a few hundred thousand claimed keys (ordinary
// keys claimed on their shape before their family's evidence rejects them), so
// the pool is compact: entries appended during the scan into chunks and
// sorted by key once, when first asked (no tree node per key); a family's
// name and the common TYPE replies are shared, not copied per key.
class ClaimPool
{
public:
    struct Entry
    {
        KeyShape shape;
        QList<std::pair<PatternKind, KeyClaim>> claims; // strongest first
        QByteArray family;                              // familyOf(key), shared with families()
        bool taken = false;
        const QByteArray &key() const { return shape.key; }
    };

    qint64 nowMs = 0; // the server's time during the scan

    // A key read whole and every claim on it (claimsOn); counted in its
    // family always, kept only when somebody claims it. Returns the entry's
    // number (appended()), or -1 when nobody claims it. family is
    // boundedFamily(shape.key), when the caller has it.
    qint64 add(KeyShape shape, QList<std::pair<PatternKind, KeyClaim>> claims,
               const QByteArray &family = QByteArray());
    // A key of a settled family, counted by its TYPE alone.
    void count(const QByteArray &family, const QByteArray &type);
    // The entry add() numbered i.
    const Entry &appended(quint32 i) const { return at(i); }
    // A pool of one family's stats so far and the given entries of it, for
    // judging a family on its first keys.
    ClaimPool sampleOf(const QByteArray &family, const QList<quint32> &entries) const;
    // A key's MEMORY USAGE sample for its family.
    void addMemorySample(const QByteArray &family, qint64 bytes);
    // Whether the family of a key about to be read wants a MEMORY USAGE
    // sample (the first MemorySamples keys of each); counts it as asked.
    bool wantsMemorySample(const QByteArray &family);
    static constexpr int MemorySamples = 3;
    // At most this many families; keys of further shapes count under their
    // first segment and "*" (a keyspace of unrecognised names stays bounded).
    static constexpr int MaxFamilies = 20000;
    QByteArray boundedFamily(const QByteArray &key) const;
    const QHash<QByteArray, FamilyStats> &families() const { return m_families; }
    const FamilyStats *family(const QByteArray &pattern) const;
    // A family's figures, for a counter that adds many keys at once
    // (AutoDetector's keys of a settled family); nullptr if none.
    FamilyStats *familyToUpdate(const QByteArray &pattern);

    const Entry *find(const QByteArray &key) const;
    // Keys not taken that start with prefix, in key order (a library's keys
    // under its queue's base).
    QList<QByteArray> under(const QByteArray &prefix) const;
    // The role kind claimed key with, won or not; empty when it did not.
    QString roleOf(const QByteArray &key, PatternKind kind) const;
    // Keys not taken whose strongest claim is kind's, in key order.
    QList<QByteArray> won(PatternKind kind) const;
    // Keys not taken that kind claimed, won or not, whose strongest claim is
    // no stronger than maxStrength, in key order: a pattern that groups first
    // can take what another wins on weaker evidence (a resource, which its
    // consumers show, from a bare window) but not what stronger evidence
    // gives another (a semaphore's name, a queue's claims set).
    QList<QByteArray> claimed(PatternKind kind, int maxStrength) const;
    // Marks key as part of an instance; false when unknown or taken already.
    bool take(const QByteArray &key);
    qsizetype size() const
    {
        sort();
        return qsizetype(m_order.size());
    }
    // The i-th claimed key in key order (i < size()).
    const Entry &entryAt(qsizetype i) const
    {
        sort();
        return at(m_order[std::size_t(i)]);
    }

private:
    // Entries live in chunks that never move (a vector of a few hundred
    // thousand entries would copy them all, and hold both copies, each time
    // it grows); m_order lists them in key order.
    static constexpr std::size_t ChunkSize = 4096;
    Entry &at(quint32 i) const { return m_chunks[i / ChunkSize][i % ChunkSize]; }
    // Sorts the keys appended since the last sort; a key SCAN returned twice
    // keeps its last reading.
    void sort() const;
    Entry *findEntry(const QByteArray &key) const;
    // The first position in m_order whose key is not below key.
    std::size_t lowerBound(const QByteArray &key) const;

    // The entries each pattern claims, in key order (built once sorted):
    // won() and claimed() run per pattern over a few hundred thousand keys.
    const std::vector<quint32> &claimedBy(PatternKind kind) const;

    mutable std::vector<std::vector<Entry>> m_chunks;
    mutable std::vector<quint32> m_order; // entries in key order: instances come out sorted
    mutable QHash<PatternKind, std::vector<quint32>> m_byKind;
    mutable bool m_byKindBuilt = false;
    quint32 m_count = 0; // entries appended
    mutable bool m_sorted = true;
    QHash<QByteArray, FamilyStats> m_families;
};

// Shape facts the patterns' claims share.
// Server time in ms; scores within a day of it count as times.
bool nearMs(double score, qint64 serverNowMs);
bool nearSeconds(double score, qint64 serverNowMs);
bool isInteger(const QByteArray &value);
bool namedLikeLock(const QByteArray &key);
// True for values that look generated: long enough, from a token alphabet,
// mixing letters and digits (UUIDs, hex, base64url).
bool looksRandom(const QByteArray &value);
// The family prefix of "<prefix>:<random>": everything up to the last ':',
// including it; empty when the last segment is not random-looking or a
// generated id of any length (hex, base-62, a UUID: "code:3fa9c1").
QByteArray tokenPrefix(const QByteArray &key);
// A window length guessed from a window key's TTL (the scripts PEXPIRE by
// the window): rounded up to 1, 2, 5, 10... s; 0 when there is no TTL.
qint64 guessWindowMs(qint64 pttlMs);
// "rl:api:17" -> "rl:api:*": the last ':' segment replaced by '*'.
QByteArray generaliseKey(const QByteArray &key);

} // namespace gatehouse
