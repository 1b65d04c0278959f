// SPDX-License-Identifier: MIT
#include "observerprobe.h"

#include <QDateTime>
#include <QElapsedTimer>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>

namespace gatehouse::bench {

void ObserverProbe::run()
{
    constexpr int Connections = 10;
    static const QByteArray Get = "*2\r\n$3\r\nGET\r\n$14\r\nbench:observer\r\n";
    // A reply is whole at its last line end: "$1\r\nv\r\n", or ":0\r\n".
    const int replyLines = m_seedSha.isEmpty() ? 2 : 1;
    const char replyType = m_seedSha.isEmpty() ? '$' : ':';
    const auto bulk = [](const QByteArray &b) -> QByteArray { // not a QStringBuilder of temporaries
        return '$' + QByteArray::number(b.size()) + "\r\n" + b + "\r\n";
    };
    struct Conn
    {
        int fd = -1;
        qint64 sentNs = 0;
        int segment = 0;
        int lines = 0;
        bool first = true;
        QByteArray window;
    };
    std::vector<Conn> conns(Connections);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(quint16(m_ep.port));
    inet_pton(AF_INET, m_ep.host.toLatin1().constData(), &addr.sin_addr);
    QElapsedTimer clock;
    clock.start();
    for (int i = 0; i < Connections; ++i) {
        const QByteArray key = "bench:seed:observer:" + QByteArray::number(i);
        conns[size_t(i)].window = bulk(key) + bulk(key + ":retry");
    }
    QByteArray request;
    const auto send = [&](Conn &c) {
        c.lines = 0;
        c.first = true;
        if (m_seedSha.isEmpty()) {
            request = Get;
        } else {
            request = "*6\r\n$7\r\nEVALSHA\r\n" + bulk(m_seedSha) + "$1\r\n2\r\n" + c.window
                      + bulk(QByteArray::number(QDateTime::currentMSecsSinceEpoch()));
        }
        c.segment = m_segment.load(std::memory_order_relaxed);
        c.sentNs = clock.nsecsElapsed();
        return ::write(c.fd, request.constData(), size_t(request.size()))
               == ssize_t(request.size());
    };
    bool ok = true;
    for (Conn &c : conns) {
        c.fd = ::socket(AF_INET, SOCK_STREAM, 0);
        const int one = 1;
        ::setsockopt(c.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        if (c.fd < 0 || ::connect(c.fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0)
            ok = false;
    }
    for (Conn &c : conns) {
        if (ok && !send(c))
            ok = false;
    }
    std::vector<pollfd> fds(Connections);
    char buf[256];
    while (ok && !m_stop) {
        for (int i = 0; i < Connections; ++i)
            fds[size_t(i)] = {conns[size_t(i)].fd, POLLIN, 0};
        if (::poll(fds.data(), nfds_t(fds.size()), 5000) <= 0) {
            ok = false;
            break;
        }
        for (int i = 0; i < Connections && ok; ++i) {
            if (!(fds[size_t(i)].revents & POLLIN))
                continue;
            Conn &c = conns[size_t(i)];
            const ssize_t n = ::read(c.fd, buf, sizeof buf);
            if (n <= 0) {
                ok = false;
                break;
            }
            if (c.first && buf[0] != replyType) {
                ok = false; // an error reply (NOSCRIPT, ...)
                break;
            }
            c.first = false;
            c.lines += int(std::count(buf, buf + n, '\n'));
            if (c.lines < replyLines)
                continue;
            const qint64 now = clock.nsecsElapsed();
            if (c.segment > 0 && c.segment < int(m_latencies.size())
                && c.segment == m_segment.load(std::memory_order_relaxed))
                m_latencies[size_t(c.segment)].push_back(float(double(now - c.sentNs) / 1e6));
            ok = send(c);
        }
    }
    for (Conn &c : conns) {
        if (c.fd >= 0)
            ::close(c.fd);
    }
    m_ok = ok;
}

double p99(std::vector<float> v)
{
    if (v.empty())
        return 0;
    const size_t k = std::min(v.size() - 1, size_t(std::ceil(0.99 * double(v.size()))) - 1);
    std::nth_element(v.begin(), v.begin() + qsizetype(k), v.end());
    return double(v[k]);
}

} // namespace gatehouse::bench
