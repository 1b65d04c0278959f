// SPDX-License-Identifier: MIT
#include "matchcounter.h"

#include <QHash>
#include <QMutex>

#include <memory>

namespace gatehouse {

namespace {

struct Counters
{
    QMutex mutex; // registrations run at static initialisation, reads on any thread
    QHash<QString, std::shared_ptr<const MatchCounter>> byScript; // guarded by mutex
};

Counters &counters()
{
    static Counters c;
    return c;
}

QByteArray keyAt(const ScriptCall &call, int index)
{
    return call.keys.value(index < 0 ? call.keys.size() + index : index);
}

qint64 firstCount(const QList<RedisValue> &replies)
{
    return replies.value(0).toInteger();
}

} // namespace

MatchCounter MatchCounter::wholeSet(int keyIndex, int jobArg, int batchArg, const QString &done)
{
    return {[=](const ScriptCall &call, qint64) {
                if (!call.args.value(jobArg).isEmpty())
                    return QList<QList<QByteArray>>();
                return QList<QList<QByteArray>>{{"ZCARD", keyAt(call, keyIndex)}};
            },
            firstCount,
            [=](const ScriptCall &call) {
                return QStringLiteral("up to %1 will be %2")
                    .arg(QString::fromLatin1(call.args.value(batchArg)), done);
            }};
}

MatchCounter MatchCounter::scoredBefore(const QString &action, int keyIndex, int olderThanArg,
                                        int batchArg, const QString &note)
{
    return {[=](const ScriptCall &call, qint64 nowMs) {
                if (!action.isEmpty() && call.action != action)
                    return QList<QList<QByteArray>>();
                return QList<QList<QByteArray>>{
                    {"ZCOUNT", keyAt(call, keyIndex), "-inf",
                     QByteArray::number(nowMs - call.args.value(olderThanArg).toLongLong())}};
            },
            firstCount,
            [=](const ScriptCall &call) {
                return note.arg(QString::fromLatin1(call.args.value(batchArg)));
            }};
}

bool MatchCounter::add(const QString &script, MatchCounter counter)
{
    Counters &c = counters();
    const QMutexLocker lock(&c.mutex);
    c.byScript.insert(script, std::make_shared<const MatchCounter>(std::move(counter)));
    return true;
}

const MatchCounter *MatchCounter::of(const ScriptCall &call)
{
    Counters &c = counters();
    const QMutexLocker lock(&c.mutex);
    const auto it = c.byScript.constFind(call.script);
    // Entries are never removed or replaced once read: the pointer stays valid.
    return it == c.byScript.cend() ? nullptr : it->get();
}

} // namespace gatehouse
