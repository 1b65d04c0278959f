// SPDX-License-Identifier: MIT
// The Prometheus text exposition of a snapshot: names, units, escaping and
// the cap on label cardinality; every rendering is checked by Prometheus'
// own linter (promtool check metrics, Debian 'prometheus'): it parses, and
// no name breaks Prometheus' naming rules.
#include <metrics/metricsexposition.h>
#include <metrics/metricsserver.h>
#include <patterns/limiterdata.h>
#include <patterns/lock/lockdata.h>
#include <patterns/patternregistry.h>
#include <patterns/token-family/tokendata.h>

#include <QProcess>
#include <QRegularExpression>
#include <QtTest>

using namespace gatehouse;

class tst_MetricsExposition : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void names_data();
    void names();
    void escaping();
    void keyWithQuotesAndNewlinesParses();
    void figuresInBaseUnits();
    void latencyIsASummary();
    void everyPatternLints();
    void cardinalityCapAggregates();
    void nodesAndConsole();
    void silentNodeAndStaleReadings();
    void deploymentsMergeIntoOneExposition();
    void sourcesComeAndGo();
    void layoutKeptWhileTheObjectsAre();
    void layoutKeepsNoReadingAlive();

private:
    static ObjectState object(const char *pattern, const QByteArray &key);
    // name{labels} -> value of every sample line; fails on a malformed line.
    static QHash<QByteArray, double> samples(const QByteArray &text);
    // promtool's verdict: empty when the text parses and lints clean.
    static QByteArray promtoolErrors(const QByteArray &text);
    QString m_promtool;
};

void tst_MetricsExposition::initTestCase()
{
    m_promtool = QStandardPaths::findExecutable(QStringLiteral("promtool"));
    QVERIFY2(!m_promtool.isEmpty(),
             "promtool was not found: install the Debian package 'prometheus' "
             "(run .ci/install-deps).");
}

ObjectState tst_MetricsExposition::object(const char *pattern, const QByteArray &key)
{
    const PatternUnit *unit = PatternRegistry::instance().find(QString::fromLatin1(pattern));
    if (!unit)
        qFatal("no pattern %s", pattern);
    ObjectState s;
    s.object.edit().kind = unit->kind();
    s.object.edit().key = key;
    s.reading.atMs = 1'000'000;
    s.firstSeenMs = 1'000'000;
    return s;
}

QHash<QByteArray, double> tst_MetricsExposition::samples(const QByteArray &text)
{
    // name{label="value",...} value  (values escaped: \\ \" \n)
    static const QRegularExpression line(QStringLiteral(
        R"(^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([a-zA-Z_][a-zA-Z0-9_]*="(\\[\\"n]|[^\\"\n])*",?)*\})? )"
        R"((NaN|[+-]Inf|-?[0-9.eE+-]+)$)"));
    QHash<QByteArray, double> out;
    for (const QByteArray &l : text.split('\n')) {
        if (l.isEmpty() || l.startsWith('#'))
            continue;
        const auto m = line.match(QString::fromUtf8(l));
        if (!m.hasMatch()) {
            qWarning("malformed line: %s", l.constData());
            return {};
        }
        const qsizetype space = l.lastIndexOf(' ');
        const QByteArray series = l.left(space);
        if (out.contains(series)) {
            qWarning("series twice: %s", series.constData());
            return {};
        }
        out.insert(series, l.mid(space + 1).toDouble());
    }
    return out;
}

QByteArray tst_MetricsExposition::promtoolErrors(const QByteArray &text)
{
    QProcess p;
    p.start(QStandardPaths::findExecutable(QStringLiteral("promtool")),
            {QStringLiteral("check"), QStringLiteral("metrics")});
    if (!p.waitForStarted(10000))
        return "promtool did not start";
    p.write(text);
    p.closeWriteChannel();
    if (!p.waitForFinished(30000))
        return "promtool did not finish";
    const QByteArray out = p.readAllStandardOutput() + p.readAllStandardError();
    // A parse error, or a lint finding ("counter metrics should have
    // \"_total\" suffix", a gauge named "_count"): what a Prometheus user's
    // own `promtool check metrics` would report.
    if (p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0)
        return out.isEmpty() ? QByteArray("promtool failed, saying nothing") : out;
    return {};
}

void tst_MetricsExposition::names_data()
{
    QTest::addColumn<QString>("section");
    QTest::addColumn<QString>("figure");
    QTest::addColumn<bool>("duration");
    QTest::addColumn<QByteArray>("name");
    QTest::newRow("count") << "limiter"
                           << "inWindow" << false << QByteArray("gatehouse_limiter_in_window");
    QTest::newRow("ms to seconds")
        << "limiter"
        << "retryHorizonMs" << true << QByteArray("gatehouse_limiter_retry_horizon_seconds");
    QTest::newRow("age") << "queue"
                         << "oldestInFlightAgeMs" << true
                         << QByteArray("gatehouse_queue_oldest_in_flight_age_seconds");
    QTest::newRow("plain") << "queue"
                           << "stuck" << false << QByteArray("gatehouse_queue_stuck");
    QTest::newRow("ttl") << "lock"
                         << "pttlMs" << true << QByteArray("gatehouse_lock_pttl_seconds");
    QTest::newRow("a count of things") << "token"
                                       << "count" << false << QByteArray("gatehouse_tokens");
    QTest::newRow("a count, camel case")
        << "lock"
        << "holdCount" << false << QByteArray("gatehouse_lock_holds");
    QTest::newRow("a running total")
        << "queue"
        << "failedTotal" << false << QByteArray("gatehouse_queue_failed_total");
    QTest::newRow("odd characters") << "my-section"
                                    << "a.b c" << false << QByteArray("gatehouse_my_section_a_b_c");
}

void tst_MetricsExposition::names()
{
    QFETCH(QString, section);
    QFETCH(QString, figure);
    QFETCH(bool, duration);
    QFETCH(QByteArray, name);
    QCOMPARE(MetricsExposition::figureMetricName(section, figure, duration), name);
    QCOMPARE(
        MetricsExposition::figureMetricType(name),
        QByteArray(QTest::currentDataTag() == QByteArray("a running total") ? "counter" : "gauge"));
}

void tst_MetricsExposition::escaping()
{
    QCOMPARE(MetricsExposition::escapeLabelValue("a\"b\\c\nd"), QByteArray("a\\\"b\\\\c\\nd"));
    QCOMPARE(MetricsExposition::escapeHelp("a\"b\\c\nd"), QByteArray("a\"b\\\\c\\nd"));
    // Label values are UTF-8: other bytes go as Base64, whole.
    QCOMPARE(MetricsExposition::keyLabel("lock:ü"), QByteArray("lock:ü"));
    const QByteArray binary("lock:\xff\xfe", 7);
    QCOMPARE(MetricsExposition::keyLabel(binary), "base64:" + binary.toBase64());
    QCOMPARE(MetricsExposition::formatValue(3), QByteArray("3"));
    QCOMPARE(MetricsExposition::formatValue(0.25), QByteArray("0.25"));
    QCOMPARE(MetricsExposition::formatValue(qQNaN()), QByteArray("NaN"));
    QCOMPARE(MetricsExposition::formatValue(qInf()), QByteArray("+Inf"));
    QCOMPARE(MetricsExposition::formatValue(-qInf()), QByteArray("-Inf"));
}

// A key with a quote, a backslash and a newline: the exposition stays one
// sample per line, Prometheus' parser reads it, and the key comes back.
void tst_MetricsExposition::keyWithQuotesAndNewlinesParses()
{
    Snapshot snap;
    snap.server.timeMs = 1'000'000;
    ObjectState s = object("lock", "lock:\"we\\ird\"\nkey");
    LockData::in(s.reading).token = "t1";
    s.reading.pttlMs = 5000;
    snap.objects.append(s);
    const QByteArray text = MetricsExposition().render(snap);
    QVERIFY2(promtoolErrors(text).isEmpty(), promtoolErrors(text).constData());
    const auto all = samples(text);
    QVERIFY(!all.isEmpty());
    const QByteArray series
        = "gatehouse_lock_pttl_seconds{key=\"lock:\\\"we\\\\ird\\\"\\nkey\",pattern=\"lock\"}";
    QVERIFY2(all.contains(series), text.constData());
    QCOMPARE(all.value(series), 5.0);
}

// Durations in seconds, ratios as ratios, counts as counts, as of the
// snapshot's time (a TTL read 2 s earlier counts down).
void tst_MetricsExposition::figuresInBaseUnits()
{
    Snapshot snap;
    snap.server.timeMs = 1'002'000;
    ObjectState limiter = object("sliding-window", "rl:api");
    limiter.reading.inWindow = 45;
    limiter.reading.limit = 60;
    LimiterData::in(limiter.reading).retryHorizonMs = 4500;
    snap.objects.append(limiter);
    ObjectState lock = object("lock", "lock:job");
    LockData::in(lock.reading).token = "abc";
    lock.reading.pttlMs = 30000;
    lock.heldSinceMs = 990'000; // Gatehouse saw this holder take it
    snap.objects.append(lock);
    ObjectState queue = object("reliable-queue", "q:mail");
    queue.reading.editQueue().length = 7;
    queue.reading.editQueue().inFlight = 3;
    queue.reading.editQueue().stuck = 2;
    queue.reading.editQueue().oldestInFlightAgeMs = 61000;
    snap.objects.append(queue);
    ObjectState failed = object("reliable-queue", "q:broken");
    failed.reading.status = Reading::Status::Error;
    snap.objects.append(failed);

    const QByteArray text = MetricsExposition().render(snap);
    QVERIFY2(promtoolErrors(text).isEmpty(), promtoolErrors(text).constData());
    const auto all = samples(text);
    const auto v = [&](const char *series) {
        if (!all.contains(series))
            qWarning("missing %s in\n%s", series, text.constData());
        return all.value(series, -12345);
    };
    QCOMPARE(v("gatehouse_limiter_in_window{key=\"rl:api\",pattern=\"sliding-window\"}"), 45.0);
    QCOMPARE(v("gatehouse_limiter_occupancy{key=\"rl:api\",pattern=\"sliding-window\"}"), 0.75);
    QCOMPARE(v("gatehouse_limiter_limit{key=\"rl:api\",pattern=\"sliding-window\"}"), 60.0);
    QCOMPARE(v("gatehouse_limiter_retry_horizon_seconds{key=\"rl:api\",pattern=\"sliding-"
               "window\"}"),
             2.5);
    QCOMPARE(v("gatehouse_lock_pttl_seconds{key=\"lock:job\",pattern=\"lock\"}"), 28.0);
    QCOMPARE(v("gatehouse_lock_held_seconds{key=\"lock:job\",pattern=\"lock\"}"), 12.0);
    QCOMPARE(v("gatehouse_lock_held_exact{key=\"lock:job\",pattern=\"lock\"}"), 1.0);
    QCOMPARE(v("gatehouse_queue_stuck{key=\"q:mail\",pattern=\"reliable-queue\"}"), 2.0);
    QCOMPARE(v("gatehouse_queue_length{key=\"q:mail\",pattern=\"reliable-queue\"}"), 7.0);
    QCOMPARE(v("gatehouse_queue_oldest_in_flight_age_seconds{key=\"q:mail\",pattern=\"reliable-"
               "queue\"}"),
             63.0);
    // A failed reading has no figures (its zeros did not happen), but counts.
    QVERIFY(!text.contains("key=\"q:broken\""));
    QCOMPARE(v("gatehouse_objects{section=\"queue\",pattern=\"reliable-queue\",state=\"error\"}"),
             1.0);
    // HELP and TYPE once per family, before its samples.
    QCOMPARE(text.count("# TYPE gatehouse_queue_stuck gauge\n"), 1);
    QVERIFY(text.indexOf("# HELP gatehouse_queue_stuck ") < text.indexOf("gatehouse_queue_stuck{"));
}

// A library queue's wait and run quantiles are one Prometheus summary each,
// a sample per quantile, in seconds; the oldest waiting job a gauge. Beyond
// the cap no quantile is folded into "<other>": a quantile of many queues'
// quantiles is no queue's.
void tst_MetricsExposition::latencyIsASummary()
{
    Snapshot snap;
    snap.server.timeMs = 1'002'000;
    ObjectState q = object("bullmq", "bull:mail");
    JobTimes &t = q.reading.latency();
    t.waitSamples = t.runSamples = 20;
    t.wait[0] = 1500;
    t.wait[1] = 2500;
    t.wait[2] = 2900;
    t.run[0] = 120;
    t.run[1] = 300;
    t.run[2] = 450;
    t.oldestWaitingAgeMs = 4000;
    snap.objects.append(q);
    ObjectState other = q;
    other.object.edit().key = "bull:zz";
    snap.objects.append(other);
    MetricsExposition exposition;
    exposition.maxObjectsPerPattern = 1;
    const QByteArray text = exposition.render(snap);
    QVERIFY2(promtoolErrors(text).isEmpty(), promtoolErrors(text).constData());
    const auto all = samples(text);
    const QByteArray labels = "{key=\"bull:mail\",pattern=\"bullmq\"";
    QCOMPARE(all.value("gatehouse_queue_job_wait_seconds" + labels + ",quantile=\"0.5\"}"), 1.5);
    QCOMPARE(all.value("gatehouse_queue_job_wait_seconds" + labels + ",quantile=\"0.95\"}"), 2.5);
    QCOMPARE(all.value("gatehouse_queue_job_wait_seconds" + labels + ",quantile=\"0.99\"}"), 2.9);
    QCOMPARE(all.value("gatehouse_queue_job_run_seconds" + labels + ",quantile=\"0.95\"}"), 0.3);
    // Projected to the snapshot's time, 2 s after the reading.
    QCOMPARE(all.value("gatehouse_queue_oldest_waiting_age_seconds" + labels + '}'), 6.0);
    QCOMPARE(text.count("# TYPE gatehouse_queue_job_wait_seconds summary\n"), 1);
    QCOMPARE(text.count("# TYPE gatehouse_queue_job_run_seconds summary\n"), 1);
    QVERIFY(!text.contains("wait_p95"));
    QVERIFY(!text.contains("job_wait_seconds{key=\"<other>\""));
    QVERIFY(text.contains("gatehouse_queue_oldest_waiting_age_seconds{key=\"<other>\""));
}

// Every registered pattern, with a library's counts by state: the text
// parses, and every figure the pattern declares is there.
void tst_MetricsExposition::everyPatternLints()
{
    Snapshot snap;
    snap.server.timeMs = 1'000'000;
    for (const PatternUnit *unit : PatternRegistry::instance().units()) {
        ObjectState s;
        s.object.edit().kind = unit->kind();
        s.object.edit().key = unit->kind().id().toUtf8() + ":1";
        s.reading.atMs = snap.server.timeMs;
        s.reading.limit = 10;
        s.reading.editQueue().oldestInFlightAgeMs = 5;
        LimiterData::in(s.reading).retryHorizonMs = 5;
        s.reading.pttlMs = 5;
        TokenData::in(s.reading).minTtlMs = 5;
        TokenData::in(s.reading).maxTtlMs = 5;
        if (!unit->library().isEmpty()) {
            s.reading.editLibrary().counts
                = {{QStringLiteral("wait"), 3}, {QStringLiteral("active"), 1}};
            JobTimes &t = s.reading.latency();
            t.waitSamples = t.runSamples = 3;
            t.wait[0] = t.wait[1] = t.wait[2] = 1000;
            t.run[0] = t.run[1] = t.run[2] = 2000;
            t.oldestWaitingAgeMs = 3000;
        }
        snap.objects.append(s);
    }
    const QByteArray text = MetricsExposition().render(snap);
    QVERIFY2(promtoolErrors(text).isEmpty(), promtoolErrors(text).constData());
    const auto all = samples(text);
    QVERIFY(!all.isEmpty());
    for (const ObjectState &s : snap.objects) {
        const PatternUnit *unit = &PatternUnit::of(s.object->kind);
        const QByteArray labels = "{key=\"" + unit->kind().id().toUtf8() + ":1\",pattern=\""
                                  + unit->kind().id().toUtf8() + "\"";
        for (const Figure &f : unit->figures()) {
            const QByteArray name = MetricsExposition::figureMetricName(
                unit->section().id, f.summary.isEmpty() ? f.id : f.summary, f.isDuration);
            const double value = f.value(s.reading, snap.server.timeMs);
            if (std::isnan(value) || (f.isDuration && value < 0))
                continue;
            const QByteArray quantile = f.summary.isEmpty()
                                            ? QByteArray()
                                            : ",quantile=\"" + QByteArray::number(f.quantile) + '"';
            QVERIFY2(all.contains(name + labels + quantile + '}'),
                     QByteArray(name + labels + quantile).constData());
        }
        if (!unit->library().isEmpty()) {
            const QByteArray name = "gatehouse_" + unit->section().id.toUtf8() + "_in_state";
            QCOMPARE(all.value(name + labels + ",state=\"wait\"}"), 3.0);
        }
    }
}

// Beyond the cap, a pattern's objects fold into key="<other>": the sum and
// the maximum of each figure; the lowest keys stay individual, the same
// ones every time.
void tst_MetricsExposition::cardinalityCapAggregates()
{
    Snapshot snap;
    snap.server.timeMs = 1'000'000;
    for (int i = 9; i >= 0; --i) { // not in key order
        ObjectState s = object("reliable-queue", "q:" + QByteArray::number(i));
        s.reading.editQueue().length = i;
        s.reading.editQueue().stuck = 1;
        snap.objects.append(s);
    }
    ObjectState limiter = object("sliding-window", "rl:1");
    limiter.reading.inWindow = 4;
    snap.objects.append(limiter);
    MetricsExposition exposition;
    exposition.maxObjectsPerPattern = 3;
    const QByteArray text = exposition.render(snap);
    QVERIFY2(promtoolErrors(text).isEmpty(), promtoolErrors(text).constData());
    const auto all = samples(text);
    for (int i = 0; i < 10; ++i) {
        const QByteArray series = "gatehouse_queue_length{key=\"q:" + QByteArray::number(i)
                                  + "\",pattern=\"reliable-queue\"}";
        QCOMPARE(all.contains(series), i < 3);
    }
    const QByteArray other = "{key=\"<other>\",pattern=\"reliable-queue\"";
    QCOMPARE(all.value("gatehouse_queue_length" + other + ",aggregate=\"sum\"}"),
             3.0 + 4 + 5 + 6 + 7 + 8 + 9);
    QCOMPARE(all.value("gatehouse_queue_length" + other + ",aggregate=\"max\"}"), 9.0);
    QCOMPARE(all.value("gatehouse_queue_stuck" + other + ",aggregate=\"sum\"}"), 7.0);
    QCOMPARE(all.value("gatehouse_objects_aggregated{pattern=\"reliable-queue\"}"), 7.0);
    QCOMPARE(all.value("gatehouse_objects{section=\"queue\",pattern=\"reliable-queue\",state="
                       "\"ok\"}"),
             10.0);
    // Another pattern under the cap is untouched.
    QCOMPARE(all.value("gatehouse_limiter_in_window{key=\"rl:1\",pattern=\"sliding-window\"}"),
             4.0);
    QCOMPARE(all.value("gatehouse_objects_aggregated{pattern=\"sliding-window\"}"), 0.0);
    // Series per pattern: at most cap x figures + 2 x figures, whatever the count.
    int queueSeries = 0;
    for (auto it = all.cbegin(); it != all.cend(); ++it)
        queueSeries += it.key().startsWith("gatehouse_queue_");
    // length, in flight, stuck (the oldest age is unknown: no series)
    QCOMPARE(queueSeries, (3 + 2) * 3);
}

void tst_MetricsExposition::nodesAndConsole()
{
    Snapshot snap;
    snap.server.timeMs = 1'700'000'000'123;
    snap.server.lastReadingAgeMs = 250;
    NodeStatus n;
    n.address = QStringLiteral("127.0.0.1:6379");
    n.role = QStringLiteral("master");
    n.version = QStringLiteral("7.0.15");
    n.usedMemoryBytes = 1048576;
    n.connectedClients = 4;
    n.opsPerSec = 17;
    n.connection.state = ConnectionState::Ready;
    snap.server.nodes = {n};
    ConsoleFigures console;
    console.lastTick = {42, 1200, 3, 400};
    console.cpuSeconds = 1.5;
    console.snapshotAgeSeconds = 0.2;
    console.scrapes = 9;
    const QByteArray text
        = MetricsExposition().render(snap) + MetricsExposition::renderConsole(console);
    QVERIFY2(promtoolErrors(text).isEmpty(), promtoolErrors(text).constData());
    const auto all = samples(text);
    QCOMPARE(all.value("gatehouse_node_up{node=\"127.0.0.1:6379\"}"), 1.0);
    QCOMPARE(all.value("gatehouse_node_used_memory_bytes{node=\"127.0.0.1:6379\"}"), 1048576.0);
    QCOMPARE(all.value("gatehouse_node_connected_clients{node=\"127.0.0.1:6379\"}"), 4.0);
    QCOMPARE(all.value("gatehouse_node_ops_per_second{node=\"127.0.0.1:6379\"}"), 17.0);
    QCOMPARE(all.value("gatehouse_node_info{node=\"127.0.0.1:6379\",role=\"master\",version=\"7.0."
                       "15\",mode=\"standalone\"}"),
             1.0);
    QCOMPARE(all.value("gatehouse_reading_age_seconds"), 0.25);
    QCOMPARE(all.value("gatehouse_console_tick_duration_seconds"), 0.042);
    // A tick under a millisecond is measured in µs, not shown as 0.
    ConsoleFigures quick;
    quick.lastTick = {0, 14, 1, 3, 420};
    QCOMPARE(samples(MetricsExposition::renderConsole(quick))
                 .value("gatehouse_console_tick_duration_seconds"),
             0.00042);
    QCOMPARE(all.value("gatehouse_console_tick_commands"), 1200.0);
    QCOMPARE(all.value("gatehouse_console_cpu_seconds_total"), 1.5);
    QCOMPARE(all.value("gatehouse_console_scrapes_total"), 9.0);
    QCOMPARE(all.value("gatehouse_server_time_seconds"), 1'700'000'000.123);
    QVERIFY(text.contains("# TYPE gatehouse_console_cpu_seconds_total counter\n"));
}

// A server stopped or asleep keeps its socket open: the connection is
// ready, yet nothing answers. Its node is down once its last reply is three
// ticks old, and the readings it can no longer confirm (stale) are not
// exported as current: their series stop, only their count says so.
void tst_MetricsExposition::silentNodeAndStaleReadings()
{
    Snapshot snap;
    snap.server.timeMs = 1'700'000'000'000;
    snap.server.intervalMs = 1000;
    NodeStatus n;
    n.address = QStringLiteral("127.0.0.1:6379");
    n.connection.state = ConnectionState::Ready;
    n.lastReadingAgeMs = 2500;
    snap.server.nodes = {n};
    ObjectState fresh = object("lock", "lock:fresh");
    LockData::in(fresh.reading).token = "abc";
    fresh.reading.pttlMs = 30000;
    snap.objects.append(fresh);
    ObjectState stale = object("lock", "lock:stale");
    LockData::in(stale.reading).token = "def";
    stale.reading.pttlMs = 30000;
    stale.stale = true;
    snap.objects.append(stale);
    auto all = samples(MetricsExposition().render(snap));
    QCOMPARE(all.value("gatehouse_node_up{node=\"127.0.0.1:6379\"}", -1), 1.0);
    const QByteArray ttl = "gatehouse_lock_pttl_seconds{key=\"lock:%1\",pattern=\"lock\"}";
    QVERIFY(all.contains(QByteArray(ttl).replace("%1", "fresh")));
    QVERIFY2(!all.contains(QByteArray(ttl).replace("%1", "stale")),
             "a stale reading exported as current");
    QCOMPARE(all.value("gatehouse_objects{section=\"lock\",pattern=\"lock\",state=\"stale\"}", -1),
             1.0);
    // Silent for more than three ticks: down, and the alert figure agrees.
    snap.server.nodes[0].lastReadingAgeMs = 3500;
    all = samples(MetricsExposition().render(snap));
    QCOMPARE(all.value("gatehouse_node_up{node=\"127.0.0.1:6379\"}", -1), 0.0);
    snap.server.nodes[0].lastReadingAgeMs = 2500;
    snap.server.nodes[0].connection.state = ConnectionState::Reconnecting;
    all = samples(MetricsExposition().render(snap));
    QCOMPARE(all.value("gatehouse_node_up{node=\"127.0.0.1:6379\"}", -1), 0.0);
}

// Two deployments in one scrape (serve --deployment): every sample of each
// carries its deployment="..." label first, each family's HELP and TYPE
// once with the samples of both under it, and promtool reads it.
void tst_MetricsExposition::deploymentsMergeIntoOneExposition()
{
    const auto snapshotWith = [&](const QByteArray &lockKey, qint64 pttlMs) {
        Snapshot snap;
        snap.server.timeMs = 1'000'000;
        snap.server.lastReadingAgeMs = 100;
        ObjectState lock = object("lock", lockKey);
        LockData::in(lock.reading).token = "t";
        lock.reading.pttlMs = pttlMs;
        snap.objects.append(lock);
        return snap;
    };
    MetricsExposition eu;
    eu.deployment = QStringLiteral("eu");
    MetricsExposition us;
    us.deployment = QStringLiteral("us \"east\"");
    ConsoleFigures euCost;
    euCost.lastTick = {10, 5, 1, 1};
    euCost.snapshotAgeSeconds = 0.5;
    ConsoleFigures process;
    process.cpuSeconds = 2;
    process.scrapes = 3;
    const QByteArray text = MetricsExposition::merge(
        {eu.render(snapshotWith("lock:a", 30000))
             + MetricsExposition::renderConsole(euCost, eu.deployment),
         us.render(snapshotWith("lock:b", 45000)), MetricsExposition::renderConsole(process)});
    QVERIFY2(promtoolErrors(text).isEmpty(), promtoolErrors(text).constData());
    const auto all = samples(text);
    QVERIFY(!all.isEmpty());
    const QByteArray euLock
        = "gatehouse_lock_pttl_seconds{deployment=\"eu\",key=\"lock:a\",pattern=\"lock\"}";
    const QByteArray usLock = "gatehouse_lock_pttl_seconds{deployment=\"us \\\"east\\\"\","
                              "key=\"lock:b\",pattern=\"lock\"}";
    QCOMPARE(all.value(euLock), 30.0);
    QCOMPARE(all.value(usLock), 45.0);
    QCOMPARE(all.value("gatehouse_reading_age_seconds{deployment=\"eu\"}"), 0.1);
    QCOMPARE(all.value("gatehouse_console_tick_commands{deployment=\"eu\"}"), 5.0);
    QCOMPARE(all.value("gatehouse_console_cpu_seconds_total"), 2.0);
    QCOMPARE(text.count("# TYPE gatehouse_lock_pttl_seconds "), 1);
    QCOMPARE(text.count("# HELP gatehouse_lock_pttl_seconds "), 1);
    // The second deployment's sample sits under the first one's header.
    const qsizetype header = text.indexOf("# TYPE gatehouse_lock_pttl_seconds ");
    const qsizetype next = text.indexOf("# HELP ", header);
    const QByteArray family = text.mid(header, next - header);
    QVERIFY2(family.contains("lock:a") && family.contains("lock:b"), family.constData());
    for (auto it = all.cbegin(); it != all.cend(); ++it) {
        const QByteArray &series = it.key();
        if (!series.startsWith("gatehouse_console_cpu")
            && !series.startsWith("gatehouse_console_scr"))
            QVERIFY2(series.contains("{deployment="), series.constData());
    }
}

// The console's endpoint: a source per window, labelled while there are
// several, a closed window's samples gone from the next scrape on, the
// others' indices kept.
void tst_MetricsExposition::sourcesComeAndGo()
{
    const auto snapshotWith = [&](const QByteArray &lockKey) {
        Snapshot snap;
        snap.server.timeMs = 1'000'000;
        ObjectState lock = object("lock", lockKey);
        LockData::in(lock.reading).token = "t";
        lock.reading.pttlMs = 30000;
        snap.objects.append(lock);
        return snap;
    };
    MetricsServer server;
    const int eu = server.addSource(QStringLiteral("eu"));
    const int us = server.addSource(QStringLiteral("us"));
    server.setSnapshotOf(eu, snapshotWith("lock:eu"));
    server.setSnapshotOf(us, snapshotWith("lock:us"));
    QByteArray text = server.body();
    QVERIFY2(promtoolErrors(text).isEmpty(), promtoolErrors(text).constData());
    QVERIFY(samples(text).contains(
        "gatehouse_lock_pttl_seconds{deployment=\"eu\",key=\"lock:eu\",pattern=\"lock\"}"));
    QVERIFY(samples(text).contains(
        "gatehouse_lock_pttl_seconds{deployment=\"us\",key=\"lock:us\",pattern=\"lock\"}"));

    // eu's window closed: only us is served; then us alone, unlabelled.
    server.removeSource(eu);
    server.setSnapshotOf(eu, snapshotWith("lock:late")); // a snapshot queued before
    text = server.body();
    QVERIFY2(!text.contains("lock:eu") && !text.contains("lock:late"), text.constData());
    QVERIFY(text.contains("{deployment=\"us\",key=\"lock:us\""));
    server.setSourceName(us, QString());
    text = server.body();
    QVERIFY2(promtoolErrors(text).isEmpty(), promtoolErrors(text).constData());
    QVERIFY2(
        samples(text).contains("gatehouse_lock_pttl_seconds{key=\"lock:us\",pattern=\"lock\"}"),
        text.constData());
    QVERIFY(!text.contains("deployment="));

    // A third window: a new index, the others unchanged.
    const int third = server.addSource(QStringLiteral("staging"));
    QCOMPARE(third, 2);
    server.setSourceName(us, QStringLiteral("us"));
    server.setSnapshotOf(third, snapshotWith("lock:staging"));
    text = server.body();
    QVERIFY2(promtoolErrors(text).isEmpty(), promtoolErrors(text).constData());
    QVERIFY(text.contains("{deployment=\"us\",key=\"lock:us\""));
    QVERIFY(text.contains("{deployment=\"staging\",key=\"lock:staging\""));
    QCOMPARE(text.count("# TYPE gatehouse_lock_pttl_seconds "), 1);

    // staging's deployment stopped (serve makes it again): none of its
    // samples, not its last reading as if current; read again, back.
    server.setTickCostOf(third, {3, 10, 1, 1, 3000});
    server.clearSnapshotOf(third);
    text = server.body();
    QVERIFY2(promtoolErrors(text).isEmpty(), promtoolErrors(text).constData());
    QVERIFY2(!text.contains("deployment=\"staging\""), text.constData());
    QVERIFY(text.contains("{deployment=\"us\",key=\"lock:us\""));
    server.setSnapshotOf(third, snapshotWith("lock:staging"));
    QVERIFY(server.body().contains("{deployment=\"staging\",key=\"lock:staging\""));
}

// A scrape of a snapshot like the last one (the same keys in the same
// places, some states replaced) reuses the last render's layout, and says
// exactly what a fresh rendering of that snapshot says; objects coming,
// going or gone, or another cap, make it again.
void tst_MetricsExposition::layoutKeptWhileTheObjectsAre()
{
    Snapshot first;
    first.server.timeMs = 1'000'000;
    for (int i = 0; i < 40; ++i) {
        ObjectState lock = object("lock", "lock:" + QByteArray::number(39 - i));
        LockData::in(lock.reading).token = "t" + QByteArray::number(i);
        lock.reading.pttlMs = 30000 + i;
        first.objects.append(lock);
        ObjectState queue = object("reliable-queue", "q:" + QByteArray::number(i));
        queue.reading.editQueue().length = i;
        first.objects.append(queue);
    }
    // The next snapshot: the same states shared but for two read again
    // (a lock that is now free, a queue that grew), 2 s later.
    const auto next = [&](const Snapshot &from, qsizetype replace, const ObjectState &with) {
        Snapshot s = from;
        s.server.timeMs = from.server.timeMs + 2000;
        s.objects = ObjectList();
        for (qsizetype i = 0; i < from.objects.size(); ++i) {
            if (i == replace)
                s.objects.append(with);
            else
                s.objects.append(from.objects.ptr(i));
        }
        return s;
    };
    const auto fresh = [](const Snapshot &s, int cap) {
        MetricsExposition e;
        e.maxObjectsPerPattern = cap;
        return e.render(s);
    };
    MetricsExposition exposition;
    exposition.maxObjectsPerPattern = 10;
    const QByteArray text1 = exposition.render(first);
    QCOMPARE(exposition.layoutsMade(), 1);
    QVERIFY2(promtoolErrors(text1).isEmpty(), promtoolErrors(text1).constData());

    ObjectState freed = first.objects.at(0); // lock:39, not among the 10 lowest keys
    LockData::in(freed.reading).token.clear();
    freed.reading.pttlMs = -2;
    const Snapshot second = next(first, 0, freed);
    ObjectState grown = second.objects.at(1); // q:0, one of the 10 lowest
    grown.reading.editQueue().length = 1234;
    const Snapshot third = next(second, 1, grown);
    for (const Snapshot *s : {&second, &third}) {
        const QByteArray text = exposition.render(*s);
        QCOMPARE(exposition.layoutsMade(), 1); // kept
        QCOMPARE(text, fresh(*s, 10));
        QVERIFY(text != text1);
    }
    QCOMPARE(samples(exposition.render(third))
                 .value("gatehouse_queue_length{key=\"q:0\",pattern=\"reliable-queue\"}"),
             1234.0);

    // Another key in a place: made again.
    const Snapshot renamed = next(third, 2, object("lock", "lock:0a"));
    QCOMPARE(exposition.render(renamed), fresh(renamed, 10));
    QCOMPARE(exposition.layoutsMade(), 2);
    // An object gone: made again, and it is no series of its own any more.
    ObjectState gone = renamed.objects.at(4);
    gone.gone = true;
    const Snapshot withGone = next(renamed, 4, gone);
    const QByteArray goneText = exposition.render(withGone);
    QCOMPARE(goneText, fresh(withGone, 10));
    QCOMPARE(exposition.layoutsMade(), 3);
    QVERIFY(!goneText.contains(QByteArray("key=\"" + gone.object->key + '"')));
    // One more object: made again.
    Snapshot more = withGone;
    more.objects.append(object("lock", "lock:new"));
    QCOMPARE(exposition.render(more), fresh(more, 10));
    QCOMPARE(exposition.layoutsMade(), 4);
    // Another cap: made again.
    exposition.maxObjectsPerPattern = 3;
    QCOMPARE(exposition.render(more), fresh(more, 3));
    QCOMPARE(exposition.layoutsMade(), 5);
}

void tst_MetricsExposition::layoutKeepsNoReadingAlive()
{
    // A console scraped for hours keeps its layout as long as the objects
    // are the same keys: the states it was made from must not live as long
    // (every one of them replaced since, each a reading's worth of memory).
    MetricsExposition exposition;
    exposition.maxObjectsPerPattern = 5;
    std::vector<std::weak_ptr<const ObjectState>> firstStates;
    Snapshot second;
    {
        Snapshot first;
        first.server.timeMs = 1'000'000;
        for (int i = 0; i < 20; ++i) {
            ObjectState lock = object("lock", "lock:" + QByteArray::number(i));
            LockData::in(lock.reading).token = "t" + QByteArray::number(i);
            lock.reading.pttlMs = 30000;
            first.objects.append(lock);
        }
        exposition.render(first);
        for (qsizetype i = 0; i < first.objects.size(); ++i)
            firstStates.push_back(first.objects.ptr(i));
        // Every object read again: new states, the same keys (their bytes
        // shared, as the monitor's are).
        second.server.timeMs = first.server.timeMs + 1000;
        for (const ObjectState &was : first.objects) {
            ObjectState again = was;
            again.reading.atMs = second.server.timeMs;
            again.reading.pttlMs = 29000;
            second.objects.append(again);
        }
    }
    const QByteArray text = exposition.render(second);
    QCOMPARE(exposition.layoutsMade(), 1); // the same keys in the same places: kept
    QCOMPARE(samples(text).value("gatehouse_lock_pttl_seconds{key=\"lock:0\",pattern=\"lock\"}"),
             29.0);
    for (const auto &state : firstStates)
        QVERIFY(state.expired());
}

QTEST_GUILESS_MAIN(tst_MetricsExposition)
#include "tst_metricsexposition.moc"
