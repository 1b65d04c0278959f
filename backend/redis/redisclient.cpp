// SPDX-License-Identifier: MIT
#include "redisclient.h"

#include "redisrouter.h"

#include <QMutex>
#include <QPointer>
#include <QThread>

#include <atomic>

namespace gatehouse {

namespace Internal {

struct RequestState
{
    QPointer<const QObject> context; // read only on the client's thread
    RedisClient::Handler handler;
    RedisClient::BatchHandler batchHandler;
    std::atomic<bool> cancelled{false};
    std::atomic<bool> finished{false};
};

struct Completion
{
    std::shared_ptr<RequestState> state;
    QList<RedisValue> values;
};

// Shared by a client (its thread) and its connection (the worker thread).
struct ClientRelay
{
    QMutex mutex;
    RedisClient *receiver = nullptr; // guarded by mutex; null once the client is gone
    QList<std::function<void(RedisRouter *)>> inbox; // guarded by mutex
    QList<Completion> outbox;                        // guarded by mutex
    bool outboxPosted = false;                       // guarded by mutex
    // Same-thread mode only, touched on that one thread:
    bool flushPosted = false; // a flush is queued for the end of this pass
    int delivering = 0;       // handlers are running (nested event loops count up)
    bool flushDue = false;    // commands sent by handlers, written when they return

    // Worker thread: hand a finished request back to the client's thread.
    void complete(std::shared_ptr<RequestState> state, QList<RedisValue> values)
    {
        QMutexLocker lock(&mutex);
        if (!receiver)
            return;
        outbox.append({std::move(state), std::move(values)});
        if (!outboxPosted) {
            outboxPosted = true;
            // Posted while holding the mutex: the client's destructor takes it
            // before it goes, so the receiver is alive here, and Qt drops the
            // event if the receiver is deleted before it runs.
            RedisClient *r = receiver;
            QMetaObject::invokeMethod(
                r, [r] { r->deliver(); }, Qt::QueuedConnection);
        }
    }
};

} // namespace Internal

using Internal::RequestState;

void RequestHandle::cancel()
{
    if (auto s = m_state.lock())
        s->cancelled = true;
}

bool RequestHandle::isActive() const
{
    const auto s = m_state.lock();
    return s && !s->cancelled && !s->finished;
}

RedisClient::RedisClient(const RedisEndpoint &endpoint, QThread *worker, QObject *parent)
    : QObject(parent)
    , m_endpoint(endpoint)
    , m_relay(std::make_shared<Internal::ClientRelay>())
{
    m_relay->receiver = this;
    if (!worker) {
        m_ownThread = std::make_unique<QThread>();
        m_ownThread->setObjectName(QStringLiteral("gatehouse-redis"));
        m_ownThread->start();
        worker = m_ownThread.get();
    }
    m_topology = Topology::standalone(endpoint);
    qRegisterMetaType<gatehouse::Topology>();
    m_connection = new RedisRouter(endpoint);
    m_connection->moveToThread(worker);
    // Queued even on one thread: a slot that sends a command never runs
    // inside the connection's own code.
    connect(
        m_connection, &RedisRouter::stateChanged, this,
        [this](RedisConnection::State state, const QString &message, qint64 nextAttemptAtMs,
               RedisConnection::ErrorKind kind) {
            m_state = state;
            m_error = message;
            m_errorKind = kind;
            m_nextAttemptAtMs = nextAttemptAtMs;
            Q_EMIT stateChanged(state, message, nextAttemptAtMs, kind);
        },
        Qt::QueuedConnection);
    connect(
        m_connection, &RedisRouter::topologyChanged, this,
        [this](const Topology &topology) {
            m_topology = topology;
            Q_EMIT topologyChanged(topology);
        },
        Qt::QueuedConnection);
    connect(m_connection, &RedisRouter::ready, this, &RedisClient::ready, Qt::QueuedConnection);
}

RedisClient::~RedisClient()
{
    {
        QMutexLocker lock(&m_relay->mutex);
        m_relay->receiver = nullptr;
    }
    RedisRouter *connection = m_connection;
    QThread *worker = connection->thread();
    if (worker == QThread::currentThread() || !worker->isRunning()) {
        delete connection;
    } else {
        // Deleted on its own thread; pending handlers are failed there and
        // dropped by the relay, which no longer has a receiver.
        QMetaObject::invokeMethod(
            connection, [connection] { delete connection; }, Qt::BlockingQueuedConnection);
    }
    if (m_ownThread) {
        m_ownThread->quit();
        m_ownThread->wait();
    }
}

void RedisClient::post(std::function<void(RedisRouter *)> job)
{
    RedisRouter *connection = m_connection;
    if (connection->thread() == QThread::currentThread()) {
        // Same-thread mode: no hop. The command is buffered now and written
        // with the others of this event-loop pass.
        {
            QMutexLocker lock(&m_relay->mutex);
            if (!m_relay->inbox.isEmpty()) { // behind jobs from other threads
                m_relay->inbox.append(std::move(job));
                return;
            }
        }
        job(connection);
        if (m_relay->delivering > 0) {
            // Sent from a reply handler: written when the handlers return,
            // without another trip through the event loop.
            m_relay->flushDue = true;
            return;
        }
        if (!m_relay->flushPosted) {
            m_relay->flushPosted = true;
            std::weak_ptr<Internal::ClientRelay> weakRelay = m_relay;
            QMetaObject::invokeMethod(
                connection,
                [connection, weakRelay] {
                    if (const auto relay = weakRelay.lock()) {
                        relay->flushPosted = false;
                        connection->flush();
                    }
                },
                Qt::QueuedConnection);
        }
        return;
    }
    bool first = false;
    {
        QMutexLocker lock(&m_relay->mutex);
        first = m_relay->inbox.isEmpty();
        m_relay->inbox.append(std::move(job));
    }
    if (!first)
        return; // the drain already posted will take this job too
    std::weak_ptr<Internal::ClientRelay> weakRelay = m_relay;
    QMetaObject::invokeMethod(
        connection,
        [connection, weakRelay] {
            const auto relay = weakRelay.lock();
            if (!relay)
                return;
            QList<std::function<void(RedisRouter *)>> jobs;
            {
                QMutexLocker lock(&relay->mutex);
                jobs.swap(relay->inbox);
            }
            for (auto &job : jobs)
                job(connection);
            connection->flush();
        },
        Qt::QueuedConnection);
}

void RedisClient::setAutoReconnect(bool on)
{
    post([on](RedisRouter *c) { c->setAutoReconnect(on); });
}

void RedisClient::open()
{
    post([](RedisRouter *c) { c->open(); });
}

void RedisClient::close()
{
    post([](RedisRouter *c) { c->close(); });
}

std::shared_ptr<RequestState> RedisClient::newRequest(const QObject *context) const
{
    // Handlers run on this client's thread, where the context must live for
    // the QPointer check to be race-free.
    Q_ASSERT(context && context->thread() == thread());
    auto state = std::make_shared<RequestState>();
    state->context = context;
    return state;
}

RequestHandle RedisClient::command(Command args, const QObject *context, Handler handler)
{
    auto state = newRequest(context);
    state->handler = std::move(handler);
    std::weak_ptr<Internal::ClientRelay> weakRelay = m_relay;
    post([args = std::move(args), state, weakRelay](RedisRouter *c) {
        if (state->cancelled)
            return;
        c->send(args, [state, weakRelay](const RedisValue &reply) {
            if (const auto relay = weakRelay.lock())
                relay->complete(state, {reply});
        });
    });
    return RequestHandle(state);
}

RequestHandle RedisClient::pipeline(QList<Command> commands, const QObject *context,
                                    BatchHandler handler)
{
    auto state = newRequest(context);
    state->batchHandler = std::move(handler);
    std::weak_ptr<Internal::ClientRelay> weakRelay = m_relay;
    post([commands = std::move(commands), state, weakRelay](RedisRouter *c) {
        if (state->cancelled)
            return;
        c->sendBatch(commands, [state, weakRelay](QList<RedisValue> replies) {
            if (const auto relay = weakRelay.lock())
                relay->complete(state, std::move(replies));
        });
    });
    return RequestHandle(state);
}

RequestHandle RedisClient::script(const RedisScript &script, QList<QByteArray> keys,
                                  QList<QByteArray> args, const QObject *context, Handler handler)
{
    Q_ASSERT(script.isValid());
    auto state = newRequest(context);
    state->handler = std::move(handler);
    std::weak_ptr<Internal::ClientRelay> weakRelay = m_relay;
    post(
        [script, keys = std::move(keys), args = std::move(args), state, weakRelay](RedisRouter *c) {
            if (state->cancelled)
                return;
            c->sendScript(script, keys, args, [state, weakRelay](const RedisValue &reply) {
                if (const auto relay = weakRelay.lock())
                    relay->complete(state, {reply});
            });
        });
    return RequestHandle(state);
}

RequestHandle RedisClient::commandOn(const QString &address, Command args, const QObject *context,
                                     Handler handler)
{
    auto state = newRequest(context);
    state->handler = std::move(handler);
    std::weak_ptr<Internal::ClientRelay> weakRelay = m_relay;
    post([address, args = std::move(args), state, weakRelay](RedisRouter *c) {
        if (state->cancelled)
            return;
        c->sendTo(address, args, [state, weakRelay](const RedisValue &reply) {
            if (const auto relay = weakRelay.lock())
                relay->complete(state, {reply});
        });
    });
    return RequestHandle(state);
}

void RedisClient::deliver()
{
    // A handler may delete this client: the relay and connection pointer are
    // held locally, and the relay's receiver says whether the client lives.
    const std::shared_ptr<Internal::ClientRelay> relay = m_relay;
    RedisRouter *connection = m_connection;
    const bool sameThread = connection->thread() == QThread::currentThread();
    QList<Internal::Completion> done;
    {
        QMutexLocker lock(&relay->mutex);
        done.swap(relay->outbox);
        relay->outboxPosted = false;
    }
    if (sameThread)
        ++relay->delivering;
    // The receiver is only cleared on this thread (by the destructor), so it
    // reads without the lock here.
    for (const Internal::Completion &c : done) {
        RequestState &s = *c.state;
        s.finished = true;
        if (s.cancelled || !s.context || !relay->receiver)
            continue; // dropped, or a handler deleted the client
        if (s.batchHandler)
            s.batchHandler(c.values);
        else if (s.handler)
            s.handler(c.values.isEmpty() ? RedisValue() : c.values.first());
    }
    if (!sameThread || --relay->delivering > 0 || !relay->flushDue)
        return;
    relay->flushDue = false;
    if (relay->receiver)
        connection->flush();
}

} // namespace gatehouse
