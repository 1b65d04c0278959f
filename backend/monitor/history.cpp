// SPDX-License-Identifier: MIT
#include "history.h"

namespace gatehouse {

void HistoryRing::append(const float *values)
{
    if (m_figures <= 0 || m_capacity <= 0)
        return;
    if (m_count < m_capacity) {
        for (int f = 0; f < m_figures; ++f)
            m_data[qsizetype(m_count) * m_figures + f] = values[f];
        ++m_count;
        return;
    }
    for (int f = 0; f < m_figures; ++f)
        m_data[qsizetype(m_head) * m_figures + f] = values[f];
    m_head = (m_head + 1) % m_capacity;
}

float HistoryRing::at(int figure, int i) const
{
    const int slot = m_count < m_capacity ? i : (m_head + i) % m_capacity;
    return m_data.at(qsizetype(slot) * m_figures + figure);
}

} // namespace gatehouse
