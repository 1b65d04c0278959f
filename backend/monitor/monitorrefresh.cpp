// SPDX-License-Identifier: MIT
// The monitor's refresh planning and pacing: which objects each tick reads
// (every one, the ones keyspace events or time may have changed plus a
// rolling sweep, or a share of the server's time with budgeted polling),
// what a finished tick cost the server, and which readings turned stale.
#include "monitor.h"

#include <redis/redisclient.h>
#include <redis/redisrouter.h>
#include <redis/redissubscriber.h>
#include <redis/sentinelwatch.h>

#include <algorithm>
#include <numeric>

namespace gatehouse {

void Monitor::tick()
{
    if (m_paused)
        return;
    if (!m_awaited.address.isEmpty()) {
        // Nothing is read until the connection reaches the new master.
        checkAwaitedMaster();
        updateStaleness();
        refreshSnapshot();
        m_pacer.changed();
        Q_EMIT tickOverdue(m_snapshot);
        return;
    }
    if (m_tickInFlight) {
        // The server is slower than the interval, stopped or asleep: skip,
        // never pile up, but say how old the readings are.
        updateStaleness();
        refreshSnapshot();
        m_pacer.changed();
        Q_EMIT tickOverdue(m_snapshot);
        return;
    }
    if (m_subscriber && m_eventsChecked.isValid()
        && m_eventsChecked.elapsed() >= m_options.eventsCheckMs)
        checkEventsConfig();
    m_watch.read();
    // Sentinel: a master and a few replicas, read as often as the sentinels.
    const qint64 nodeInfoMs = m_server.mode == QLatin1String("sentinel") ? SentinelWatch::RefreshMs
                                                                         : RedisRouter::RefreshMs;
    if (m_nodeInfoClock.isValid() && m_nodeInfoClock.elapsed() >= nodeInfoMs)
        readNodeInfo();
    const bool quiet = m_options.adaptive && m_server.eventsLive && !m_fullPassDue && m_subscriber
                       && m_subscriber->state() == RedisConnection::State::Ready;
    if (!quiet && budgeted()) {
        m_fullPassDue = true;
        probe(budgetedSelection(), true, true);
        return;
    }
    if (!quiet) {
        m_fullPassDue = !m_server.eventsLive;
        m_server.budgetPercent = 0;
        m_server.ageBoundMs = -1;
        QList<int> read(m_tracked.size());
        std::iota(read.begin(), read.end(), 0);
        probe(read, true);
        return;
    }
    probe(sweepSelection(), true);
}

QList<int> Monitor::sweepSelection()
{
    // The rolling sweep: every object is read at least every sweepMs, so a
    // lost event (or a write Redis did not announce) heals by itself.
    QList<int> read;
    const qsizetype n = m_tracked.size();
    const qsizetype slice
        = n == 0 ? 0
                 : std::min<qsizetype>(n, (n * m_options.intervalMs + m_options.sweepMs - 1)
                                              / std::max(1, m_options.sweepMs));
    const qsizetype sweepFrom = m_sweepNext;
    m_sweepNext = n == 0 ? 0 : (m_sweepNext + slice) % n;
    const qint64 now = serverNow();
    const int detail = m_detailKey.isEmpty() ? -1 : m_byPrimaryKey.value(m_detailKey, -1);
    for (qsizetype i = 0; i < n; ++i) {
        const Tracked &t = m_tracked.at(i);
        const qsizetype fromSweep = (i - sweepFrom + n) % n;
        // The rest is exact as its reading projected to now (Reading::at).
        if (fromSweep < slice || t.dirty || !t.track.everRead || now >= t.validUntilMs
            || i == detail)
            read.append(int(i));
    }
    return read;
}

bool Monitor::budgeted() const
{
    // The first pass reads every object (and measures what one costs).
    return m_options.adaptive && m_options.budgetPercent > 0 && !m_server.eventsLive
           && m_budget.known();
}

QList<int> Monitor::budgetedSelection()
{
    const int detail = m_detailKey.isEmpty() ? -1 : m_byPrimaryKey.value(m_detailKey, -1);
    QSet<int> watched;
    for (const QByteArray &key : std::as_const(m_watched)) {
        if (const auto it = m_byPrimaryKey.constFind(key); it != m_byPrimaryKey.cend())
            watched.insert(*it);
    }
    const qint64 now = serverNow();
    QList<int> always, hot, idle;
    for (qsizetype i = 0; i < m_tracked.size(); ++i) {
        const Tracked &t = m_tracked.at(i);
        if (!t.track.everRead || t.dirty || i == detail || watched.contains(int(i)))
            always.append(int(i));
        else if (now < t.hotUntilMs || now >= t.validUntilMs)
            hot.append(int(i));
        else
            idle.append(int(i));
    }
    const RefreshBudget::Settings settings{
        m_options.intervalMs, m_options.budgetPercent, m_options.sweepMs,
        std::min<qsizetype>(PacedBatchObjects, std::max(1, m_options.batchObjects))};
    RefreshBudget::Plan plan
        = m_budget.plan(settings, std::move(always), hot, idle, m_sweepNext, now);
    m_server.budgetPercent = m_options.budgetPercent;
    m_server.ageBoundMs = plan.ageBoundMs;
    return std::move(plan.read);
}

void Monitor::finishRun(const ProbeRun &run)
{
    if (--m_runsInFlight == 0 && m_dismissGone)
        dismissGone(); // demoted objects leave too
    else if (m_runsInFlight == 0 && !m_demote.isEmpty())
        dropDemoted();
    // A run sent before a new world began proves nothing about this one.
    const bool failed = run.failed || run.world != m_server.world.generation;
    if (run.fullTick && !failed) {
        // Objects not re-read this tick are exact as projected (events live).
        const qint64 now = m_clock.elapsed();
        m_lastReplyAtMs = now;
        for (Tracked &t : m_tracked) {
            if (t.track.everRead) {
                t.freshAtMs = now;
                t.readAtServerMs = m_server.timeMs;
            }
        }
        // Objects never read keep the time they were found: they turn stale
        // if no reading comes within two ticks.
    }
    const bool staleChanged = run.fullTick && updateStaleness();
    if (run.fullTick) {
        m_tickInFlight = false;
        m_lastTickUs = m_tickClock.nsecsElapsed() / 1000;
        m_lastTickMs = m_lastTickUs / 1000;
        measureCost(run, failed);
        m_server.objectsRead = int(run.indices.size());
        m_server.sharePercent = run.paced ? m_lastSharePercent : -1;
    }
    if (run.fullTick && !failed) // history holds readings, not gaps
        sampleHistory();
    if (run.fullTick) {
        refreshSnapshot(); // the tick's own, for tickFinished at once
        // With keyspace events live a tick only re-reads what time alone may
        // have changed (and a sweep): routine. It goes out with the next
        // change a write brings, or as a heartbeat once a second, so it never
        // takes the publication slot a write would need next.
        if (m_server.eventsLive && m_options.adaptive && !staleChanged && !failed
            && !run.carriesWrites)
            m_pacer.routine();
        else
            m_pacer.changed();
    } else {
        publish();
    }
    if (run.fullTick)
        m_trim.check([this] {
            return std::all_of(m_tracked.cbegin(), m_tracked.cend(),
                               [](const Tracked &t) { return t.track.everRead; });
        });
    if (run.fullTick && !failed)
        noteVanished();
    if (run.fullTick)
        Q_EMIT tickFinished(m_snapshot);
    checkWorldWhole();
    if (run.fullTick && m_tickAgain && m_started) {
        m_tickAgain = false; // a new world began during this tick: read it now
        QTimer::singleShot(0, &m_context, [this] { tick(); });
    }
}

void Monitor::measureCost(const ProbeRun &run, bool failed)
{
    // What the probes cost the server: a paced tick's round trips (one
    // batch in flight), or an unpaced tick's wall time (the pipe kept full).
    // Upper bounds, so the budget errs on the quiet side. An unpaced pass
    // (the first, the one after a restart or a re-scan) measures how fast a
    // full pipe drains, not what a paced batch costs: it seeds the estimate,
    // never moves a paced one (ProbeCost).
    double spentUs = -1;
    if (run.paced) {
        spentUs = double(run.busyNs) / 1000.0;
        if (!failed)
            m_budget.cost().addTick(run.trips);
    } else if (run.indices.size() >= MinBudgetedObjects) {
        // A tick of a few objects is mostly its round trips: a handful
        // of objects cost the server nothing worth budgeting.
        spentUs = double(m_tickClock.nsecsElapsed()) / 1000.0;
        if (!failed)
            m_budget.cost().seed(spentUs / double(run.indices.size()));
    }
    if (!failed && spentUs >= 0)
        m_lastSharePercent = spentUs / (10.0 * m_options.intervalMs);
}

bool Monitor::updateStaleness()
{
    // Two ticks without a reply: the tick that should have refreshed it and
    // the one after. 1.5 intervals, since a reading arrives some time after
    // its tick started.
    const qint64 limit = m_options.intervalMs * 3 / 2;
    const qint64 now = m_clock.elapsed();
    bool changed = false;
    for (qsizetype i = 0; i < m_tracked.size(); ++i) {
        Tracked &t = m_tracked[i];
        const bool stale = now - t.freshAtMs > limit;
        if (stale == t.stale)
            continue;
        t.stale = stale;
        restate(int(i));
        changed = true;
    }
    return changed;
}

} // namespace gatehouse
