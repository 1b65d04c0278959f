// SPDX-License-Identifier: MIT
#pragma once
// What tests that start servers and processes on loopback share: a free
// port, stopping a child by pid, one bounded HTTP request.

#include <QByteArray>
#include <QNetworkAccessManager>
#include <QProcess>
#include <QUrl>

namespace gatehouse::test {

// Stops a child process by pid: SIGTERM, 10 s to end, then SIGKILL.
void stopProcess(QProcess &process);

// A loopback port free now (closed again at once: free for the next listener).
quint16 freeLoopbackPort();

struct HttpReply
{
    int status = 0;
    QByteArray body;
    QByteArray contentType;
};
// One HTTP request, bounded to 15 s; status 0 when it got no answer.
HttpReply httpRequest(QNetworkAccessManager &net, const QByteArray &verb, const QUrl &url,
                      const QByteArray &body = {});

} // namespace gatehouse::test
