// SPDX-License-Identifier: MIT
#include "redissubscriber.h"

#include <QThread>

namespace gatehouse {

namespace Internal {

SubscriberCore::SubscriberCore(const RedisEndpoint &endpoint)
    : m_connection(new RedisConnection(endpoint, this))
{
    m_connection->setMode(RedisConnection::Mode::Subscriber);
    connect(m_connection, &RedisConnection::ready, this, &SubscriberCore::onReady);
    connect(m_connection, &RedisConnection::pushReceived, this, &SubscriberCore::onPush);
}

void SubscriberCore::change(const QByteArray &verb, const QList<QByteArray> &names)
{
    if (names.isEmpty())
        return;
    for (const QByteArray &name : names) {
        if (verb == "SUBSCRIBE")
            m_channels.insert(name);
        else if (verb == "UNSUBSCRIBE")
            m_channels.remove(name);
        else if (verb == "PSUBSCRIBE")
            m_patterns.insert(name);
        else
            m_patterns.remove(name);
    }
    m_connection->sendPush(QList<QByteArray>{verb} + names);
}

void SubscriberCore::onReady()
{
    if (!m_channels.isEmpty())
        m_connection->sendPush(QList<QByteArray>{QByteArrayLiteral("SUBSCRIBE")}
                               + m_channels.values());
    if (!m_patterns.isEmpty())
        m_connection->sendPush(QList<QByteArray>{QByteArrayLiteral("PSUBSCRIBE")}
                               + m_patterns.values());
}

void SubscriberCore::onPush(const RedisValue &push)
{
    if (!push.isArray() || push.size() < 3)
        return;
    const QByteArray &kind = push.at(0).bytes();
    if (kind == "message") {
        Q_EMIT message(push.at(1).bytes(), push.at(2).bytes());
    } else if (kind == "pmessage" && push.size() >= 4) {
        Q_EMIT patternMessage(push.at(1).bytes(), push.at(2).bytes(), push.at(3).bytes());
    } else if (kind == "subscribe" || kind == "psubscribe") {
        Q_EMIT subscribed(push.at(1).bytes(), push.at(2).toInteger());
    }
}

} // namespace Internal

RedisSubscriber::RedisSubscriber(const RedisEndpoint &endpoint, QThread *worker, QObject *parent)
    : QObject(parent)
{
    if (!worker) {
        m_ownThread = std::make_unique<QThread>();
        m_ownThread->setObjectName(QStringLiteral("gatehouse-pubsub"));
        m_ownThread->start();
        worker = m_ownThread.get();
    }
    m_core = new Internal::SubscriberCore(endpoint);
    m_core->moveToThread(worker);
    connect(m_core->connection(), &RedisConnection::stateChanged, this,
            [this](RedisConnection::State state, const QString &message) {
                m_state = state;
                m_error = message;
                Q_EMIT stateChanged(state, message);
            });
    connect(m_core, &Internal::SubscriberCore::subscribed, this, &RedisSubscriber::subscribed);
    connect(m_core, &Internal::SubscriberCore::message, this, &RedisSubscriber::message);
    connect(m_core, &Internal::SubscriberCore::patternMessage, this,
            &RedisSubscriber::patternMessage);
}

RedisSubscriber::~RedisSubscriber()
{
    Internal::SubscriberCore *core = m_core;
    QThread *worker = core->thread();
    if (worker == QThread::currentThread() || !worker->isRunning())
        delete core;
    else
        QMetaObject::invokeMethod(
            core, [core] { delete core; }, Qt::BlockingQueuedConnection);
    if (m_ownThread) {
        m_ownThread->quit();
        m_ownThread->wait();
    }
}

void RedisSubscriber::open()
{
    QMetaObject::invokeMethod(
        m_core, [core = m_core] { core->connection()->open(); }, Qt::QueuedConnection);
}

void RedisSubscriber::close()
{
    QMetaObject::invokeMethod(
        m_core, [core = m_core] { core->connection()->close(); }, Qt::QueuedConnection);
}

void RedisSubscriber::change(const QByteArray &verb, const QList<QByteArray> &names)
{
    QMetaObject::invokeMethod(
        m_core, [core = m_core, verb, names] { core->change(verb, names); }, Qt::QueuedConnection);
}

void RedisSubscriber::subscribe(const QList<QByteArray> &channels)
{
    change(QByteArrayLiteral("SUBSCRIBE"), channels);
}

void RedisSubscriber::unsubscribe(const QList<QByteArray> &channels)
{
    change(QByteArrayLiteral("UNSUBSCRIBE"), channels);
}

void RedisSubscriber::psubscribe(const QList<QByteArray> &patterns)
{
    change(QByteArrayLiteral("PSUBSCRIBE"), patterns);
}

void RedisSubscriber::punsubscribe(const QList<QByteArray> &patterns)
{
    change(QByteArrayLiteral("PUNSUBSCRIBE"), patterns);
}

} // namespace gatehouse
