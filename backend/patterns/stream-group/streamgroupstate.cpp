// SPDX-License-Identifier: MIT
#include "streamgroupstate.h"

#include <patterns/libraryqueue/jobtimes.h>
#include <patterns/presentation.h>

#include <algorithm>

namespace gatehouse::StreamGroupInternal {

namespace {

QList<QByteArray> words(const QByteArray &name, int n)
{
    QList<QByteArray> out = name.split(' ');
    while (out.size() < n)
        out.append(QByteArray());
    return out;
}

struct PendingEntry
{
    QByteArray id;
    QByteArray consumer;
    qint64 idleMs = 0;
    qint64 deliveries = 0;
};

QList<PendingEntry> entriesOf(const RedisValue &flat)
{
    QList<PendingEntry> out;
    const auto &e = flat.elements();
    for (qsizetype i = 0; i + 3 < e.size(); i += 4)
        out.append({e.at(i).bytes(), e.at(i + 1).bytes(),
                    std::max<qint64>(0, e.at(i + 2).toInteger()), e.at(i + 3).toInteger()});
    return out;
}

Group groupOf(const RedisValue &g)
{
    Group group;
    group.name = g.at(0).bytes();
    group.consumers = std::max<qint64>(0, g.at(1).toInteger());
    group.pending = std::max<qint64>(0, g.at(2).toInteger());
    group.lastDeliveredId = g.at(3).bytes();
    group.entriesRead = g.at(4).toInteger();
    group.lag = g.at(5).toInteger();
    group.oldestPendingId = g.at(6).bytes();
    if (g.size() > 10)
        group.nextId = g.at(10).bytes();
    const auto &c = g.at(7).elements();
    for (qsizetype i = 0; i + 3 < c.size(); i += 4)
        group.consumerList.append({c.at(i).bytes(), std::max<qint64>(0, c.at(i + 1).toInteger()),
                                   c.at(i + 2).toInteger(), c.at(i + 3).toInteger()});
    return group;
}

// Why a pending entry idle past the threshold is stuck, by what its consumer
// does: gone quiet (idle past the threshold too), or active.
QString stuckReason(const Group &g, const PendingEntry &e, qint64 stuckAfterMs)
{
    const auto c = std::find_if(g.consumerList.cbegin(), g.consumerList.cend(),
                                [&e](const Consumer &c) { return c.name == e.consumer; });
    const QString held
        = QStringLiteral("pending in group %1 for %2 (delivered %3 times) to consumer %4")
              .arg(printableBytes(g.name, 60), formatMs(e.idleMs))
              .arg(e.deliveries)
              .arg(printableBytes(e.consumer, 60));
    if (c == g.consumerList.cend())
        return held + QStringLiteral(", which was not read");
    if (c->idleMs >= stuckAfterMs || c->idleMs < 0)
        return held
               + QStringLiteral(", which has gone quiet (idle %1): it will not ack it")
                     .arg(formatMs(c->idleMs));
    return held
           + QStringLiteral(", which is active (idle %1) but has not acked it")
                 .arg(formatMs(c->idleMs));
}

} // namespace

qint64 idMs(const QByteArray &id)
{
    bool ok = false;
    const qint64 ms = id.left(id.indexOf('-')).toLongLong(&ok);
    return ok && !id.isEmpty() ? ms : -1;
}

namespace {

// An id XADD made with "*" holds the server's time in ms; one an application
// chose ("1-0", an order number) says nothing of when it was added.
constexpr qint64 TimeIdsFromMs = 946684800000; // 2000-01-01

// The oldest entry no consumer has been given: the earliest of each read
// group's next entry, by the time its id holds. None when every group has
// been given every entry; unknown when one's id is not a time.
void setOldestWaiting(const StreamInfo &info, Reading &r)
{
    if (info.groups.isEmpty())
        return;
    qint64 oldest = -1;
    bool unknown = false;
    for (const Group &g : info.groups) {
        if (g.nextId.isEmpty())
            continue;
        const qint64 ms = idMs(g.nextId);
        if (ms < TimeIdsFromMs || ms > r.atMs + 60000)
            unknown = true;
        else
            oldest = oldest < 0 ? ms : std::min(oldest, ms);
    }
    libraryqueue::setOldestWaiting(r, unknown ? -1 : oldest, r.atMs, oldest < 0 && !unknown);
}

} // namespace

void pack(const StreamInfo &info, qint64 stuckAfterMs, Reading &r)
{
    r.editLibrary().parts.append({QStringLiteral("stream"),
                                  info.firstId + ' ' + info.lastId + ' ' + info.lastGeneratedId,
                                  info.length, info.groupsTotal});
    for (const Group &g : info.groups) {
        LibraryPart group{QStringLiteral("group"), g.name, g.pending, g.consumers, g.lag};
        group.expiresInMs = g.entriesRead;
        r.editLibrary().parts.append(group);
        r.editLibrary().parts.append(
            {QStringLiteral("cursor"), g.lastDeliveredId + ' ' + g.oldestPendingId, 0, -1, -1});
        for (const Consumer &c : g.consumerList) {
            LibraryPart consumer{QStringLiteral("consumer"), c.name, c.pending, -1, c.idleMs};
            consumer.expiresInMs = c.inactiveMs;
            consumer.alive = c.idleMs >= 0 && c.idleMs < stuckAfterMs;
            r.editLibrary().parts.append(consumer);
        }
    }
}

StreamInfo unpack(const Reading &r)
{
    StreamInfo info;
    for (const LibraryPart &p : r.library().parts) {
        if (p.kind == QLatin1String("stream")) {
            const QList<QByteArray> ids = words(p.name, 3);
            info.firstId = ids.at(0);
            info.lastId = ids.at(1);
            info.lastGeneratedId = ids.at(2);
            info.length = p.count;
            info.groupsTotal = p.limit;
        } else if (p.kind == QLatin1String("group")) {
            Group g;
            g.name = p.name;
            g.pending = p.count;
            g.consumers = p.limit;
            g.lag = p.ageMs;
            g.entriesRead = p.expiresInMs;
            info.groups.append(g);
        } else if (p.kind == QLatin1String("cursor") && !info.groups.isEmpty()) {
            const QList<QByteArray> ids = words(p.name, 2);
            info.groups.last().lastDeliveredId = ids.at(0);
            info.groups.last().oldestPendingId = ids.at(1);
        } else if (p.kind == QLatin1String("consumer") && !info.groups.isEmpty()) {
            info.groups.last().consumerList.append({p.name, p.count, p.ageMs, p.expiresInMs});
        }
    }
    return info;
}

bool readReply(const RedisValue &reply, qint64 stuckAfterMs, int pageSize, Reading &r)
{
    const auto &e = reply.elements();
    if (e.isEmpty() || !e.at(0).isInteger())
        return false;
    if (e.at(0).toInteger() == 0) {
        r.status = Reading::Status::Missing;
        return true;
    }
    if (e.size() < 6)
        return false;
    StreamInfo info;
    info.length = std::max<qint64>(0, e.at(1).toInteger());
    info.firstId = e.at(2).bytes();
    info.lastId = e.at(3).bytes();
    info.lastGeneratedId = e.at(4).bytes();
    info.groupsTotal = std::max<qint64>(0, e.at(5).toInteger());
    const int page = std::max(1, pageSize);
    qint64 consumers = 0;
    qint64 lag = 0;
    bool lagKnown = true;
    r.editQueue().oldestInFlightAgeMs = -1;
    r.editLibrary().workersAlive = 0;
    for (qsizetype i = 6; i < e.size(); ++i) {
        const RedisValue &raw = e.at(i);
        if (raw.size() < 10)
            return false;
        const Group g = groupOf(raw);
        info.groups.append(g);
        consumers = saturatingAdd(consumers, g.consumers);
        r.editQueue().inFlight = saturatingAdd(r.queue().inFlight, g.pending);
        lagKnown = lagKnown && g.lag >= 0;
        lag = saturatingAdd(lag, std::max<qint64>(0, g.lag));
        qint64 quietPending = 0;
        for (const Consumer &c : g.consumerList) {
            const bool alive = c.idleMs >= 0 && c.idleMs < stuckAfterMs;
            r.editLibrary().workersAlive += alive ? 1 : 0;
            if (!alive)
                quietPending = saturatingAdd(quietPending, c.pending);
        }
        const QList<PendingEntry> oldest = entriesOf(raw.at(8));
        for (const PendingEntry &p : oldest) {
            r.editQueue().oldestInFlightAgeMs = std::max(r.queue().oldestInFlightAgeMs, p.idleMs);
            if (r.queue().items.size() >= page)
                break;
            InFlightItem item;
            item.job = p.id;
            item.ageMs = p.idleMs;
            item.source = AgeSource::Library;
            item.attempts = p.deliveries;
            item.queue = g.name;
            item.holder = p.consumer;
            const auto c = std::find_if(g.consumerList.cbegin(), g.consumerList.cend(),
                                        [&p](const Consumer &c) { return c.name == p.consumer; });
            item.locked = c != g.consumerList.cend() && c->idleMs >= 0 && c->idleMs < stuckAfterMs;
            r.editQueue().items.append(item);
        }
        const QList<PendingEntry> stuck = entriesOf(raw.at(9));
        for (const PendingEntry &p : stuck) {
            r.editQueue().oldestInFlightAgeMs = std::max(r.queue().oldestInFlightAgeMs, p.idleMs);
            if (r.library().stuckJobs.size() < page)
                r.editLibrary().stuckJobs.append(
                    {p.id, stuckReason(g, p, stuckAfterMs), saturatingSub(r.atMs, p.idleMs)});
        }
        // Entries idle past the threshold, or held by a consumer gone quiet
        // that long (their idle times are at least its own).
        r.editQueue().stuck
            = saturatingAdd(r.queue().stuck, std::max<qint64>(stuck.size(), quietPending));
        r.editQueue().stuckIsLowerBound = r.queue().stuckIsLowerBound || stuck.size() >= page
                                          || g.consumerList.size() < g.consumers;
    }
    setOldestWaiting(info, r);
    r.editQueue().truncated
        = info.groups.size() < info.groupsTotal || r.queue().inFlight > r.queue().items.size();
    r.editQueue().stuckIsLowerBound
        = r.queue().stuckIsLowerBound || info.groups.size() < info.groupsTotal;
    r.editQueue().length = info.length;
    r.editLibrary().workers = consumers;
    r.editLibrary().counts = {{QStringLiteral("entries"), info.length},
                              {QStringLiteral("groups"), info.groupsTotal},
                              {QStringLiteral("consumers"), consumers},
                              {QStringLiteral("pending"), r.queue().inFlight}};
    if (lagKnown)
        r.editLibrary().counts.append({QStringLiteral("lag"), lag});
    if (info.groups.size() < info.groupsTotal)
        r.message = QStringLiteral("Read %1 of %2 consumer groups.")
                        .arg(info.groups.size())
                        .arg(info.groupsTotal);
    pack(info, stuckAfterMs, r);
    return true;
}

} // namespace gatehouse::StreamGroupInternal
