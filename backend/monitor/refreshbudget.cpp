// SPDX-License-Identifier: MIT
#include "refreshbudget.h"

#include <algorithm>

namespace gatehouse {

RefreshBudget::Plan RefreshBudget::plan(const Settings &settings, QList<int> always,
                                        const QList<int> &hot, const QList<int> &idle,
                                        qsizetype &sweepNext, qint64 serverNowMs)
{
    Plan plan;
    QList<int> &read = plan.read;
    read = std::move(always);
    const qint64 interval = std::max(1, settings.intervalMs);
    const double budgetUs = double(interval) * 1000.0 * settings.budgetPercent / 100.0;
    const qsizetype budgetObjects = m_cost.affordable(budgetUs, settings.tripObjects);
    // More hot objects than the budget buys (a thousand queues with stuck
    // jobs): they take turns too, ahead of the idle ones.
    const qsizetype hotRoom = std::max<qsizetype>(1, budgetObjects - read.size());
    qint64 hotBound = interval;
    if (hot.size() <= hotRoom) {
        read.append(hot);
    } else {
        const auto hotFrom = std::lower_bound(hot.cbegin(), hot.cend(), int(m_hotNext));
        qsizetype h = hotFrom - hot.cbegin();
        for (qsizetype k = 0; k < hotRoom; ++k, ++h)
            read.append(hot.at(h % hot.size()));
        m_hotNext = hot.at(h % hot.size());
        hotBound = ((hot.size() + hotRoom - 1) / hotRoom) * interval + interval;
    }
    // What is left of the budget after the hot objects, in objects; at
    // least enough that every idle object is read within sweepMs.
    const qsizetype n = idle.size();
    const qsizetype floorShare
        = (n * interval + settings.sweepMs - 1) / std::max(1, settings.sweepMs);
    const qsizetype share
        = std::clamp<qsizetype>(std::max<qsizetype>(floorShare, budgetObjects - read.size()), 0, n);
    // In turn, from where the last tick stopped.
    const auto from = std::lower_bound(idle.cbegin(), idle.cend(), int(sweepNext));
    qsizetype at = from - idle.cbegin();
    for (qsizetype k = 0; k < share; ++k, ++at)
        read.append(idle.at(at % n));
    if (n > 0 && share > 0)
        sweepNext = idle.at(at % n);
    std::sort(read.begin(), read.end());
    // An idle object waits at most ceil(n / share) ticks for its turn, and
    // its reading arrives within the tick after. The share moves with the
    // measured cost and the hot set: the bound stated is the largest of the
    // last bound's length, so a reading taken under a smaller share is
    // still within it.
    const qint64 bound = std::max(hotBound, n == 0 || share == 0
                                                ? interval * 2
                                                : ((n + share - 1) / share) * interval + interval);
    // Once a whole rotation at the current share has passed since an
    // earlier bound, every object has been read under the current one.
    m_bounds.removeIf(
        [&](const std::pair<qint64, qint64> &e) { return serverNowMs - e.first > bound; });
    m_bounds.append({serverNowMs, bound});
    for (const auto &[since, b] : std::as_const(m_bounds))
        plan.ageBoundMs = std::max(plan.ageBoundMs, b);
    return plan;
}

} // namespace gatehouse
