// SPDX-License-Identifier: MIT
#pragma once

#include <QByteArray>

#include <memory>

class QThread;

namespace gatehouse::test {

namespace Internal {
class ProxyWorker;
}

// A TCP proxy on a free loopback port in front of a server (a redis-server),
// for fault tests: it can delay what it forwards, stall (keep every
// connection open and forward nothing), and cut every connection. It runs on
// a thread of its own, so a test thread blocked in a wait does not stall it.
// Every method is called from the thread that made the proxy.
class TcpProxy
{
public:
    explicit TcpProxy(quint16 targetPort);
    ~TcpProxy();
    TcpProxy(const TcpProxy &) = delete;
    TcpProxy &operator=(const TcpProxy &) = delete;

    bool start(); // listens; false if no port could be had
    quint16 port() const { return m_port; }

    // Every chunk is forwarded this many ms after it arrived (both ways).
    void setDelayMs(int ms);
    // On: bytes are kept, not forwarded, and connections stay open; off:
    // what was kept goes out in order.
    void setStalled(bool on);
    // Aborts every connection (both sides see a reset); new ones are accepted.
    void cutAll();
    // The next bytes sent to the server that contain marker are forwarded;
    // when the server answers on that connection, the answer is dropped and
    // every connection cut: the request ran, its client never learns it.
    // Bytes that also contain unless are forwarded as usual (the actions
    // engine's rights check names the same job as the action after it).
    void cutOnReplyTo(const QByteArray &marker, const QByteArray &unless = {});
    // Stalls (as setStalled(true)) when bytes sent to the server contain
    // marker, before forwarding them: the server never sees that request.
    void stallOn(const QByteArray &marker);
    // Refuse (close at once) new connections, as a server that is down.
    void setRefusing(bool on);
    int connectionCount() const;

private:
    std::unique_ptr<QThread> m_thread;
    Internal::ProxyWorker *m_worker = nullptr; // lives on m_thread; deleted there
    quint16 m_port = 0;
};

} // namespace gatehouse::test
