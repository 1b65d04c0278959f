// SPDX-License-Identifier: MIT
// The monitor's snapshots: each object's published state, rebuilt when it
// changed, and snapshotReady coalesced to at most ten a second.
#include "monitor.h"

#include "attention.h"

#include <algorithm>

namespace gatehouse {

void Monitor::restate(int index, std::optional<Reading> reading,
                      std::optional<PatternObject> object)
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
        // Bounded whether or not anyone takes it (takeReplaced()).
        if (!m_replacedPendingAll && m_replacedPending.size() < m_states.size())
            m_replacedPending.append(index);
        else
            m_replacedPendingAll = true;
    } else {
        m_states.append(std::move(o));
        m_replacedPendingAll = true;
    }
}

Monitor::Replaced Monitor::takeReplaced()
{
    Replaced r;
    r.monitor = m_monitorId;
    r.sinceSequence = m_replacedSince;
    r.sequence = m_snapshot.sequence;
    r.all = m_replacedMadeAll;
    r.indices = std::exchange(m_replacedMade, {});
    m_replacedMadeAll = false;
    m_replacedSince = m_snapshot.sequence;
    return r;
}

void Monitor::publish()
{
    m_snapshotFresh = false;
    requestEmit();
}

void Monitor::publishRoutine()
{
    m_snapshotFresh = false;
    requestRoutineEmit();
}

void Monitor::requestEmit()
{
    m_emitPending = true;
    m_emitCarriesChange = true;
    // Only emissions carrying a change count: a routine one just before
    // (a heartbeat, the server's figures) does not delay a write's.
    const qint64 since
        = m_lastChangeEmit.isValid() ? m_lastChangeEmit.elapsed() : PublishIntervalMs;
    const qint64 wait = std::max<qint64>(0, PublishIntervalMs - since);
    if (m_publishTimer.isActive() && m_publishTimer.remainingTime() <= wait)
        return; // the timer's emission will carry this change
    if (wait == 0) {
        m_publishTimer.stop();
        emitSnapshot();
    } else {
        m_publishTimer.start(int(wait)); // sooner than a routine heartbeat's
    }
}

void Monitor::requestRoutineEmit()
{
    m_emitPending = true;
    if (m_publishTimer.isActive())
        return; // an emission already due carries it
    const qint64 since = m_lastEmit.isValid() ? m_lastEmit.elapsed() : RoutineIntervalMs;
    if (since >= RoutineIntervalMs)
        emitSnapshot();
    else
        m_publishTimer.start(int(RoutineIntervalMs - since));
}

void Monitor::emitSnapshot()
{
    if (!m_emitPending)
        return;
    m_emitPending = false;
    if (!m_snapshotFresh)
        refreshSnapshot();
    m_lastEmit.start();
    if (m_emitCarriesChange)
        m_lastChangeEmit.start();
    m_emitCarriesChange = false;
    Q_EMIT snapshotReady(m_snapshot);
}

void Monitor::refreshSnapshot()
{
    Snapshot s;
    s.sequence = ++m_sequence;
    // What this snapshot replaced joins what the ones since the last
    // takeReplaced() did.
    m_replacedMadeAll = m_replacedMadeAll || m_replacedPendingAll
                        || m_replacedMade.size() + m_replacedPending.size() > m_states.size();
    if (m_replacedMadeAll)
        m_replacedMade.clear();
    else
        m_replacedMade.append(m_replacedPending);
    m_replacedPending.clear();
    m_replacedPendingAll = false;
    s.server = m_server;
    s.server.lastReadingAgeMs = replyAgeMs();
    s.server.nodes[0].lastReadingAgeMs = s.server.lastReadingAgeMs;
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
    QList<AttentionItem> items = rankAttention(s.objects, s.server.timeMs);
    for (AttentionItem &item : items)
        item.sparkline = history(item.key, item.figure, AttentionSparkPoints);
    m_attention = std::make_shared<const QList<AttentionItem>>(std::move(items));
    return m_attention;
}

} // namespace gatehouse
