// SPDX-License-Identifier: MIT
// The Prometheus endpoint end to end: `gatehouse-cli serve --metrics` against
// a real redis-server with planted structures (a limiter, locks, a queue with
// stuck jobs, a BullMQ queue), scraped every second by a real Prometheus
// (/usr/bin/prometheus, Debian 'prometheus') on a loopback port; the test
// asks Prometheus' HTTP API for each figure and compares it with what
// `gatehouse-cli snapshot --json` of the same server says. Every process is
// bounded in time and stopped by pid.
#include "prometheusserver.h"
#include "redisserver.h"

#include <metrics/metricsexposition.h>
#include <patterns/patternregistry.h>
#include <redis/redisclient.h>

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QtTest>

#include <csignal>

using namespace gatehouse;
using gatehouse::test::call;
using gatehouse::test::RedisServer;

class tst_Metrics : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanupTestCase();
    void endpointIsReadOnly();
    void prometheusScrapesEveryFigure();
    void dashboardQueriesRun();
    void portTakenSaysSo();
    void remoteAddressNeedsTheFlag();
    void stopsOnSigterm();

private:
    using Http = test::HttpReply;
    Http request(const QByteArray &verb, const QUrl &url, const QByteArray &body = {})
    {
        return test::httpRequest(m_net, verb, url, body);
    }
    QJsonArray query(const QString &promql, QString *error = nullptr)
    {
        return m_prometheus.query(promql, error);
    }
    double valueOf(const QString &promql, int timeoutMs = 20000)
    {
        return m_prometheus.valueOf(promql, timeoutMs);
    }
    static QString labelMatch(const QJsonValue &key);

    RedisServer m_redis;
    QTemporaryDir m_dir;
    QString m_profile;
    QProcess m_serve;
    test::PrometheusServer m_prometheus{QStringLiteral(GATEHOUSE_PROMETHEUS)};
    QUrl m_metricsUrl;
    QJsonObject m_snapshot;
    QElapsedTimer m_served;
    QNetworkAccessManager m_net;
};

// A key as a PromQL label matcher: the string, escaped as PromQL reads it.
QString tst_Metrics::labelMatch(const QJsonValue &key)
{
    // A key snapshot --json gives as {"base64": ...} (a newline in it) is
    // still UTF-8: Prometheus has it as text.
    QString s = key.isObject() ? QString::fromUtf8(QByteArray::fromBase64(
                    key.toObject().value(QStringLiteral("base64")).toString().toLatin1()))
                               : key.toString();
    s.replace(QLatin1Char('\\'), QLatin1String("\\\\"));
    s.replace(QLatin1Char('"'), QLatin1String("\\\""));
    s.replace(QLatin1Char('\n'), QLatin1String("\\n"));
    return QStringLiteral("key=\"%1\"").arg(s);
}

void tst_Metrics::initTestCase()
{
    QVERIFY2(QFileInfo::exists(QStringLiteral(GATEHOUSE_PROMETHEUS)),
             "prometheus was not found: install the Debian package 'prometheus' (run "
             ".ci/install-deps).");
    QVERIFY2(m_redis.start(), qPrintable(m_redis.errorString()));
    QVERIFY(m_dir.isValid());
    auto client = test::connectedClient(m_redis);
    QVERIFY(client);
    const qint64 now = call(*client, {"TIME"}).at(0).toInteger() * 1000;
    const auto lay = [&](const QList<QByteArray> &c) {
        const RedisValue v = call(*client, c);
        QVERIFY2(!v.isError(), c.join(' ').constData());
    };
    // A sliding-window limiter: 12 requests in the last minute, limit 20.
    for (int i = 0; i < 12; ++i) {
        const QByteArray t = QByteArray::number(now - 60000 + i * 1000);
        lay({"ZADD", "rl:api", t, t + "-" + QByteArray::number(i)});
    }
    // Locks, one with a quote, a backslash and a newline in its name.
    lay({"SET", "lock:report", "tok-1", "PX", "600000"});
    lay({"SET", "lock:we\"ird\\\nname", "tok-2", "PX", "600000"});
    // A reliable queue: 5 waiting, 2 in flight claimed 10 minutes ago (stuck
    // after 30 s), 1 claimed now.
    lay({"RPUSH", "jobs:mail", "m1", "m2", "m3", "m4", "m5"});
    lay({"RPUSH", "jobs:mail:processing", "p1", "p2", "p3"});
    lay({"ZADD", "jobs:mail:claims", QByteArray::number(now - 600000), "p1",
         QByteArray::number(now - 590000), "p2", QByteArray::number(now), "p3"});
    // A BullMQ queue: 3 waiting, 2 active of which one lost its lock
    // (stalled), 2 failed.
    lay({"HSET", "bull:emails:meta", "version", "bullmq:5.4.0", "opts.maxLenEvents", "10000"});
    lay({"SET", "bull:emails:id", "7"});
    lay({"LPUSH", "bull:emails:wait", "1", "2", "3"});
    lay({"LPUSH", "bull:emails:active", "4", "5"});
    lay({"HSET", "bull:emails:4", "name", "send", "processedOn", QByteArray::number(now - 5000)});
    lay({"HSET", "bull:emails:5", "name", "send", "processedOn", QByteArray::number(now - 3000)});
    lay({"SET", "bull:emails:5:lock", "worker-token", "PX", "600000"});
    lay({"ZADD", "bull:emails:failed", "1", "6", "2", "7"});
    // Their times: waited 2 s and 5 s, ran 1 s and 1.5 s; job 1 waits (the
    // wait list's last) since a minute ago.
    lay({"HSET", "bull:emails:6", "name", "send", "timestamp", QByteArray::number(now - 10000),
         "processedOn", QByteArray::number(now - 8000), "finishedOn",
         QByteArray::number(now - 7000)});
    lay({"HSET", "bull:emails:7", "name", "send", "timestamp", QByteArray::number(now - 9000),
         "processedOn", QByteArray::number(now - 4000), "finishedOn",
         QByteArray::number(now - 2500)});
    lay({"HSET", "bull:emails:1", "name", "send", "timestamp", QByteArray::number(now - 60000)});

    m_profile = m_dir.filePath(QStringLiteral("profile.json"));
    QFile profile(m_profile);
    QVERIFY(profile.open(QIODevice::WriteOnly));
    profile.write(R"({"name": "metrics-test", "rules": [
        {"pattern": "sliding-window", "match": "rl:*", "limit": 20, "window": 3600, "windowUnit": "s"},
        {"pattern": "lock", "match": "lock:*"},
        {"pattern": "reliable-queue", "match": "jobs:*", "processingKey": "{key}:processing",
         "claimsKey": "{key}:claims", "stuckAfter": 30000},
        {"pattern": "bullmq", "match": "bull:*"}]})");
    profile.close();

    // What the snapshot says, from a run of its own.
    const auto snap
        = test::runCli(QStringLiteral(GATEHOUSE_CLI),
                       {QStringLiteral("--url"), m_redis.url(), QStringLiteral("--profile"),
                        m_profile, QStringLiteral("snapshot"), QStringLiteral("--json")});
    QVERIFY2(snap.exitCode == 0, qPrintable(snap.err));
    m_snapshot = QJsonDocument::fromJson(snap.out.toUtf8()).object();
    QCOMPARE(m_snapshot.value(QStringLiteral("limiters")).toArray().size(), 1);
    QCOMPARE(m_snapshot.value(QStringLiteral("locks")).toArray().size(), 2);
    QCOMPARE(m_snapshot.value(QStringLiteral("queues")).toArray().size(), 2);

    // The endpoint, on a port it picks; its first line says where.
    m_serve.setProgram(QStringLiteral(GATEHOUSE_CLI));
    m_serve.setArguments({QStringLiteral("--url"), m_redis.url(), QStringLiteral("--profile"),
                          m_profile, QStringLiteral("--interval"), QStringLiteral("500"),
                          QStringLiteral("serve"), QStringLiteral("--metrics"),
                          QStringLiteral("127.0.0.1:0"), QStringLiteral("--seconds"),
                          QStringLiteral("170")});
    m_serve.start();
    QVERIFY(m_serve.waitForStarted(10000));
    m_served.start();
    QTRY_VERIFY_WITH_TIMEOUT(m_serve.canReadLine() || m_serve.state() != QProcess::Running, 15000);
    const QString first = QString::fromUtf8(m_serve.readLine()).trimmed();
    QVERIFY2(first.startsWith(QLatin1String("Serving metrics at http://127.0.0.1:")),
             qPrintable(first + QString::fromUtf8(m_serve.readAllStandardError())));
    m_metricsUrl = QUrl(first.section(QLatin1Char(' '), 3));
    QVERIFY(m_metricsUrl.port() > 0);

    // Prometheus, scraping it every second, with its storage in the temp dir.
    QString error;
    QVERIFY2(m_prometheus.start({quint16(m_metricsUrl.port())}, m_dir.path(), &error),
             qPrintable(error));
}

void tst_Metrics::cleanupTestCase()
{
    test::stopProcess(m_serve);
    m_prometheus.stop();
    m_redis.stop();
    QCOMPARE(RedisServer::runningChildren(), 0);
}

// Only GET /metrics: every other method 405 (with Allow), every other path 404.
void tst_Metrics::endpointIsReadOnly()
{
    const Http get = request("GET", m_metricsUrl);
    QCOMPARE(get.status, 200);
    QVERIFY2(get.contentType.startsWith("text/plain; version=0.0.4"), get.contentType.constData());
    QVERIFY(get.body.contains("# TYPE gatehouse_node_up gauge"));
    for (const QByteArray verb : {"POST", "PUT", "DELETE", "PATCH"}) {
        const Http h = request(verb, m_metricsUrl, "x=1");
        QVERIFY2(h.status == 405, verb.constData());
    }
    QCOMPARE(request("GET", m_metricsUrl.resolved(QUrl(QStringLiteral("/")))).status, 404);
    QCOMPARE(request("GET", m_metricsUrl.resolved(QUrl(QStringLiteral("/metrics/x")))).status, 404);
    QCOMPARE(request("POST", m_metricsUrl.resolved(QUrl(QStringLiteral("/admin")))).status, 404);
    // Nothing it served wrote to Redis: the planted keys are as they were.
    auto client = test::connectedClient(m_redis);
    QVERIFY(client);
    QCOMPARE(call(*client, {"LLEN", "jobs:mail:processing"}).toInteger(), 3);
}

// Every figure of every planted object, as Prometheus stored it, equals the
// snapshot's (times that move between the two readings within a margin).
void tst_Metrics::prometheusScrapesEveryFigure()
{
    // Scraped at all: Prometheus' own view of the target.
    QCOMPARE(valueOf(QStringLiteral("up{job=\"gatehouse\"}")), 1.0);
    // Every figure each object's pattern declares (PatternUnit::figures()),
    // by its metric name, against the snapshot's field of the same id (a
    // library's state counts under "counts"; a queue's stuck jobs counted
    // as "stuckCount"). Durations (ms in JSON, s in Prometheus) move
    // between the two readings: a margin of two minutes on 10-minute TTLs.
    int compared = 0;
    for (const Section &section : PatternRegistry::instance().sections()) {
        for (const QJsonValue &v : m_snapshot.value(section.jsonKey).toArray()) {
            const QJsonObject o = v.toObject();
            const QString pattern = o.value(QStringLiteral("pattern")).toString();
            const PatternUnit *unit = PatternRegistry::instance().find(pattern);
            QVERIFY(unit);
            const QString labels = QStringLiteral("{%1,pattern=\"%2\"}")
                                       .arg(labelMatch(o.value(QStringLiteral("key"))), pattern);
            const QJsonObject counts = o.value(QStringLiteral("counts")).toObject();
            const QJsonObject latency = o.value(QStringLiteral("latency")).toObject();
            QList<Figure> figures = unit->figures();
            if (o.contains(QStringLiteral("limit")))
                figures.append({QStringLiteral("limit"), {}, false, {}});
            for (const Figure &f : std::as_const(figures)) {
                QJsonValue want = o.value(f.id);
                if (!want.isDouble() && counts.contains(f.id))
                    want = counts.value(f.id);
                if (!want.isDouble() && f.id == QLatin1String("stuck"))
                    want = o.value(QStringLiteral("stuckCount"));
                // A library queue's job times: "waitP95" is latency.waitMs.p95.
                if (!want.isDouble() && latency.contains(f.id))
                    want = latency.value(f.id);
                if (!want.isDouble() && !f.summary.isEmpty())
                    want = latency.value(f.id.chopped(3) + QStringLiteral("Ms"))
                               .toObject()
                               .value(f.id.right(3).toLower());
                QVERIFY2(want.isDouble() || want.isNull(),
                         qPrintable(pattern + QLatin1String(": no field for figure ") + f.id));
                if (!want.isDouble() || (f.isDuration && want.toDouble() < 0))
                    continue; // unknown in the snapshot: not exposed either
                const QString metric = QString::fromUtf8(MetricsExposition::figureMetricName(
                    section.id, f.summary.isEmpty() ? f.id : f.summary, f.isDuration));
                const QString series
                    = f.summary.isEmpty()
                          ? labels
                          : labels.chopped(1) + QStringLiteral(",quantile=\"%1\"}").arg(f.quantile);
                const double got = valueOf(metric + series);
                const double expected = want.toDouble() * (f.isDuration ? 0.001 : 1);
                QVERIFY2(qAbs(got - expected) <= (f.isDuration ? 120 : 1e-9),
                         qPrintable(QStringLiteral("%1%2: %3, snapshot %4")
                                        .arg(metric, series)
                                        .arg(got)
                                        .arg(expected)));
                ++compared;
            }
            // A library queue's counts by state.
            for (auto c = counts.constBegin(); c != counts.constEnd(); ++c) {
                const QString series
                    = QStringLiteral("gatehouse_%1_in_state{%2,pattern=\"%3\","
                                     "state=\"%4\"}")
                          .arg(section.id, labelMatch(o.value(QStringLiteral("key"))), pattern,
                               c.key());
                QCOMPARE(valueOf(series), c.value().toDouble());
                ++compared;
            }
        }
    }
    QVERIFY2(compared >= 20, qPrintable(QString::number(compared)));
    // The planted values themselves, so a reading of nothing cannot pass.
    QCOMPARE(valueOf(QStringLiteral("gatehouse_limiter_in_window{key=\"rl:api\"}")), 12.0);
    QCOMPARE(valueOf(QStringLiteral("gatehouse_limiter_occupancy{key=\"rl:api\"}")), 0.6);
    QCOMPARE(valueOf(QStringLiteral("gatehouse_queue_stuck{key=\"jobs:mail\"}")), 2.0);
    QCOMPARE(valueOf(QStringLiteral("gatehouse_queue_stuck{key=\"bull:emails\"}")), 1.0);
    QCOMPARE(valueOf(QStringLiteral(
                 "gatehouse_queue_job_wait_seconds{key=\"bull:emails\",quantile=\"0.95\"}")),
             5.0);
    QCOMPARE(valueOf(QStringLiteral(
                 "gatehouse_queue_job_run_seconds{key=\"bull:emails\",quantile=\"0.5\"}")),
             1.0);
    QCOMPARE(valueOf(QStringLiteral("gatehouse_queue_in_state{key=\"bull:emails\",state="
                                    "\"failed\"}")),
             2.0);
    // The key with a quote, a backslash and a newline came through whole.
    QCOMPARE(
        valueOf(QStringLiteral("gatehouse_lock_held_exact{key=\"lock:we\\\"ird\\\\\\nname\"}")),
        0.0);
    // Held for: a lower bound (held before Gatehouse looked), at most as
    // long as serve has run.
    const double held = valueOf(QStringLiteral("gatehouse_lock_held_seconds{key=\"lock:report\"}"));
    QVERIFY2(held >= 0 && held <= m_served.elapsed() / 1000.0 + 2,
             qPrintable(QString::number(held)));

    // The node, as the snapshot names it.
    const QJsonObject server = m_snapshot.value(QStringLiteral("server")).toObject();
    const QJsonObject node = server.value(QStringLiteral("nodes")).toArray().first().toObject();
    const QString nodeLabel
        = QStringLiteral("node=\"%1\"").arg(node.value(QStringLiteral("address")).toString());
    QCOMPARE(valueOf(QStringLiteral("gatehouse_node_up{%1}").arg(nodeLabel)), 1.0);
    QCOMPARE(valueOf(QStringLiteral("gatehouse_node_info{%1,role=\"%2\",version=\"%3\"}")
                         .arg(nodeLabel, node.value(QStringLiteral("role")).toString(),
                              node.value(QStringLiteral("version")).toString())),
             1.0);
    // INFO figures, where the monitor reads them (a Cluster's nodes; a
    // standalone server's are null in the snapshot and absent here).
    for (const auto &[json, metric] :
         {std::pair{"usedMemoryBytes", "gatehouse_node_used_memory_bytes"},
          std::pair{"connectedClients", "gatehouse_node_connected_clients"},
          std::pair{"opsPerSec", "gatehouse_node_ops_per_second"}}) {
        const QString series = QStringLiteral("%1{%2}").arg(QLatin1String(metric), nodeLabel);
        if (node.value(QLatin1String(json)).isNull())
            QVERIFY2(query(series).isEmpty(), qPrintable(series));
        else
            QVERIFY2(valueOf(series) > 0, qPrintable(series));
    }
    // The console's own figures.
    QVERIFY(valueOf(QStringLiteral("gatehouse_console_cpu_seconds_total")) > 0);
    QVERIFY(valueOf(QStringLiteral("gatehouse_console_tick_commands")) > 0);
    // Measured, even for a tick of two locks that takes less than 1 ms.
    QVERIFY(valueOf(QStringLiteral("gatehouse_console_tick_duration_seconds")) > 0);
    const double age = valueOf(QStringLiteral("gatehouse_reading_age_seconds"));
    QVERIFY2(age >= 0 && age < 5, qPrintable(QString::number(age)));
    QCOMPARE(valueOf(QStringLiteral("gatehouse_objects{pattern=\"lock\",state=\"ok\"}")), 2.0);
    // Prometheus took every sample (no parse failure on its side).
    QVERIFY(valueOf(QStringLiteral("scrape_samples_scraped{job=\"gatehouse\"}")) > 20);
}

// Every query of the shipped Grafana dashboard runs on this Prometheus (the
// variables at "all"), and the panels of planted structures find series.
void tst_Metrics::dashboardQueriesRun()
{
    QFile file(QStringLiteral(GATEHOUSE_DASHBOARD));
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QJsonObject dash = QJsonDocument::fromJson(file.readAll()).object();
    QVERIFY(!dash.isEmpty());
    // A datasource variable, so it imports into any Grafana.
    bool datasourceVar = false;
    for (const QJsonValue &v : dash.value(QStringLiteral("templating"))
                                   .toObject()
                                   .value(QStringLiteral("list"))
                                   .toArray())
        datasourceVar
            |= v.toObject().value(QStringLiteral("type")).toString() == QLatin1String("datasource");
    QVERIFY(datasourceVar);
    // Wait for two scrapes' worth so rate() has points.
    QTRY_VERIFY_WITH_TIMEOUT(m_served.elapsed() > 8000, 20000);
    // What may have no series here: nothing planted (tokens), no keyspace
    // events (throughput), and the node INFO figures a standalone server's
    // snapshot does not carry.
    QStringList mayBeEmpty{QStringLiteral("gatehouse_tokens"),
                           QStringLiteral("gatehouse_queue_throughput_per_second")};
    const QJsonObject node = m_snapshot.value(QStringLiteral("server"))
                                 .toObject()
                                 .value(QStringLiteral("nodes"))
                                 .toArray()
                                 .first()
                                 .toObject();
    for (const auto &[json, metric] :
         {std::pair{"usedMemoryBytes", "gatehouse_node_used_memory_bytes"},
          std::pair{"connectedClients", "gatehouse_node_connected_clients"},
          std::pair{"opsPerSec", "gatehouse_node_ops_per_second"},
          std::pair{"replicationOffset", "gatehouse_node_replication_offset_bytes"}}) {
        if (node.value(QLatin1String(json)).isNull())
            mayBeEmpty << QLatin1String(metric);
    }
    int queries = 0;
    for (const QJsonValue &p : dash.value(QStringLiteral("panels")).toArray()) {
        for (const QJsonValue &t : p.toObject().value(QStringLiteral("targets")).toArray()) {
            QString expr = t.toObject().value(QStringLiteral("expr")).toString();
            expr.replace(QLatin1String("$job"), QLatin1String(".*"));
            expr.replace(QLatin1String("$key"), QLatin1String(".*"));
            QString error;
            const QJsonArray r = query(expr, &error);
            QVERIFY2(error.isEmpty(), qPrintable(expr + QLatin1String(": ") + error));
            ++queries;
            const bool allowed = std::any_of(mayBeEmpty.cbegin(), mayBeEmpty.cend(),
                                             [&](const QString &m) { return expr.startsWith(m); });
            QVERIFY2(!r.isEmpty() || allowed, qPrintable(QLatin1String("no data: ") + expr));
            // The queues' waiting panel shows every queue, a library's
            // ("wait", by its own state name) beside a reliable queue's
            // ("length").
            if (expr.contains(QLatin1String("gatehouse_queue_length"))) {
                QStringList shown;
                for (const QJsonValue &series : r)
                    shown << series.toObject()
                                 .value(QStringLiteral("metric"))
                                 .toObject()
                                 .value(QStringLiteral("key"))
                                 .toString();
                int queues = 0;
                for (const QJsonValue &q : m_snapshot.value(QStringLiteral("queues")).toArray()) {
                    const QString key = q.toObject().value(QStringLiteral("key")).toString();
                    QVERIFY2(shown.contains(key),
                             qPrintable(key + QLatin1String(" not in ") + expr));
                    ++queues;
                }
                QVERIFY(queues >= 2);
            }
        }
    }
    QVERIFY(queries >= 20);
}

void tst_Metrics::portTakenSaysSo()
{
    const auto run = test::runCli(QStringLiteral(GATEHOUSE_CLI),
                                  {QStringLiteral("--url"), m_redis.url(), QStringLiteral("serve"),
                                   QStringLiteral("--metrics"),
                                   QStringLiteral("127.0.0.1:%1").arg(m_metricsUrl.port()),
                                   QStringLiteral("--seconds"), QStringLiteral("5")},
                                  {}, 20000);
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.contains(QLatin1String("another process listens there")), qPrintable(run.err));
    QVERIFY(run.err.contains(QStringLiteral("127.0.0.1:%1").arg(m_metricsUrl.port())));
    QVERIFY(run.out.isEmpty());
    // A bad address is a usage error with what to write instead.
    const auto bad = test::runCli(QStringLiteral(GATEHOUSE_CLI),
                                  {QStringLiteral("--url"), m_redis.url(), QStringLiteral("serve"),
                                   QStringLiteral("--metrics"), QStringLiteral("example:80x")});
    QCOMPARE(bad.exitCode, 2);
    QVERIFY2(bad.err.contains(QLatin1String("127.0.0.1:9187")), qPrintable(bad.err));
    const auto none
        = test::runCli(QStringLiteral(GATEHOUSE_CLI),
                       {QStringLiteral("--url"), m_redis.url(), QStringLiteral("serve")});
    QCOMPARE(none.exitCode, 2);
    QVERIFY2(none.err.contains(QLatin1String("--metrics")), qPrintable(none.err));
}

// A non-loopback address is refused unless asked for, then served with a warning.
void tst_Metrics::remoteAddressNeedsTheFlag()
{
    const QStringList base{QStringLiteral("--url"),     m_redis.url(),
                           QStringLiteral("serve"),     QStringLiteral("--metrics"),
                           QStringLiteral("0.0.0.0:0"), QStringLiteral("--seconds"),
                           QStringLiteral("2")};
    const auto refused = test::runCli(QStringLiteral(GATEHOUSE_CLI), base, {}, 20000);
    QCOMPARE(refused.exitCode, 2); // a usage error: nothing was started
    QVERIFY2(refused.err.contains(QLatin1String("not a loopback address")),
             qPrintable(refused.err));
    QVERIFY(refused.err.contains(QLatin1String("--metrics-remote")));
    const auto allowed
        = test::runCli(QStringLiteral(GATEHOUSE_CLI),
                       base + QStringList{QStringLiteral("--metrics-remote")}, {}, 30000);
    QCOMPARE(allowed.exitCode, 0); // --seconds 2 ended it
    QVERIFY2(allowed.err.contains(QLatin1String("warning")), qPrintable(allowed.err));
    QVERIFY(allowed.out.startsWith(QLatin1String("Serving metrics at http://0.0.0.0:")));
}

// SIGTERM ends serve at once with exit 0, and the port is free again.
void tst_Metrics::stopsOnSigterm()
{
    QVERIFY(m_serve.state() == QProcess::Running);
    QElapsedTimer t;
    t.start();
    ::kill(pid_t(m_serve.processId()), SIGTERM);
    QVERIFY(m_serve.waitForFinished(10000));
    QCOMPARE(m_serve.exitStatus(), QProcess::NormalExit);
    QCOMPARE(m_serve.exitCode(), 0);
    QVERIFY2(t.elapsed() < 5000, qPrintable(QString::number(t.elapsed())));
    QTcpServer again;
    QVERIFY(again.listen(QHostAddress::LocalHost, quint16(m_metricsUrl.port())));
}

QTEST_GUILESS_MAIN(tst_Metrics)
#include "tst_metrics.moc"
