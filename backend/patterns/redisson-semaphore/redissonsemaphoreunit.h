// SPDX-License-Identifier: MIT
#pragma once

#include <patterns/patternunit.h>

namespace gatehouse {

// Redisson's RSemaphore and RPermitExpirableSemaphore (layout read from
// Redisson 3.52.0 and 4.7.0: RedissonSemaphore.java,
// RedissonPermitExpirableSemaphore.java): a STRING <name> holding the
// available permits (waiters are told on the channel "redisson_sc:{name}");
// the expirable one adds "{name}:timeout", a ZSET of the permits acquired:
// permit id (16 random bytes; Redisson shows them as hex) -> the time (ms)
// its lease ends, 922337203685477 for a permit without a lease. A permit
// whose lease ended is expired: Redisson gives it back (ZREM, INCRBY,
// PUBLISH) at the next acquire or availablePermits call.
//
// Reads the permits, the acquired count, the expired count and a page of
// permits, soonest lease end first. Found without a profile by its
// "{name}:timeout" ZSET. A plain RSemaphore is an integer STRING like any
// counter: found by its name (a word holding "semaphore", "sema" or
// "permits", and no ordinary-data word or date), shown when it has no TTL,
// a candidate when it has one; otherwise a profile rule ("pattern":
// "redisson-semaphore") names it.
// Reading: count = available permits; inFlight = acquired; stuck = expired
// (stuckJobs: the expired permits read, as hex); items = the permits read
// (job = hex id, ageMs = -1, attempts = lease end in ms, -1 without a lease);
// counts available, acquired, expired.
//
// Action: release an expired permit (semaphore release NAME --holder ID, or
// --all for every expired one) as Redisson's own reclaim does.
//
// Object: key = the permits STRING; related = {the timeout ZSET}.
class RedissonSemaphoreUnit final : public PatternUnit
{
public:
    static constexpr PatternKind Kind{"redisson-semaphore"};
    static constexpr qint64 NoLease = 922337203685477LL; // Redisson's nonExpirableTimeout
    static constexpr int Batch = 100;
    // A plain RSemaphore's integer STRING, claimed by its name.
    static constexpr const char *PlainRole = "plain permits";
    static constexpr int PlainStrength = 20;

    static QByteArray timeoutKey(const QByteArray &name);
    static QByteArray channel(const QByteArray &name);
    static PatternObject objectForName(const QByteArray &name);

    PatternKind kind() const override { return Kind; }
    Section section() const override;
    QString title() const override { return QStringLiteral("Redisson semaphore"); }
    QByteArray keyType() const override { return "string"; }
    LibraryInfo library() const override
    {
        return {QStringLiteral("redisson"), QStringLiteral("3-4")};
    }
    QList<Command> identifyProbe(const QByteArray &target) const override;
    bool identifies(const QByteArray &target, const QList<RedisValue> &replies) const override;

    QList<QByteArray> scanGlobs(const ProfileRule &rule) const override;
    std::optional<PatternObject> objectFor(const ProfileRule &rule,
                                           const QByteArray &key) const override;
    PatternObject conventionalObject(const QByteArray &key) const override;
    std::optional<KeyClaim> claimKey(const KeyShape &shape, qint64 serverNowMs) const override;
    int groupOrder() const override { return 15; }
    QList<PatternObject> groupClaims(ClaimPool &pool) const override;
    QList<QByteArray> wordsFor() const override;
    QList<Evidence> structureEvidence(const PatternObject &object,
                                      const ClaimPool &pool) const override;

    QList<Command> probe(const PatternObject &object, const ProbeContext &context) const override;
    Reading read(const PatternObject &object, const QList<RedisValue> &replies,
                 const ProbeContext &context) const override;
    qint64 validUntilMs(const PatternObject &object, const Reading &reading) const override;
    QList<Figure> figures() const override;
    QList<Column> columns() const override;
    void writeJson(const ObjectState &state, const Reading &r, qint64 nowMs,
                   QJsonObject &json) const override;
    QStringList itemHeaders() const override;
    QList<QStringList> items(const ObjectState &state, qint64 nowMs) const override;
    QHash<QString, QByteArray> itemInputs(const ObjectState &state, int i) const override;
    std::optional<Attention> attention(const ObjectState &state, qint64 nowMs) const override;
    QString attentionText(const ObjectState &state, qint64 nowMs) const override;
    QList<PatternAction> actions() const override;

    // Gives back expired permits as Redisson does: permitHex (one, only if
    // expired) or every expired one when empty (Batch per run).
    static ScriptCall releaseExpired(const PatternObject &object, const QByteArray &permitHex);
};

} // namespace gatehouse
