// SPDX-License-Identifier: MIT
// The monitor's memory: after a large pass, what the replaced states held
// goes back to the OS once nobody holds them (Monitor::armTrim).
#include "monitor.h"

#include <algorithm>

#ifdef __GLIBC__
#include <malloc.h>
#endif

namespace gatehouse {

void Monitor::armTrimAfterDiscovery()
{
    // Discovery's garbage and the unread states go back once the objects
    // were read (armTrim); a small keyspace's is not worth a trim.
    if (m_tracked.size() < TrimAfterObjects)
        return;
    qsizetype unread = m_tracked.size() - 1;
    while (unread >= 0 && m_tracked.at(unread).track.everRead)
        --unread;
    armTrim(unread >= 0 ? m_states.at(unread) : ObjectList::Ptr());
    // The behaviour watch's ticks re-read every object: each may
    // trim what the one before it replaced.
    m_trimFreeTicks = m_options.behaviourTicks + 2;
}

void Monitor::armTrimForPass(const QList<int> &indices)
{
    // A large pass replaces as many states. Refreshing adaptively (the
    // ticks after it read few: keyspace events, budgeted polling, once
    // the behaviour watch is over), the memory the old ones held would
    // stay idle in the allocator: armTrim. Polling every object every
    // tick, the next pass reuses it within a tick.
    const bool fewAfter
        = m_options.adaptive && (m_server.eventsLive || m_options.budgetPercent > 0);
    const bool mayTrim
        = m_trimFreeTicks > 0 || !m_lastTrim.isValid() || m_lastTrim.elapsed() >= TrimTickEveryMs;
    if (m_trimFreeTicks > 0)
        --m_trimFreeTicks;
    if (fewAfter && mayTrim && indices.size() >= TrimAfterObjects)
        armTrim(m_states.at(indices.first()));
}

void Monitor::armTrim(const ObjectList::Ptr &replaced)
{
    m_trimPending = true;
    m_trimWatch = replaced;
}

void Monitor::trimWhenReleased(int checksLeft)
{
    if (!m_trimPending)
        return;
    if (std::any_of(m_tracked.cbegin(), m_tracked.cend(),
                    [](const Tracked &t) { return !t.track.everRead; }))
        return; // the next full tick reads them
    // A view may keep an older state for good (a hidden page's rows): what
    // everyone else let go goes back all the same once the checks are over.
    if (m_trimWatch.expired() || checksLeft <= 0) {
        m_trimPending = false;
        m_trimWatch.reset();
#ifdef __GLIBC__
        malloc_trim(0);
#endif
        m_lastTrim.start();
        return;
    }
    // The console still shows the snapshot before: it swaps it within a
    // few ms, or by the next full tick.
    if (m_trimCheckScheduled)
        return;
    m_trimCheckScheduled = true;
    QTimer::singleShot(TrimCheckMs, &m_context, [this, checksLeft] {
        m_trimCheckScheduled = false;
        trimWhenReleased(checksLeft - 1);
    });
}

} // namespace gatehouse
