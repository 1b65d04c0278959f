// SPDX-License-Identifier: MIT
#pragma once

#include "redisconnection.h"
#include "redisendpoint.h"

#include <QObject>
#include <QSet>

#include <memory>

class QThread;

namespace gatehouse {

namespace Internal {
class SubscriberCore;
}

// A connection in pub/sub mode, separate from command connections (a
// subscribed RESP2 connection can run nothing else). It keeps the set of
// channels and patterns and subscribes to them again after every reconnect.
// Messages arrive as signals on the thread this object lives in.
class RedisSubscriber : public QObject
{
    Q_OBJECT
public:
    explicit RedisSubscriber(const RedisEndpoint &endpoint, QThread *worker = nullptr,
                             QObject *parent = nullptr);
    ~RedisSubscriber() override;

    void open();
    void close();

    void subscribe(const QList<QByteArray> &channels);
    void unsubscribe(const QList<QByteArray> &channels);
    void psubscribe(const QList<QByteArray> &patterns);
    void punsubscribe(const QList<QByteArray> &patterns);

    RedisConnection::State state() const { return m_state; }
    QString errorString() const { return m_error; }

Q_SIGNALS:
    void stateChanged(gatehouse::RedisConnection::State state, const QString &message);
    // The server confirmed a (p)subscription; count is the connection's total.
    void subscribed(const QByteArray &channelOrPattern, qint64 count);
    void message(const QByteArray &channel, const QByteArray &payload);
    void patternMessage(const QByteArray &pattern, const QByteArray &channel,
                        const QByteArray &payload);

private:
    void change(const QByteArray &verb, const QList<QByteArray> &names);

    std::unique_ptr<QThread> m_ownThread;
    Internal::SubscriberCore *m_core = nullptr; // lives on the worker; deleted there
    RedisConnection::State m_state = RedisConnection::State::Disconnected;
    QString m_error;
};

namespace Internal {

// Worker-thread side of RedisSubscriber.
class SubscriberCore : public QObject
{
    Q_OBJECT
public:
    explicit SubscriberCore(const RedisEndpoint &endpoint);

    RedisConnection *connection() const { return m_connection; }
    void change(const QByteArray &verb, const QList<QByteArray> &names);

Q_SIGNALS:
    void subscribed(const QByteArray &channelOrPattern, qint64 count);
    void message(const QByteArray &channel, const QByteArray &payload);
    void patternMessage(const QByteArray &pattern, const QByteArray &channel,
                        const QByteArray &payload);

private:
    void onReady();
    void onPush(const RedisValue &push);

    RedisConnection *m_connection;
    QSet<QByteArray> m_channels;
    QSet<QByteArray> m_patterns;
};

} // namespace Internal
} // namespace gatehouse
