// SPDX-License-Identifier: MIT
#pragma once

#include <QByteArray>
#include <QJsonArray>
#include <QList>
#include <QNetworkAccessManager>
#include <QProcess>
#include <QString>
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

// A real Prometheus (/usr/bin/prometheus, Debian 'prometheus') on a free
// loopback port, scraping the given metrics endpoints every second, its
// storage in dir; stopped by pid.
class PrometheusServer
{
public:
    explicit PrometheusServer(QString executable);
    ~PrometheusServer();

    // Starts and waits until it is ready (at most 60 s); false with why.
    bool start(const QList<quint16> &targetPorts, const QString &dir, QString *error);
    void stop();
    bool isRunning() const { return m_process.state() == QProcess::Running; }
    QUrl url() const { return m_url; }

    // An instant query's result vector (empty on error, with the body in error).
    QJsonArray query(const QString &promql, QString *error = nullptr);
    // The value of the one series matching promql, waiting until it
    // appears; NaN when it never did (or more than one matched).
    double valueOf(const QString &promql, int timeoutMs = 20000);

private:
    QString m_executable;
    QProcess m_process;
    QUrl m_url;
    QNetworkAccessManager m_net;
};

} // namespace gatehouse::test
