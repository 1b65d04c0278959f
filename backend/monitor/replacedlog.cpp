// SPDX-License-Identifier: MIT
#include "replacedlog.h"

#include <utility>

namespace gatehouse {

void ReplacedLog::replaced(int index, qsizetype objects)
{
    if (!m_pendingAll && m_pending.size() < objects && index < objects)
        m_pending.append(index);
    else
        m_pendingAll = true;
}

void ReplacedLog::made(qsizetype objects)
{
    m_madeAll = m_madeAll || m_pendingAll || m_made.size() + m_pending.size() > objects;
    if (m_madeAll)
        m_made.clear();
    else
        m_made.append(m_pending);
    m_pending.clear();
    m_pendingAll = false;
}

ReplacedLog::Taken ReplacedLog::take(quint64 monitor, quint64 sequence)
{
    Taken t;
    t.monitor = monitor;
    t.sinceSequence = m_since;
    t.sequence = sequence;
    t.all = m_madeAll;
    t.indices = std::exchange(m_made, {});
    m_madeAll = false;
    m_since = sequence;
    return t;
}

} // namespace gatehouse
