// SPDX-License-Identifier: MIT
#include "tcpproxy.h"

#include <QElapsedTimer>
#include <QHostAddress>
#include <QPointer>
#include <QTcpServer>
#include <QTcpSocket>
#include <QThread>
#include <QTimer>

#include <algorithm>
#include <list>

namespace gatehouse::test {

namespace Internal {

// Lives on the proxy's thread; everything below runs there.
class ProxyWorker : public QObject
{
public:
    explicit ProxyWorker(quint16 target)
        : m_target(target)
    {
        m_clock.start();
    }

    quint16 listen()
    {
        m_server = new QTcpServer(this);
        if (!m_server->listen(QHostAddress::LocalHost, 0))
            return 0;
        connect(m_server, &QTcpServer::newConnection, this, &ProxyWorker::accept);
        return m_server->serverPort();
    }

    void setDelay(int ms) { m_delayMs = ms; }
    void setRefusing(bool on) { m_refusing = on; }
    void setCutMarker(const QByteArray &marker, const QByteArray &unless)
    {
        m_cutMarker = marker;
        m_cutUnless = unless;
    }
    void setStallMarker(const QByteArray &marker) { m_stallMarker = marker; }
    void setStalled(bool on)
    {
        m_stalled = on;
        if (on)
            return;
        for (Pipe &p : m_pipes) {
            send(p, false, {});
            send(p, true, {});
        }
    }
    void cutAll()
    {
        std::list<Pipe> pipes;
        pipes.swap(m_pipes);
        for (Pipe &p : pipes) {
            p.client->disconnect(this);
            p.upstream->disconnect(this);
            p.client->abort();
            p.upstream->abort();
            p.client->deleteLater();
            p.upstream->deleteLater();
        }
        m_count = 0;
    }
    int count() const { return m_count; }

private:
    struct Pipe
    {
        QTcpSocket *client = nullptr;
        QTcpSocket *upstream = nullptr;
        QByteArray toUpstream; // held while stalled or connecting
        QByteArray toClient;
        // m_clock ms at which the last delayed chunk each way goes out: a
        // later chunk never goes before it, whatever the delay is by then.
        qint64 upstreamDueMs = 0;
        qint64 clientDueMs = 0;
        bool upstreamConnected = false;
        bool cutOnReply = false; // the marked request went up: cut at its reply
    };

    void accept()
    {
        while (QTcpSocket *client = m_server->nextPendingConnection()) {
            if (m_refusing) {
                client->abort();
                client->deleteLater();
                continue;
            }
            m_pipes.emplace_back();
            Pipe &p = m_pipes.back();
            p.client = client;
            p.client->setParent(this);
            p.upstream = new QTcpSocket(this);
            ++m_count;
            QTcpSocket *up = p.upstream;
            connect(up, &QTcpSocket::connected, this, [this, up] {
                if (Pipe *q = find(up)) {
                    q->upstreamConnected = true;
                    send(*q, true, {});
                }
            });
            connect(client, &QTcpSocket::readyRead, this, [this, client] {
                if (Pipe *q = find(client))
                    send(*q, true, client->readAll());
            });
            connect(up, &QTcpSocket::readyRead, this, [this, up] {
                Pipe *q = find(up);
                if (!q)
                    return;
                if (!q->cutOnReply) {
                    send(*q, false, up->readAll());
                    return;
                }
                // The server answered the marked request: the answer is
                // lost with every connection, as in a network cut.
                up->readAll();
                QMetaObject::invokeMethod(this, &ProxyWorker::cutAll, Qt::QueuedConnection);
            });
            connect(client, &QTcpSocket::disconnected, this, [this, client] { drop(client); });
            connect(up, &QTcpSocket::disconnected, this, [this, up] { drop(up); });
            connect(up, &QTcpSocket::errorOccurred, this, [this, up] { drop(up); });
            up->connectToHost(QHostAddress::LocalHost, m_target);
        }
    }

    Pipe *find(const QTcpSocket *s)
    {
        for (Pipe &p : m_pipes) {
            if (p.client == s || p.upstream == s)
                return &p;
        }
        return nullptr;
    }

    // Bytes from one side for the other: held, delayed or written now, and
    // always in the order they came.
    void send(Pipe &p, bool toUpstream, const QByteArray &bytes)
    {
        QByteArray &held = toUpstream ? p.toUpstream : p.toClient;
        held += bytes;
        if (toUpstream && !m_stallMarker.isEmpty() && held.contains(m_stallMarker)) {
            m_stalled = true; // this request stays here, and all after it
            m_stallMarker.clear();
        }
        if (m_stalled || (toUpstream && !p.upstreamConnected) || held.isEmpty())
            return;
        if (toUpstream && !m_cutMarker.isEmpty() && held.contains(m_cutMarker)
            && (m_cutUnless.isEmpty() || !held.contains(m_cutUnless))) {
            p.cutOnReply = true;
            m_cutMarker.clear();
        }
        QByteArray out;
        out.swap(held);
        QPointer<QTcpSocket> target = toUpstream ? p.upstream : p.client;
        qint64 &due = toUpstream ? p.upstreamDueMs : p.clientDueMs;
        const qint64 now = m_clock.elapsed();
        due = std::max(due, now + m_delayMs);
        if (due <= now) {
            target->write(out);
            return;
        }
        // Non-decreasing due times: the timers fire in order.
        QTimer::singleShot(due - now, Qt::PreciseTimer, this, [target, out] {
            if (target)
                target->write(out);
        });
    }

    void drop(QTcpSocket *s)
    {
        for (auto it = m_pipes.begin(); it != m_pipes.end(); ++it) {
            if (it->client != s && it->upstream != s)
                continue;
            QTcpSocket *other = it->client == s ? it->upstream : it->client;
            it->client->disconnect(this);
            it->upstream->disconnect(this);
            // What the closing side sent last still reaches the other one.
            if (other->state() == QAbstractSocket::ConnectedState) {
                const QByteArray &rest = other == it->client ? it->toClient : it->toUpstream;
                if (!m_stalled && !rest.isEmpty())
                    other->write(rest);
                other->disconnectFromHost();
            }
            it->client->deleteLater();
            it->upstream->deleteLater();
            m_pipes.erase(it);
            --m_count;
            return;
        }
    }

    quint16 m_target;
    QTcpServer *m_server = nullptr;
    QElapsedTimer m_clock;
    QByteArray m_cutMarker;   // armed by cutOnReplyTo(); cleared once seen
    QByteArray m_cutUnless;   // bytes that contain this too do not trigger it
    QByteArray m_stallMarker; // armed by stallOn(); cleared once seen
    std::list<Pipe> m_pipes;  // std::list: a Pipe's address is stable
    int m_delayMs = 0;
    bool m_stalled = false;
    bool m_refusing = false;
    int m_count = 0;
};

} // namespace Internal

namespace {

template<typename F>
auto onWorker(Internal::ProxyWorker *worker, F f)
{
    decltype(f()) result{};
    QMetaObject::invokeMethod(
        worker, [&result, &f] { result = f(); }, Qt::BlockingQueuedConnection);
    return result;
}

} // namespace

TcpProxy::TcpProxy(quint16 targetPort)
    : m_thread(std::make_unique<QThread>())
    , m_worker(new Internal::ProxyWorker(targetPort))
{
    m_thread->setObjectName(QStringLiteral("tcpproxy"));
    m_worker->moveToThread(m_thread.get());
    m_thread->start();
}

TcpProxy::~TcpProxy()
{
    Internal::ProxyWorker *worker = m_worker;
    QMetaObject::invokeMethod(
        worker, [worker] { delete worker; }, Qt::BlockingQueuedConnection);
    m_thread->quit();
    m_thread->wait();
}

bool TcpProxy::start()
{
    Internal::ProxyWorker *w = m_worker;
    m_port = onWorker(w, [w] { return w->listen(); });
    return m_port != 0;
}

void TcpProxy::setDelayMs(int ms)
{
    Internal::ProxyWorker *w = m_worker;
    onWorker(w, [w, ms] {
        w->setDelay(ms);
        return true;
    });
}

void TcpProxy::setStalled(bool on)
{
    Internal::ProxyWorker *w = m_worker;
    onWorker(w, [w, on] {
        w->setStalled(on);
        return true;
    });
}

void TcpProxy::setRefusing(bool on)
{
    Internal::ProxyWorker *w = m_worker;
    onWorker(w, [w, on] {
        w->setRefusing(on);
        return true;
    });
}

void TcpProxy::cutOnReplyTo(const QByteArray &marker, const QByteArray &unless)
{
    Internal::ProxyWorker *w = m_worker;
    onWorker(w, [w, marker, unless] {
        w->setCutMarker(marker, unless);
        return true;
    });
}

void TcpProxy::stallOn(const QByteArray &marker)
{
    Internal::ProxyWorker *w = m_worker;
    onWorker(w, [w, marker] {
        w->setStallMarker(marker);
        return true;
    });
}

void TcpProxy::cutAll()
{
    Internal::ProxyWorker *w = m_worker;
    onWorker(w, [w] {
        w->cutAll();
        return true;
    });
}

int TcpProxy::connectionCount() const
{
    Internal::ProxyWorker *w = m_worker;
    return onWorker(w, [w] { return w->count(); });
}

} // namespace gatehouse::test
