// SPDX-License-Identifier: MIT
#include "decodebudget.h"

#include <QString>

namespace gatehouse {

DecodeBudget::DecodeBudget(const DecodeLimits &limits)
    : m_limits(limits)
{
    m_clock.start();
}

bool DecodeBudget::spend()
{
    if (m_exhausted)
        return false;
    ++m_nodes;
    // The clock is read every 256 values: cheap, and often enough to stop
    // within a millisecond or so of the limit.
    if (m_nodes > m_limits.maxNodes) {
        m_exhausted = true;
    } else if ((m_nodes & 0xff) == 0 && m_clock.elapsed() > m_limits.maxMs) {
        m_exhausted = true;
        m_late = true;
    }
    return !m_exhausted;
}

QString DecodeBudget::reason() const
{
    if (!m_exhausted)
        return {};
    if (m_late)
        return QStringLiteral("decoding took longer than %1 ms").arg(m_limits.maxMs);
    return QStringLiteral("the payload holds more than %1 values").arg(m_limits.maxNodes);
}

} // namespace gatehouse
