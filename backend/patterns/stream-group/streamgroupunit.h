// SPDX-License-Identifier: MIT
#pragma once

#include <patterns/patternunit.h>

namespace gatehouse {

// A Redis stream read by consumer groups: producers XADD, consumers
// XREADGROUP and XACK, and an entry delivered and not yet acked stays in its
// group's pending entries list (PEL) with its consumer, its idle time and its
// delivery count. Redis's own reliable queue, as the Redis documentation
// presents it (XREADGROUP, XPENDING, XCLAIM/XAUTOCLAIM).
//
// Recognised by evidence, with no profile: a key of TYPE stream whose XINFO
// GROUPS is not empty (the shape probe samples the groups' names). A stream
// without groups is an event log, not a queue (BullMQ's "<q>:events", an
// audit stream): nothing is pending, nothing can be stuck or acted on, so it
// is not shown as one. Profile rule: "pattern": "stream-group", "match",
// "stuckAfter" (ms, default 5 min), "deadKey" (default "{key}:dead").
//
// Reads with lua/stream-group/stream_group_read.lua (read-only, one round
// trip): XINFO STREAM (no FULL), XINFO GROUPS, and per group (at most 20)
// XINFO CONSUMERS (at most 50), the XPENDING summary, the oldest pending page
// and a page of those idle past the threshold; plus XLEN of the dead-letter
// stream. Stuck: pending entries idle past the threshold, or held by a
// consumer idle that long.
//
// Acts with lua/stream-group/: claim idle pending entries for another
// consumer, dead-letter one entry (copy to the dead-letter stream with its
// id, then XACK), delete a consumer holding nothing, trim with a count first.
//
// Object: key = the stream; related = {dead-letter stream}.
class StreamGroupUnit final : public PatternUnit
{
public:
    static constexpr PatternKind Kind{"stream-group"};
    static constexpr qint64 DefaultStuckAfterMs = 5 * 60 * 1000;
    static constexpr int MaxClaim = 1000;  // entries one claim moves at most
    static constexpr int MaxTrim = 100000; // entries one trim deletes at most
    static QByteArray deadKey(const PatternObject &o) { return o.relatedKey(0); }

    PatternKind kind() const override { return Kind; }
    Section section() const override;
    QString title() const override { return QStringLiteral("stream consumer group"); }
    QByteArray keyType() const override { return "stream"; }
    LibraryInfo library() const override
    {
        return {QStringLiteral("redis-streams"), QStringLiteral("6.2-7")};
    }
    bool parseRule(RuleReader &reader, const QJsonObject &json, ProfileRule &rule) const override;
    void writeRule(const ProfileRule &rule, QJsonObject &json) const override;
    std::optional<PatternObject> objectFor(const ProfileRule &rule,
                                           const QByteArray &key) const override;
    PatternObject conventionalObject(const QByteArray &key) const override;

    std::optional<KeyClaim> claimKey(const KeyShape &shape, qint64 serverNowMs) const override;
    QList<PatternObject> groupClaims(ClaimPool &pool) const override;
    QList<Evidence> structureEvidence(const PatternObject &object,
                                      const ClaimPool &pool) const override;
    QList<QByteArray> wordsFor() const override;
    ProfileRule suggestRule(const PatternObject &object) const override;

    QList<Command> probe(const PatternObject &object, const ProbeContext &context) const override;
    Reading read(const PatternObject &object, const QList<RedisValue> &replies,
                 const ProbeContext &context) const override;

    QList<Figure> figures() const override;
    QList<Column> columns() const override;
    void writeJson(const ObjectState &state, const Reading &r, qint64 nowMs,
                   QJsonObject &json) const override;
    // Rows: each group, its consumers, then its oldest pending entries.
    QStringList itemHeaders() const override;
    QList<QStringList> items(const ObjectState &state, qint64 nowMs) const override;
    QHash<QString, QByteArray> itemInputs(const ObjectState &state, int i) const override;
    std::optional<Attention> attention(const ObjectState &state, qint64 nowMs) const override;
    QString attentionText(const ObjectState &state, qint64 nowMs) const override;
    QList<PatternAction> actions() const override;

    // The action scripts' calls (streamgroupactions.cpp); inputs as the
    // scripts' headers say.
    static ScriptCall claim(const PatternObject &object, const QByteArray &group,
                            const QByteArray &to, qint64 minIdleMs, int most,
                            const QByteArray &from = {}, const QByteArray &entry = {});
    static ScriptCall deadLetter(const PatternObject &object, const QByteArray &group,
                                 const QByteArray &entry);
    static ScriptCall deleteConsumer(const PatternObject &object, const QByteArray &group,
                                     const QByteArray &consumer, qint64 minIdleMs);
    // strategy "MAXLEN" or "MINID"; agreed < 0: count only.
    static ScriptCall trim(const PatternObject &object, const QByteArray &strategy,
                           const QByteArray &threshold, qint64 agreed);
};

} // namespace gatehouse
