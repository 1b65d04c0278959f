// SPDX-License-Identifier: MIT
#include "memorytrim.h"

#include <QTimer>

#ifdef __GLIBC__
#include <malloc.h>
#endif

namespace gatehouse {

MemoryTrim::MemoryTrim(QObject *context)
    : m_context(context)
{}

void MemoryTrim::armAfterDiscovery(qsizetype objects, std::weak_ptr<const void> unread,
                                   int freeTicks)
{
    // A small keyspace's garbage is not worth a trim.
    if (objects < AfterObjects)
        return;
    arm(std::move(unread));
    m_freeTicks = freeTicks;
}

void MemoryTrim::armForPass(qsizetype objects, bool fewAfter, std::weak_ptr<const void> replaced)
{
    // Polling every object every tick, the next pass reuses the memory
    // within a tick: no trim.
    const bool mayTrim
        = m_freeTicks > 0 || !m_lastTrim.isValid() || m_lastTrim.elapsed() >= TickEveryMs;
    if (m_freeTicks > 0)
        --m_freeTicks;
    if (fewAfter && mayTrim && objects >= AfterObjects)
        arm(std::move(replaced));
}

void MemoryTrim::arm(std::weak_ptr<const void> replaced)
{
    m_pending = true;
    m_watch = std::move(replaced);
}

void MemoryTrim::checkNow(std::function<bool()> allRead, int checksLeft)
{
    if (!m_pending)
        return;
    if (!allRead())
        return; // the next full tick reads them
    if (m_watch.expired() || checksLeft <= 0) {
        m_pending = false;
        m_watch.reset();
#ifdef __GLIBC__
        malloc_trim(0);
#endif
        ++m_trims;
        m_lastTrim.start();
        return;
    }
    // The console still shows the snapshot before: it swaps it within a
    // few ms, or by the next full tick.
    if (m_checkScheduled)
        return;
    m_checkScheduled = true;
    QTimer::singleShot(CheckMs, m_context, [this, allRead = std::move(allRead), checksLeft] {
        m_checkScheduled = false;
        checkNow(allRead, checksLeft - 1);
    });
}

} // namespace gatehouse
