// SPDX-License-Identifier: MIT
#pragma once

#include "redisconnection.h"
#include "redisendpoint.h"
#include "redisscript.h"
#include "redisvalue.h"
#include "requesthandle.h"
#include "topology.h"

#include <QObject>

#include <functional>
#include <memory>

class QThread;

namespace gatehouse {

namespace Internal {
struct RequestState;
struct ClientRelay;
} // namespace Internal

// The thread-safe front of a Redis connection. Callers name commands and keys,
// never sockets: the connection lives on a worker thread, and replies come
// back on the thread this client lives in, to a handler tied to a context
// object. If the context is destroyed first, the handler is dropped.
//
// Requests made in one burst cross to the worker as one event, and replies
// read in one burst come back as one event, so 100,000 pipelined commands
// cost a handful of thread hops, not 100,000.
//
// Behind it is a RedisRouter: one node, or, with the endpoint's
// discoverTopology on and a Cluster behind the address, a pipelined
// connection per master with requests routed by hash slot (MOVED, ASK,
// TRYAGAIN handled there); callers do not change. commandOn() reaches one
// node of the topology by address (SCAN, DBSIZE, INFO are per node).
class RedisRouter;

class RedisClient : public QObject
{
    Q_OBJECT
public:
    using Command = QList<QByteArray>;
    using Handler = std::function<void(const RedisValue &)>;
    using BatchHandler = std::function<void(const QList<RedisValue> &)>;

    // With no worker, the client starts and owns a thread of its own. A given
    // worker must be running and outlive the client. When the worker is the
    // thread the client is used from (the CLI's, the monitor's), requests
    // and replies need no thread hop: commands are written at the end of
    // the event-loop pass, replies delivered on the next one.
    explicit RedisClient(const RedisEndpoint &endpoint, QThread *worker = nullptr,
                         QObject *parent = nullptr);
    ~RedisClient() override;

    // Default on: reconnect with backoff after a loss. Set before open().
    void setAutoReconnect(bool on);
    void open();
    void close();

    // As last reported by the worker (queued, so it may trail by an event).
    RedisConnection::State state() const { return m_state; }
    QString errorString() const { return m_error; }
    RedisConnection::ErrorKind errorKind() const { return m_errorKind; }
    qint64 nextAttemptAtMs() const { return m_nextAttemptAtMs; }
    const RedisEndpoint &endpoint() const { return m_endpoint; }

    RequestHandle command(Command args, const QObject *context, Handler handler);
    // One handler call with every reply, in order; commands are written
    // together and answered in one round trip.
    RequestHandle pipeline(QList<Command> commands, const QObject *context, BatchHandler handler);
    // EVALSHA with a transparent NOSCRIPT fallback (see RedisConnection).
    RequestHandle script(const RedisScript &script, QList<QByteArray> keys, QList<QByteArray> args,
                         const QObject *context, Handler handler);
    // One node's own command (address as in topology()), not routed.
    RequestHandle commandOn(const QString &address, Command args, const QObject *context,
                            Handler handler);

    // The deployment as last reported by the worker: set before ready() is
    // emitted; a standalone server (one node) until then.
    const Topology &topology() const { return m_topology; }

Q_SIGNALS:
    // As RedisConnection::stateChanged: nextAttemptAtMs (local epoch ms) while
    // Reconnecting, -1 otherwise; kind: what message is about.
    void stateChanged(gatehouse::RedisConnection::State state, const QString &message,
                      qint64 nextAttemptAtMs, gatehouse::RedisConnection::ErrorKind kind);
    void ready();
    // The Cluster's topology changed (a refresh, a redirection); before
    // the first ready() for every endpoint that discovers its topology.
    void topologyChanged(const gatehouse::Topology &topology);

private:
    friend struct Internal::ClientRelay;
    void deliver(); // on this client's thread
    std::shared_ptr<Internal::RequestState> newRequest(const QObject *context) const;
    void post(std::function<void(RedisRouter *)> job);

    RedisEndpoint m_endpoint;
    std::unique_ptr<QThread> m_ownThread;
    RedisRouter *m_connection = nullptr; // lives on the worker; deleted there
    std::shared_ptr<Internal::ClientRelay> m_relay;
    RedisConnection::State m_state = RedisConnection::State::Disconnected;
    QString m_error;
    RedisConnection::ErrorKind m_errorKind = RedisConnection::ErrorKind::None;
    qint64 m_nextAttemptAtMs = -1;
    Topology m_topology;
};

} // namespace gatehouse
