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
                if (state == RedisConnection::State::Failed
                    || (m_started && state == RedisConnection::State::Disconnected))
                    fail(message.isEmpty() ? QStringLiteral("The connection to %1 was closed.")
                                                 .arg(echoed(m_client.endpoint().address()))
                                           : message);
            });
    connect(&m_client, &RedisClient::ready, this, [this] {
        if (m_started)
            return;
        m_started = true;
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
