// SPDX-License-Identifier: MIT
#include "lockunit.h"

namespace gatehouse {

QList<PatternUnit::Command> LockUnit::probe(const PatternObject &o, const ProbeContext &) const
{
    return {{"GETRANGE", o.key, "0", number(MaxTokenBytes)}, {"PTTL", o.key}};
}

Reading LockUnit::readValueAndTtl(const PatternObject &o, const QList<RedisValue> &r, qint64 nowMs)
{
    if (auto f = failure(o, r, {o.key, o.key}, nowMs)) {
        // PTTL answers for any type: a key of another type is there, not gone.
        if (r.size() > 1 && r.at(1).isInteger())
            f->pttlMs = r.at(1).toInteger();
        return *f;
    }
    Reading reading;
    reading.atMs = nowMs;
    reading.pttlMs = r.at(1).toInteger();
    if (reading.pttlMs == -2) {
        reading.status = Reading::Status::Missing;
        reading.message = QStringLiteral("Free: nobody holds the lock.");
        return reading;
    }
    reading.token = r.at(0).bytes();
    return reading;
}

Reading LockUnit::read(const PatternObject &o, const QList<RedisValue> &r,
                       const ProbeContext &c) const
{
    Reading reading = readValueAndTtl(o, r, c.nowMs);
    if (!reading.isOk())
        return reading;
    if (reading.token.size() > MaxTokenBytes) {
        reading.token.truncate(MaxTokenBytes);
        reading.tokenTruncated = true;
        reading.message = QStringLiteral("The value is longer than %1 bytes; it is not a lock "
                                         "token Gatehouse can compare.")
                              .arg(MaxTokenBytes);
    } else if (reading.pttlMs == -1) {
        reading.message = QStringLiteral("The lock has no TTL: if its holder crashed it is "
                                         "held forever.");
    }
    return reading;
}

qint64 LockUnit::validUntilMs(const PatternObject &, const Reading &r) const
{
    // Free (taking it is an event), or held without a TTL.
    if (r.status == Reading::Status::Missing || (r.isOk() && r.pttlMs == -1))
        return Reading::Forever;
    if (!r.isOk())
        return r.atMs;
    return saturatingAdd(r.atMs, r.pttlMs); // due to expire: confirm, the expired event may lag
}

ScriptCall LockUnit::forceRelease(const PatternObject &o, const QByteArray &shownToken)
{
    ScriptCall call;
    call.action = QStringLiteral("lock.force-release");
    call.script = QStringLiteral("lock_release");
    call.keys = {o.key};
    call.args = {shownToken, QByteArray::number(ScriptCall::ReplyCutBytes), QByteArray()};
    call.keyRoles = {QStringLiteral("lock")};
    call.forceable = true;
    call.forceArg = 2;
    call.summary = QStringLiteral("Delete lock \"%1\" only if it still holds token \"%2\".")
                       .arg(printableBytes(o.key), printableBytes(shownToken, 80));
    return call;
}

ScriptCall LockUnit::extend(const PatternObject &o, const QByteArray &shownToken, qint64 ttlMs)
{
    ScriptCall call;
    call.action = QStringLiteral("lock.extend");
    call.script = QStringLiteral("lock_extend");
    call.keys = {o.key};
    call.args
        = {shownToken, QByteArray::number(ttlMs), QByteArray::number(ScriptCall::ReplyCutBytes)};
    call.keyRoles = {QStringLiteral("lock")};
    call.summary = QStringLiteral("Set lock \"%1\" to expire in %2 ms, only if it still holds "
                                  "token \"%3\".")
                       .arg(printableBytes(o.key))
                       .arg(ttlMs)
                       .arg(printableBytes(shownToken, 80));
    return call;
}

} // namespace gatehouse
