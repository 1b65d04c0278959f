// SPDX-License-Identifier: MIT
#pragma once

#include "loopback.h"

#include <QByteArray>
#include <QJsonArray>
#include <QList>
#include <QNetworkAccessManager>
#include <QProcess>
#include <QString>
#include <QUrl>

namespace gatehouse::test {

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
