// SPDX-License-Identifier: MIT
#include "probecost.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace gatehouse {

namespace {

double medianOf(QList<double> values)
{
    const auto mid = values.begin() + values.size() / 2;
    std::nth_element(values.begin(), mid, values.end());
    return *mid;
}

} // namespace

void ProbeCost::seed(double usPerObject)
{
    if (m_paced || usPerObject <= 0)
        return;
    m_perObjectUs = m_perObjectUs <= 0 ? usPerObject : 0.7 * m_perObjectUs + 0.3 * usPerObject;
}

void ProbeCost::addTick(const QList<std::pair<qsizetype, double>> &trips)
{
    QList<std::pair<qsizetype, double>> kept;
    for (const auto &trip : trips) {
        if (trip.first > 0 && trip.second > 0)
            kept.append(trip);
    }
    if (kept.isEmpty())
        return;
    m_ticks.append(kept);
    qsizetype count = 0;
    for (const auto &tick : std::as_const(m_ticks))
        count += tick.size();
    while (m_ticks.size() > TicksKept
           || (m_ticks.size() > 1 && count - m_ticks.first().size() >= TripsKept)) {
        count -= m_ticks.first().size();
        m_ticks.removeFirst();
    }
    m_paced = true;
    fit();
}

void ProbeCost::fit()
{
    QList<std::pair<qsizetype, double>> trips;
    for (const auto &tick : std::as_const(m_ticks))
        trips.append(tick);
    QList<double> slopes;
    for (qsizetype i = 0; i < trips.size(); ++i) {
        for (qsizetype j = i + 1; j < trips.size(); ++j) {
            const qsizetype dn = trips.at(j).first - trips.at(i).first;
            if (std::abs(dn) >= MinSpread)
                slopes.append((trips.at(j).second - trips.at(i).second) / double(dn));
        }
    }
    if (!slopes.isEmpty()) {
        const double slope = medianOf(slopes);
        if (slope > 0) {
            QList<double> fixed;
            fixed.reserve(trips.size());
            for (const auto &[n, us] : std::as_const(trips))
                fixed.append(us - slope * double(n));
            // Never more than the quickest round trip, never below nothing.
            double quickest = trips.first().second;
            for (const auto &trip : std::as_const(trips))
                quickest = std::min(quickest, trip.second);
            m_perTripUs = std::clamp(medianOf(fixed), 0.0, quickest);
        }
    }
    // The per-object part: what the round trips leave after the fixed part
    // (all of them, while the fixed part is not known).
    QList<double> rest, whole;
    rest.reserve(trips.size());
    whole.reserve(trips.size());
    for (const auto &[n, us] : std::as_const(trips)) {
        rest.append(std::max(us - m_perTripUs, 0.0) / double(n));
        whole.append(us / double(n));
    }
    const double perObject = medianOf(rest);
    m_perObjectUs = perObject > 0 ? perObject : medianOf(whole);
}

qsizetype ProbeCost::affordable(double budgetUs, qsizetype tripObjects) const
{
    if (!known() || budgetUs <= 0)
        return 0;
    tripObjects = std::max<qsizetype>(1, tripObjects);
    // n objects cost ceil(n / tripObjects) round trips and n objects: as
    // many full round trips as fit, then what is left buys one more.
    const double fullTrip = m_perTripUs + double(tripObjects) * m_perObjectUs;
    const double full = std::floor(budgetUs / fullTrip);
    if (full >= double(std::numeric_limits<int>::max()))
        return std::numeric_limits<int>::max();
    const double left = budgetUs - full * fullTrip - m_perTripUs;
    const double extra
        = left > 0 ? std::min(double(tripObjects - 1), std::floor(left / m_perObjectUs)) : 0.0;
    return qsizetype(full) * tripObjects + qsizetype(extra);
}

} // namespace gatehouse
