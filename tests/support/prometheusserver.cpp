// SPDX-License-Identifier: MIT
#include "prometheusserver.h"

#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkReply>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTest>
#include <QtNumeric>

#include <csignal>

namespace gatehouse::test {

PrometheusServer::PrometheusServer(QString executable)
    : m_executable(std::move(executable))
{}

PrometheusServer::~PrometheusServer()
{
    stop();
}

bool PrometheusServer::start(const QList<quint16> &targetPorts, const QString &dir, QString *error)
{
    if (!QFile::exists(m_executable)) {
        *error = QStringLiteral("prometheus was not found at %1: install the Debian package "
                                "'prometheus' (run .ci/install-deps).")
                     .arg(m_executable);
        return false;
    }
    const quint16 port = freeLoopbackPort();
    QStringList targets;
    for (quint16 p : targetPorts)
        targets.append(QStringLiteral("'127.0.0.1:%1'").arg(p));
    QFile config(dir + QStringLiteral("/prometheus.yml"));
    if (port == 0 || !config.open(QIODevice::WriteOnly)) {
        *error = QStringLiteral("no free port or no config file in %1").arg(dir);
        return false;
    }
    config.write(QStringLiteral("global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
                                "scrape_configs:\n  - job_name: gatehouse\n"
                                "    scrape_timeout: 1s\n"
                                "    static_configs:\n      - targets: [%1]\n")
                     .arg(targets.join(QLatin1String(", ")))
                     .toUtf8());
    config.close();
    m_process.setProgram(m_executable);
    m_process.setArguments({QStringLiteral("--config.file=") + config.fileName(),
                            QStringLiteral("--storage.tsdb.path=") + dir + QStringLiteral("/tsdb"),
                            QStringLiteral("--web.listen-address=127.0.0.1:%1").arg(port),
                            QStringLiteral("--log.level=warn")});
    m_process.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    m_process.start();
    if (!m_process.waitForStarted(10000)) {
        *error = QStringLiteral("prometheus did not start: ") + m_process.errorString();
        return false;
    }
    m_url = QUrl(QStringLiteral("http://127.0.0.1:%1").arg(port));
    QElapsedTimer ready;
    ready.start();
    while (httpRequest(m_net, "GET", m_url.resolved(QUrl(QStringLiteral("/-/ready")))).status
           != 200) {
        if (ready.elapsed() > 60000 || !isRunning()) {
            *error = isRunning() ? QStringLiteral("Prometheus was not ready within 60 s")
                                 : QStringLiteral("Prometheus exited");
            return false;
        }
        QTest::qWait(200);
    }
    return true;
}

void PrometheusServer::stop()
{
    stopProcess(m_process);
}

QJsonArray PrometheusServer::query(const QString &promql, QString *error)
{
    // POSTed as a form: PromQL's '+' and '&' need no care in a URL.
    QUrl url = m_url;
    url.setPath(QStringLiteral("/api/v1/query"));
    const HttpReply h = httpRequest(m_net, "POST", url, "query=" + QUrl::toPercentEncoding(promql));
    const QJsonObject doc = QJsonDocument::fromJson(h.body).object();
    if (doc.value(QStringLiteral("status")).toString() != QLatin1String("success")) {
        if (error)
            *error = QString::fromUtf8(h.body);
        return {};
    }
    return doc.value(QStringLiteral("data")).toObject().value(QStringLiteral("result")).toArray();
}

double PrometheusServer::valueOf(const QString &promql, int timeoutMs)
{
    QElapsedTimer t;
    t.start();
    do {
        const QJsonArray r = query(promql);
        if (r.size() == 1)
            return r.first()
                .toObject()
                .value(QStringLiteral("value"))
                .toArray()
                .at(1)
                .toString()
                .toDouble();
        if (r.size() > 1) {
            qWarning("%s: %lld series", qPrintable(promql), qint64(r.size()));
            return qQNaN();
        }
        QTest::qWait(250);
    } while (t.elapsed() < timeoutMs);
    qWarning("%s: no series in %d ms", qPrintable(promql), timeoutMs);
    return qQNaN();
}

} // namespace gatehouse::test
