// SPDX-License-Identifier: MIT
#pragma once

#include <patterns/patternunit.h>

namespace gatehouse {

// Redisson's locks (layout read from Redisson 3.52.0 and 4.7.0:
// RedissonLock.java, RedissonBaseLock.java, RedissonFairLock.java,
// RedissonReadLock.java, RedissonWriteLock.java), one object per lock name:
//   RLock          HASH <name>: "<uuid>:<threadId>" -> reentrant hold count,
//                  PEXPIRE by the lease (the watchdog renews 30 s every 10 s)
//   RFairLock      the same HASH, plus "redisson_lock_queue:{name}" (LIST of
//                  waiters, in order) and "redisson_lock_timeout:{name}" (ZSET:
//                  waiter -> the time, ms, after which it is dropped as stale)
//   RReadWriteLock the HASH with "mode" = read | write, readers
//                  "<uuid>:<tid>" and the writer "<uuid>:<tid>:write"; each
//                  read hold has a "{name}:<uuid>:<tid>:rwlock_timeout:<n>"
//                  STRING (part of the object, not read)
// Redisson's unlock latches ("redisson_unlock_latch:{name}:<request>", a
// few seconds each) are taken from discovery with it and never shown alone.
//
// Reads PTTL (the lease left), HLEN, the mode, a page of holders (HSCAN),
// the waiters' count and first page with their timeouts. A fair lock without
// waiters looks like an RLock (its extra keys exist only while someone waits).
// Reading: token = the first holder; items = holders (job = field, attempts =
// hold count, name = "holder" | "reader" | "writer"); parts = waiters (kind
// "waiter", name = waiter id, count = place in the queue, limit = its timeout
// in ms, alive = timeout still ahead); counts holders, holdCount, waiters
// (and readers, writers for a read-write lock).
//
// Action: force release (lock release KEY --token HOLDER) does what
// Redisson's forceUnlock does for the kind of lock it is (DEL, then PUBLISH
// the unlock message so waiters retry at once), after checking the holder
// shown still holds it (--force: whoever holds it, Redisson's own behaviour).
//
// Object: key = the lock HASH; related = {queue LIST, timeout ZSET}.
class RedissonLockUnit final : public PatternUnit
{
public:
    static constexpr PatternKind Kind{"redisson-lock"};
    enum Related { Queue, Timeout };

    static QByteArray queueKey(const QByteArray &name);
    static QByteArray timeoutKey(const QByteArray &name);
    static PatternObject objectForName(const QByteArray &name);

    PatternKind kind() const override { return Kind; }
    Section section() const override;
    QString title() const override { return QStringLiteral("Redisson lock"); }
    QByteArray keyType() const override { return "hash"; }
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
    // A read-write lock's "mode" ("read" or "write").
    QList<QByteArray> shapeHashFields() const override { return {"mode"}; }
    int groupOrder() const override { return 15; } // before the generic locks and tokens
    QList<PatternObject> groupClaims(ClaimPool &pool) const override;

    QList<Command> probe(const PatternObject &object, const ProbeContext &context) const override;
    Reading read(const PatternObject &object, const QList<RedisValue> &replies,
                 const ProbeContext &context) const override;
    qint64 validUntilMs(const PatternObject &object, const Reading &reading) const override;
    void track(TrackState &state, const Reading &reading, qint64 nowMs) const override;
    QList<Figure> figures() const override;
    QList<AlertFigure> alertFigures() const override;
    QList<Column> columns() const override;
    void writeJson(const ObjectState &state, const Reading &r, qint64 nowMs,
                   QJsonObject &json) const override;
    QStringList itemHeaders() const override;
    QList<QStringList> items(const ObjectState &state, qint64 nowMs) const override;
    QHash<QString, QByteArray> shownInputs(const ObjectState &state) const override;
    QByteArray holderToken(const ObjectState &state) const override;
    QHash<QString, QByteArray> itemInputs(const ObjectState &state, int i) const override;
    std::optional<Attention> attention(const ObjectState &state, qint64 nowMs) const override;
    QString attentionText(const ObjectState &state, qint64 nowMs) const override;
    QList<PatternAction> actions() const override;

    // Redisson's forceUnlock of the lock, only while holder holds it.
    static ScriptCall forceUnlock(const PatternObject &object, const QByteArray &holder);
    // "RLock", "RFairLock" or "RReadWriteLock", as a reading shows it.
    static QString redissonType(const Reading &reading);
    // The same for people: an "RLock" reading is "RLock (or an RFairLock with
    // no waiters)", since RedissonFairLock takes a free lock with the very
    // HSET and PEXPIRE RedissonLock uses and drops its queue and timeout keys
    // once empty: nothing in Redis tells the two apart then.
    static QString redissonTypeText(const Reading &reading);
};

} // namespace gatehouse
