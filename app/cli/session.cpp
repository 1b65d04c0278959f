// SPDX-License-Identifier: MIT
#include "session.h"

#include <redis/userinput.h>

#include <QThread>

#include <QTextStream>

namespace gatehouse::cli {

Session::Session(const RedisEndpoint &endpoint, QObject *parent)
    : QObject(parent)
    , m_client(endpoint, QThread::currentThread()) // one thread: no hop per round trip
{
    m_client.setAutoReconnect(false);
    connect(&m_client, &RedisClient::stateChanged, this,
            [this](RedisConnection::State state, const QString &message) {
                if (m_started && m_reconnecting && state == RedisConnection::State::Reconnecting) {
                    if (m_lostFor.isValid())
                        return;
                    m_lostFor.start();
                    // "... Next attempt in 87 ms." is for the status bar, not a log line.
                    QString why = message;
                    const qsizetype at = why.lastIndexOf(QLatin1String(" Next attempt in "));
                    if (at > 0)
                        why.truncate(at);
                    onConnectionLost(why);
                    return;
                }
                if (state != RedisConnection::State::Failed
                    && !(m_started && state == RedisConnection::State::Disconnected))
                    return;
                const QString why = message.isEmpty()
                                        ? QStringLiteral("The connection to %1 was closed.")
                                              .arg(echoed(m_client.endpoint().address()))
                                        : message;
                // Queued: the requests the loss failed are answered first, so
                // an action in flight says "may or may not have run" itself.
                QMetaObject::invokeMethod(
                    this, [this, why] { fail(why); }, Qt::QueuedConnection);
            });
    connect(&m_client, &RedisClient::ready, this, [this] {
        if (m_started) {
            if (m_lostFor.isValid()) {
                const qint64 gap = m_lostFor.elapsed();
                m_lostFor.invalidate();
                onReconnected(gap);
            }
            return;
        }
        m_started = true;
        if (m_reconnecting)
            m_client.setAutoReconnect(true);
        onReady();
    });
}

void Session::start()
{
    m_client.open();
}

void Session::fail(const QString &message, int exitCode)
{
    if (m_done)
        return;
    m_done = true;
    QTextStream(stderr) << "gatehouse-cli: " << message << Qt::endl;
    Q_EMIT finished(exitCode);
}

void Session::done(int exitCode)
{
    if (m_done)
        return;
    m_done = true;
    Q_EMIT finished(exitCode);
}

} // namespace gatehouse::cli
