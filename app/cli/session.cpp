// SPDX-License-Identifier: MIT
#include "session.h"

#include <QThread>

namespace gatehouse::cli {

Session::Session(const RedisEndpoint &endpoint, QObject *parent)
    : Command(parent)
    , m_client(endpoint, QThread::currentThread()) // one thread: no hop per round trip
    , m_watch(&m_client)
{
    connect(&m_watch, &ConnectionWatch::firstReady, this, [this] { onReady(); });
    connect(&m_watch, &ConnectionWatch::lost, this,
            [this](const QString &why) { onConnectionLost(why); });
    connect(&m_watch, &ConnectionWatch::back, this, [this](qint64 gapMs) { onReconnected(gapMs); });
    connect(&m_watch, &ConnectionWatch::closed, this, [this](const QString &why) { fail(why); });
}

void Session::start()
{
    m_client.open();
}

} // namespace gatehouse::cli
