// SPDX-License-Identifier: MIT
// The monitor's snapshots: each object's published state, rebuilt when it
// changed, and snapshotReady (paced by SnapshotPacer: at most ten a second).
#include "monitor.h"

#include "attention.h"
#include "discovery.h"

#include <redis/redisclient.h>

#include <QDateTime>

#include <algorithm>

namespace gatehouse {

void Monitor::restate(int index, std::optional<Reading> reading,
                      std::optional<PatternObject> object, bool listed)
{
    const Tracked &t = m_tracked.at(index);
    auto o = std::make_shared<ObjectState>();
    o->object = object ? SharedObject(std::move(*object)) : m_states.at(index)->object;
    if (reading)
        o->reading = std::move(*reading);
    else if (index < m_states.size())
        o->reading = m_states.at(index)->reading;
    o->firstSeenMs = t.firstSeenMs;
    o->heldSinceMs = t.track.heldSinceMs;
    o->throughputPerS = t.throughputPerS;
    o->stale = t.stale;
    o->staleSinceMs = t.stale ? t.readAtServerMs : -1;
    // None of its keys exists any more: gone, whatever the pattern (an
    // empty semaphore or queue has no key either, and a fresh console would
    // not list it), with when, until a key is back.
    o->gone = o->reading.status == Reading::Status::Missing && t.track.everRead;
    if (o->gone) // since the first reading that found it so
        o->goneSinceMs = index < m_states.size() && m_states.at(index)->gone
                             ? m_states.at(index)->goneSinceMs
                             : o->reading.atMs;
    if (index < m_states.size()) {
        m_states[index] = std::move(o);
        if (listed)
            m_replaced.replaced(index, m_states.size());
    } else {
        m_states.append(std::move(o));
        m_replaced.moved();
    }
}

Monitor::Replaced Monitor::takeReplaced()
{
    return m_replaced.take(m_monitorId, m_snapshot.sequence);
}

void Monitor::publish()
{
    m_snapshotFresh = false;
    m_pacer.changed();
}

void Monitor::publishRoutine()
{
    m_snapshotFresh = false;
    m_pacer.routine();
}

void Monitor::emitSnapshot()
{
    if (!m_snapshotFresh)
        refreshSnapshot();
    Q_EMIT snapshotReady(m_snapshot);
}

void Monitor::refreshSnapshot()
{
    Snapshot s;
    s.sequence = ++m_sequence;
    m_replaced.made(m_states.size());
    s.server = m_server;
    s.server.lastReadingAgeMs = replyAgeMs();
    s.server.nodes[0].lastReadingAgeMs = s.server.lastReadingAgeMs;
    // A Cluster's nodes, the one its URL named too: one that has not
    // answered its tick's read is as old as its last answer (or the ask);
    // one that answered all it was asked is not measured (another node's
    // stall, which holds the tick, does not make it silent).
    if (m_server.mode == QLatin1String("cluster") && !m_nodeAnsweredAtMs.isEmpty()
        && !(m_dbSizeRefused && m_commandStatsRefused)) {
        const qint64 now = m_clock.elapsed();
        for (qsizetype i = 0; i < s.server.nodes.size() && i < m_nodeAddresses.size(); ++i) {
            const QString &address = m_nodeAddresses.at(i);
            const auto asked = m_nodeAskedAtMs.constFind(address);
            s.server.nodes[i].lastReadingAgeMs
                = asked != m_nodeAskedAtMs.cend() ? now - m_nodeAnsweredAtMs.value(address, *asked)
                                                  : -1;
        }
    }
    s.server.notes << m_permissionNotes;
    s.server.permissions = m_missingPermissions;
    s.server.complete = m_complete;
    s.profile = m_options.profile ? m_options.profile->name : QStringLiteral("autodetected");
    s.discovering = m_discovery && m_discovery->isRunning();
    s.scanned = m_snapshot.scanned;
    s.total = m_snapshot.total;
    s.candidates = m_candidates;
    s.other = m_other;
    s.objects.reserve(m_states.size());
    qsizetype refused = 0; // a profile finds keys by name; key patterns show at the read
    for (const ObjectList::Ptr &state : std::as_const(m_states)) {
        s.objects.append(state); // shared: unchanged objects cost a pointer copy
        refused += state->reading.status == Reading::Status::Error
                   && state->reading.message.contains(QLatin1String("NOPERM"));
    }
    if (refused > 0 && !s.server.permissions.contains(QLatin1String("keys"))) {
        const QString user = m_client->endpoint().user;
        s.server.notes << QStringLiteral("This Redis user may not read %1 of the %2 objects found "
                                         "(NOPERM: its key patterns leave them out); grant them "
                                         "with ACL SETUSER %3 ~<pattern> (%R~<pattern> to read "
                                         "only).")
                              .arg(refused)
                              .arg(s.objects.size())
                              .arg(user.isEmpty() ? QStringLiteral("default") : user);
        s.server.permissions << QStringLiteral("keys");
        s.server.complete = false;
    }
    // One-way data: the history the console charts and the objects it lists
    // first travel in the snapshot, never read across threads.
    for (const QByteArray &key : std::as_const(m_watched)) {
        if (ObjectHistoryPtr h = historyOf(key))
            s.history.insert(key, std::move(h));
    }
    s.attention = attention(s);
    m_snapshot = s;
    m_snapshotFresh = true;
}

ObjectHistoryPtr Monitor::historyOf(const QByteArray &key)
{
    if (const auto it = m_historyCache.constFind(key); it != m_historyCache.cend())
        return *it;
    const int index = m_byPrimaryKey.value(key, -1);
    if (index < 0)
        return nullptr;
    auto h = std::make_shared<ObjectHistory>();
    for (const Figure &f : m_figures.value(m_tracked.at(index).kind)) {
        h->figures.append(f.id);
        h->series.append(history(key, f.id));
    }
    // Bounded: the watched objects (a page's selection each) and their last
    // sample's worth; the cache is dropped with every new sample.
    if (m_historyCache.size() >= 64)
        m_historyCache.clear();
    m_historyCache.insert(key, h);
    return h;
}

std::shared_ptr<const QList<AttentionItem>> Monitor::attention(const Snapshot &s)
{
    // Ranked at most twice a second (a pass over every object) and after
    // every full tick; the Overview redraws at that pace.
    if (m_attention && m_attentionAtMs >= 0 && m_clock.elapsed() - m_attentionAtMs < 500)
        return m_attention;
    m_attentionAtMs = m_clock.elapsed();
    // Now on the server's clock as this process keeps it: while the server
    // does not answer, its last TIME is the last reading's own ("as last read
    // 1 ms ago" of a server frozen for 20 s).
    const qint64 now
        = std::max(s.server.timeMs, QDateTime::currentMSecsSinceEpoch() + s.server.clockOffsetMs);
    QList<AttentionItem> items = rankAttention(s.objects, now);
    for (AttentionItem &item : items)
        item.sparkline = history(item.key, item.figure, AttentionSparkPoints);
    m_attention = std::make_shared<const QList<AttentionItem>>(std::move(items));
    return m_attention;
}

} // namespace gatehouse
