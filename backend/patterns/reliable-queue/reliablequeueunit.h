// SPDX-License-Identifier: MIT
#pragma once

#include <patterns/patternunit.h>

namespace gatehouse {

// Seed 004's reliable queue: producers LPUSH to a LIST, workers move the next
// job (right end) into a processing LIST with LMOVE/RPOPLPUSH and LREM it
// when done. Gatehouse's claim script also scores each claim in a claims
// ZSET, which gives stuck jobs a real age; without one, ages count from the
// first time Gatehouse saw the job (ProbeContext::firstSeenMs).
//
// Reads LLENs, one page of the oldest claims and one page of the oldest
// processing items (the right end): bounded however long the lists are.
//
// Object: key = queue LIST; related = {processing LIST, claims ZSET or empty,
// dead-letter LIST or empty}.
class ReliableQueueUnit final : public PatternUnit
{
public:
    static constexpr PatternKind Kind{"reliable-queue"};
    // Jobs per queue_requeue_stuck run (bounded batches).
    static constexpr int StuckBatch = 100;

    PatternKind kind() const override { return Kind; }
    Section section() const override;
    QString title() const override { return QStringLiteral("reliable queue"); }
    QByteArray keyType() const override { return "list"; }
    // A LIST, unless kombu binds a queue of that name (a Celery queue's list,
    // which Celery's own pattern acts on).
    QList<Command> identifyProbe(const QByteArray &target) const override
    {
        return {{"TYPE", target}, {"TYPE", "_kombu.binding." + target}};
    }
    bool identifies(const QByteArray &, const QList<RedisValue> &r) const override
    {
        return r.size() == 2 && r.at(0).bytes() == "list" && r.at(1).bytes() != "set";
    }
    bool parseRule(RuleReader &reader, const QJsonObject &json, ProfileRule &rule) const override;
    void writeRule(const ProfileRule &rule, QJsonObject &json) const override;
    std::optional<PatternObject> objectFor(const ProfileRule &rule,
                                           const QByteArray &key) const override;
    PatternObject conventionalObject(const QByteArray &key) const override;
    QList<Command> probe(const PatternObject &object, const ProbeContext &context) const override;
    qint64 validUntilMs(const PatternObject &object, const Reading &reading) const override;
    Reading read(const PatternObject &object, const QList<RedisValue> &replies,
                 const ProbeContext &context) const override;
    // Ages of jobs without a claim time count from when Gatehouse first saw them.
    void track(TrackState &state, const Reading &reading, qint64 nowMs) const override;
    // A job LREM'd from the processing list was finished (or requeued).
    bool isCompletion(const PatternObject &object, const QByteArray &key,
                      const QByteArray &event) const override;
    bool hasThroughput() const override { return true; }
    QList<Figure> figures() const override;
    QList<Chart> charts() const override;
    QList<Column> columns() const override;
    void writeJson(const ObjectState &state, const Reading &r, qint64 nowMs,
                   QJsonObject &json) const override;
    QStringList itemHeaders() const override;
    QList<QStringList> items(const ObjectState &state, qint64 nowMs) const override;
    QHash<QString, QByteArray> itemInputs(const ObjectState &state, int i) const override;
    QList<PatternAction> actions() const override;
    // Autodetection (PatternUnit): its evidence and grouping.
    std::optional<KeyClaim> claimKey(const KeyShape &shape, qint64 serverNowMs) const override;
    QList<PatternObject> groupClaims(ClaimPool &pool) const override;
    QList<QByteArray> wordsFor() const override;
    ProfileRule suggestRule(const PatternObject &object) const override;
    // Jobs stuck in flight.
    std::optional<Attention> attention(const ObjectState &state, qint64 nowMs) const override;
    QString attentionText(const ObjectState &state, qint64 nowMs) const override;

    static QByteArray processingKey(const PatternObject &o) { return o.relatedKey(0); }
    static QByteArray claimsKey(const PatternObject &o);
    static QByteArray deadKey(const PatternObject &o);

    static ScriptCall requeue(const PatternObject &object, const QByteArray &job);
    static ScriptCall deadLetter(const PatternObject &object, const QByteArray &job);
    // Needs a claims set; invalid otherwise (then requeue the stuck items one by one).
    static ScriptCall requeueStuck(const PatternObject &object, qint64 olderThanMs, int most);
    std::unique_ptr<DemoTraffic> demoTraffic(quint32 seed) const override;
};

} // namespace gatehouse
