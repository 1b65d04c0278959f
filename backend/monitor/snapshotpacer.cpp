// SPDX-License-Identifier: MIT
#include "snapshotpacer.h"

#include <QTimer>

#include <algorithm>

namespace gatehouse {

SnapshotPacer::SnapshotPacer(QObject *context, int changeIntervalMs, int routineIntervalMs,
                             std::function<void()> send)
    : m_changeIntervalMs(changeIntervalMs)
    , m_routineIntervalMs(routineIntervalMs)
    , m_send(std::move(send))
    , m_timer(new QTimer(context))
{
    m_timer->setSingleShot(true);
    QObject::connect(m_timer, &QTimer::timeout, context, [this] { fire(); });
}

void SnapshotPacer::changed()
{
    m_pending = true;
    m_carriesChange = true;
    const qint64 since
        = m_lastChangeEmit.isValid() ? m_lastChangeEmit.elapsed() : m_changeIntervalMs;
    const qint64 wait = std::max<qint64>(0, m_changeIntervalMs - since);
    if (m_timer->isActive() && m_timer->remainingTime() <= wait)
        return; // the timer's emission will carry this change
    if (wait == 0) {
        m_timer->stop();
        fire();
    } else {
        m_timer->start(int(wait)); // sooner than a routine emission's
    }
}

void SnapshotPacer::routine()
{
    m_pending = true;
    if (m_timer->isActive())
        return; // an emission already due carries it
    const qint64 since = m_lastEmit.isValid() ? m_lastEmit.elapsed() : m_routineIntervalMs;
    if (since >= m_routineIntervalMs)
        fire();
    else
        m_timer->start(int(m_routineIntervalMs - since));
}

void SnapshotPacer::fire()
{
    if (!m_pending)
        return;
    m_pending = false;
    m_lastEmit.start();
    if (m_carriesChange)
        m_lastChangeEmit.start();
    m_carriesChange = false;
    m_send();
}

} // namespace gatehouse
