// SPDX-License-Identifier: MIT
// A chaos soak: a Sentinel set, a six-node Cluster and a server behind a TCP
// proxy, each under a steady writer of locks and watched with no profile by
// `gatehouse-cli watch --json` and by the console's Monitor (in this
// process), take a seeded random sequence of faults. After each one, with the
// writers paused, what every watch prints and every console shows two ticks
// later must be exactly what the servers hold. docs/soak.md has the command
// and the figures.
//
//   GATEHOUSE_SOAK_SEED     the fault sequence (default 1)
//   GATEHOUSE_SOAK_SECONDS  run at least this long (default 60)
//   GATEHOUSE_SOAK_FAULTS   and inject at least this many faults (default:
//                           one of each type)
//
// This file holds the set-up, the run, the check of every watch and main();
// soakkit.h the helpers, soakfaults.cpp the faults, soakactions.cpp the actions.
#include "tst_soak.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <algorithm>

void tst_Soak::initTestCase()
{
    m_seed = quint32(envNumber("GATEHOUSE_SOAK_SEED", 1));
    m_rng.seed(m_seed);
    qInfo("soak: seed %u (GATEHOUSE_SOAK_SEED)", m_seed);

    m_sentinel = std::make_unique<RedisSentinel>(1, QStringLiteral("soak"));
    m_sentinel->setNodeConfig(NodeConfig);
    QVERIFY2(m_sentinel->start(), qPrintable(m_sentinel->errorString()));
    m_cluster = std::make_unique<RedisCluster>(NodeConfig);
    QVERIFY2(m_cluster->start(), qPrintable(m_cluster->errorString()));
    RedisServer::Options single;
    single.config = NodeConfig;
    m_single = std::make_unique<RedisServer>(single);
    QVERIFY2(m_single->start(), qPrintable(m_single->errorString()));
    m_proxy = std::make_unique<TcpProxy>(m_single->port());
    QVERIFY(m_proxy->start());

    QString error;
    const auto sentinelEp = RedisEndpoint::fromUrl(m_sentinel->url(), &error);
    QVERIFY2(sentinelEp, qPrintable(error));
    RedisEndpoint clusterEp = m_cluster->endpoint(0);
    clusterEp.discoverTopology = true;
    const QString urls[] = {m_sentinel->url(), m_cluster->url(0),
                            QStringLiteral("redis://127.0.0.1:%1").arg(m_proxy->port())};
    const RedisEndpoint endpoints[] = {*sentinelEp, clusterEp, m_single->endpoint()};
    const QString names[]
        = {QStringLiteral("sentinel"), QStringLiteral("cluster"), QStringLiteral("proxy")};
    for (int i = 0; i < 3; ++i) {
        Deployment d;
        d.name = names[i];
        d.url = urls[i];
        d.writer = std::make_unique<Writer>(endpoints[i], m_seed * 7919 + quint32(i));
        m_deployments.push_back(std::move(d));
    }
    // Some locks before the watches start, and the action lock.
    QVERIFY(waitWritesResume(30000));
    QTest::qWait(2000);
    for (Deployment &d : m_deployments) {
        QVERIFY2(plantAction(d), qPrintable(d.name));
        QVERIFY2(plantJob(d), qPrintable(d.name));
        d.watch = std::make_unique<WatchProcess>(QStringLiteral(GATEHOUSE_CLI),
                                                 QStringList{QStringLiteral("--url"), d.url,
                                                             QStringLiteral("--interval"),
                                                             QString::number(IntervalMs)});
        QVERIFY(d.watch->started());
        auto ep = RedisEndpoint::fromUrl(d.url, &error);
        QVERIFY2(ep, qPrintable(error));
        ep->discoverTopology = true; // as the connection dialog and the CLI set it
        d.consoleClient = std::make_unique<RedisClient>(*ep);
        d.consoleClient->open();
        Monitor::Options options;
        options.intervalMs = IntervalMs;
        d.console = std::make_unique<Monitor>(d.consoleClient.get(), options);
        d.console->start();
    }
    // Every watch has found the locks before the first fault; the
    // autodetector's behaviour watch (20 ticks) has run on them.
    const QList<Check> first = checkAll();
    for (const Check &c : first)
        QVERIFY2(c.firstEqualMs >= 0, qPrintable(c.deployment + QLatin1String(": ") + c.detail));
}

void tst_Soak::cleanupTestCase()
{
    m_actions.clear();
    for (Deployment &d : m_deployments) {
        d.console.reset();
        d.consoleClient.reset();
        d.watch.reset();
        d.writer.reset();
    }
    m_deployments.clear();
    m_proxy.reset();
    m_single.reset();
    m_cluster.reset();
    m_sentinel.reset();
    QCOMPARE(RedisServer::runningChildren(), 0);
}

// Pauses every writer, reads the truth from every master, notes T0 and
// compares each watch's first line printed at least BoundMs after T0, and
// each console monitor's snapshot then; then follows each until it equals
// the truth (at most ConvergeMs).
QList<Check> tst_Soak::checkAll()
{
    for (Deployment &d : m_deployments)
        d.writer->setPaused(true);
    QList<Check> checks;
    QHash<QString, QHash<QString, QString>> truths;
    const bool idle = waitUntil(
        [&] {
            return std::all_of(m_deployments.cbegin(), m_deployments.cend(),
                               [](const Deployment &d) { return d.writer->idle(); });
        },
        30000);
    if (!idle)
        m_failures << QStringLiteral("a writer did not finish its last write within 30 s");
    for (Deployment &d : m_deployments) {
        QHash<QString, QString> truth;
        bool read = false;
        for (int attempt = 0; attempt < 5 && !read; ++attempt) {
            truth.clear();
            const QList<quint16> ports = masterPorts(d);
            read = !ports.isEmpty();
            for (quint16 port : ports)
                read = read && readLocks(port, &truth);
        }
        if (!read)
            m_failures << QStringLiteral("%1: the truth could not be read").arg(d.name);
        truths.insert(d.name, truth);
    }
    QElapsedTimer t0;
    t0.start();
    // Observers: each deployment's watch, then each deployment's console
    // monitor (the window's Monitor, in this process: its "line" is the
    // snapshot as --json prints it, sampled as the loop spins).
    struct Observer
    {
        size_t deployment;
        bool console;
        QList<QJsonObject> lines; // the console's latest sample
        qsizetype bound = -1;     // the line at the bound
    };
    std::vector<Observer> observers;
    for (bool console : {false, true}) {
        for (size_t i = 0; i < m_deployments.size(); ++i)
            observers.push_back({i, console, {}, -1});
    }
    for (const Observer &o : observers) {
        Deployment &d = m_deployments[o.deployment];
        if (!o.console)
            d.watch->poll();
        Check c;
        c.deployment = o.console ? d.name + QStringLiteral(" console") : d.name;
        checks << c;
    }
    const auto compare
        = [&](const QJsonObject &line, const QHash<QString, QString> &truth, Check *c) {
              QHash<QString, QString> shown;
              int stale = 0;
              for (const QJsonValue &v : line.value(QLatin1String("locks")).toArray()) {
                  const QJsonObject o = v.toObject();
                  const QString key = o.value(QLatin1String("key")).toString();
                  if (!key.startsWith(QLatin1String("lock:soak:"))
                      || o.value(QLatin1String("gone")).toBool())
                      continue;
                  shown.insert(key, o.value(QLatin1String("token")).toString());
                  if (o.value(QLatin1String("stale")).toBool())
                      ++stale;
              }
              int lost = 0;
              int invented = 0;
              QStringList detail;
              for (auto it = truth.cbegin(); it != truth.cend(); ++it) {
                  if (!shown.contains(it.key())) {
                      ++lost;
                      detail << QStringLiteral("lost %1").arg(it.key());
                  }
              }
              for (auto it = shown.cbegin(); it != shown.cend(); ++it) {
                  if (truth.value(it.key()) != it.value()) {
                      ++invented;
                      detail << QStringLiteral("%1 shown %2, holds %3")
                                    .arg(it.key(), it.value(),
                                         truth.value(it.key(), QStringLiteral("nothing")));
                  }
              }
              if (c) {
                  c->lost = lost;
                  c->invented = invented;
                  c->stale = stale;
                  c->detail = detail.mid(0, 6).join(QStringLiteral("; "));
              }
              return lost == 0 && invented == 0 && stale == 0;
          };
    // The bound line of each observer, and the first exact line.
    waitUntil(
        [&] {
            bool pending = false;
            for (size_t i = 0; i < observers.size(); ++i) {
                Observer &o = observers[i];
                Deployment &d = m_deployments[o.deployment];
                Check &c = checks[qsizetype(i)];
                qsizetype before = 0;
                if (o.console) {
                    o.lines = {d.console->snapshot().toJson()}; // only the latest is kept
                } else {
                    before = d.watch->snapshots().size();
                    d.watch->poll();
                }
                const QList<QJsonObject> &lines = o.console ? o.lines : d.watch->snapshots();
                const QHash<QString, QString> truth = truths.value(d.name);
                for (qsizetype l = before; l < lines.size(); ++l) {
                    if (c.firstEqualMs < 0 && compare(lines.at(l), truth, nullptr))
                        c.firstEqualMs = t0.elapsed();
                    if (o.bound < 0 && t0.elapsed() >= BoundMs) {
                        o.bound = l;
                        c.exact = compare(lines.at(l), truth, &c);
                    }
                }
                if (o.bound < 0 || (!c.exact && c.firstEqualMs < 0))
                    pending = true;
            }
            return !pending;
        },
        ConvergeMs);
    for (size_t i = 0; i < observers.size(); ++i) {
        const Observer &o = observers[i];
        Check &c = checks[qsizetype(i)];
        c.convergedLater = !c.exact && c.firstEqualMs >= 0;
        if (c.firstEqualMs < 0 && c.detail.isEmpty())
            c.detail = o.console ? QStringLiteral("no snapshot")
                                 : QStringLiteral("no line printed (the watch %1)")
                                       .arg(m_deployments[o.deployment].watch->status());
        if (!c.exact)
            c.detail += QStringLiteral(" | last line: ")
                        + whereShown(o.console ? o.lines.value(o.lines.size() - 1)
                                               : m_deployments[o.deployment].watch->latest());
    }
    finishActions(truths);
    // The action lock back for the next fault (the writers stay paused).
    for (Deployment &d : m_deployments) {
        if (!truths.value(d.name).contains(QString::fromLatin1(ActionKey))
            || truths.value(d.name).value(QString::fromLatin1(ActionKey)) != d.actionToken)
            plantAction(d);
        plantJob(d); // a new job in flight for the next fault
    }
    for (Deployment &d : m_deployments)
        d.writer->setPaused(false);
    return checks;
}

void tst_Soak::soak()
{
    const qint64 seconds = envNumber("GATEHOUSE_SOAK_SECONDS", 60);
    const qint64 minFaults = envNumber("GATEHOUSE_SOAK_FAULTS", FaultTypes);
    qInfo("soak: at least %lld s and %lld faults", seconds, minFaults);
    QElapsedTimer clock;
    clock.start();
    int faults = 0;
    QList<Fault> round;
    while (clock.elapsed() < seconds * 1000 || faults < minFaults) {
        // Each round: every type once, in a seeded random order.
        if (round.isEmpty()) {
            for (int t = 0; t < FaultTypes; ++t)
                round.insert(int(m_rng.bounded(int(round.size()) + 1)), Fault(t));
        }
        const Fault fault = round.takeFirst();
        QString name;
        QString deployment;
        QElapsedTimer faultClock;
        faultClock.start();
        const bool injected = inject(fault, &name, &deployment);
        if (injected)
            ++m_injected[name];
        else
            ++m_notInjected[name];
        // Healthy again, writes succeed, two seconds of writes.
        for (Deployment &d : m_deployments) {
            if (!healthy(d, 90000))
                m_failures << QStringLiteral("%1 not healthy 90 s after %2").arg(d.name, name);
        }
        if (!waitWritesResume(60000))
            m_failures << QStringLiteral("writes did not resume after %1").arg(name);
        QTest::qWait(2000);
        const QList<Check> checks = checkAll();
        bool survived = true;
        for (const Check &c : checks) {
            ++m_checks;
            m_lost += c.lost;
            m_invented += c.invented;
            m_stale += c.stale;
            if (c.firstEqualMs >= 0)
                m_longestMs = std::max(m_longestMs, c.firstEqualMs);
            if (!c.exact) {
                survived = false;
                ++m_pastBound;
                if (c.firstEqualMs < 0)
                    ++m_neverConverged;
                m_failures
                    << QStringLiteral("after %1 (fault %2): %3 at %4 ms: %5 lost, %6 "
                                      "invented, %7 stale; %8 (%9)")
                           .arg(name)
                           .arg(faults + 1)
                           .arg(c.deployment)
                           .arg(BoundMs)
                           .arg(c.lost)
                           .arg(c.invented)
                           .arg(c.stale)
                           .arg(c.convergedLater
                                    ? QStringLiteral("exact %1 ms after T0").arg(c.firstEqualMs)
                                    : QStringLiteral("not exact within %1 ms").arg(ConvergeMs),
                                c.detail);
            }
        }
        if (injected && survived)
            ++m_survived;
        ++faults;
        if (!survived) {
            // Printed now: a run cut by CTest's timeout still shows what differed.
            for (const Check &c : checks) {
                if (c.exact)
                    continue;
                QStringList events;
                for (const Deployment &d : std::as_const(m_deployments)) {
                    if (d.name != c.deployment)
                        continue;
                    for (const QJsonObject &e : d.watch->allEvents().mid(
                             std::max<qsizetype>(0, d.watch->allEvents().size() - 8)))
                        events << QString::fromUtf8(
                            QJsonDocument(e).toJson(QJsonDocument::Compact));
                }
                qWarning("soak: fault %d %s: %s not exact: %s\nsoak:   its last events: %s", faults,
                         qPrintable(name), qPrintable(c.deployment), qPrintable(c.detail),
                         qPrintable(events.join(QStringLiteral("\nsoak:     "))));
            }
        }
        QStringList figures;
        for (const Check &c : checks)
            figures << QStringLiteral("%1 %2").arg(
                c.deployment, c.exact ? QStringLiteral("exact@%1ms").arg(c.firstEqualMs)
                                      : QStringLiteral("DIFFERENT"));
        qInfo("soak: fault %d %s%s (%lld ms): %s", faults, qPrintable(name),
              injected ? "" : " (not injected)", faultClock.elapsed(),
              qPrintable(figures.join(QStringLiteral(", "))));
        // A watch that never equalled the truth will not be told apart by more faults,
        // and each further check would wait ConvergeMs: end here with the summary.
        if (std::any_of(checks.cbegin(), checks.cend(),
                        [](const Check &c) { return c.firstEqualMs < 0; })) {
            m_failures << QStringLiteral("the run ended after fault %1: a watch never equalled "
                                         "the truth")
                              .arg(faults);
            break;
        }
    }

    // The summary, and one machine-readable line.
    QJsonObject byType;
    int injectedTotal = 0;
    for (auto it = m_injected.cbegin(); it != m_injected.cend(); ++it) {
        byType.insert(it.key(), it.value());
        injectedTotal += it.value();
    }
    QJsonObject notInjected;
    for (auto it = m_notInjected.cbegin(); it != m_notInjected.cend(); ++it)
        notInjected.insert(it.key(), it.value());
    QJsonObject actions;
    int actionsTotal = 0;
    for (auto it = m_actionOutcomes.cbegin(); it != m_actionOutcomes.cend(); ++it) {
        actions.insert(it.key(), it.value());
        actionsTotal += it.value();
    }
    qint64 writes = 0;
    qint64 writeFailures = 0;
    for (const Deployment &d : std::as_const(m_deployments)) {
        writes += d.writer->succeeded();
        writeFailures += d.writer->failed();
    }
    const QJsonObject summary{
        {QStringLiteral("seed"), qint64(m_seed)},
        {QStringLiteral("seconds"), clock.elapsed() / 1000},
        {QStringLiteral("faults"), injectedTotal},
        {QStringLiteral("faultsByType"), byType},
        {QStringLiteral("notInjected"), notInjected},
        {QStringLiteral("survived"), m_survived},
        {QStringLiteral("checks"), m_checks},
        {QStringLiteral("boundMs"), BoundMs},
        {QStringLiteral("longestDifferentMs"), m_longestMs},
        {QStringLiteral("pastBound"), m_pastBound},
        {QStringLiteral("neverConverged"), m_neverConverged},
        {QStringLiteral("lost"), m_lost},
        {QStringLiteral("invented"), m_invented},
        {QStringLiteral("stale"), m_stale},
        {QStringLiteral("actions"), actionsTotal},
        {QStringLiteral("actionOutcomes"), actions},
        {QStringLiteral("actionViolations"), m_actionViolations},
        {QStringLiteral("writes"), writes},
        {QStringLiteral("writesRefused"), writeFailures},
    };
    qInfo("soak: ---- summary (seed %u) ----", m_seed);
    qInfo("soak: %lld s, %d faults injected, %d survived (every watch exact %d ms after the "
          "truth was read)",
          clock.elapsed() / 1000, injectedTotal, m_survived, BoundMs);
    for (auto it = m_injected.cbegin(); it != m_injected.cend(); ++it)
        qInfo("soak:   %-22s %d", qPrintable(it.key()), it.value());
    for (auto it = m_notInjected.cbegin(); it != m_notInjected.cend(); ++it)
        qInfo("soak:   %-22s %d refused by the deployment", qPrintable(it.key()), it.value());
    qInfo("soak: checks %d; longest shown different after the server was reachable: %lld ms; "
          "past the bound %d (never converged %d)",
          m_checks, m_longestMs, m_pastBound, m_neverConverged);
    qInfo("soak: objects lost %d, invented %d, stale %d (at the bound line)", m_lost, m_invented,
          m_stale);
    qInfo("soak: actions %d, violations %d", actionsTotal, m_actionViolations);
    for (auto it = m_actionOutcomes.cbegin(); it != m_actionOutcomes.cend(); ++it)
        qInfo("soak:   %-52s %d", qPrintable(it.key()), it.value());
    qInfo("soak: writes %lld acknowledged, %lld refused or lost in faults", writes, writeFailures);
    qInfo("SOAK %s", QJsonDocument(summary).toJson(QJsonDocument::Compact).constData());

    QVERIFY2(m_failures.isEmpty(), qPrintable(m_failures.join(QLatin1Char('\n'))));
    QCOMPARE(m_pastBound, 0);
    QCOMPARE(m_lost, 0);
    QCOMPARE(m_invented, 0);
    QCOMPARE(m_actionViolations, 0);
    QVERIFY(injectedTotal > 0);
}

int main(int argc, char **argv)
{
    // The run is one test function: Qt Test's watchdog (5 minutes by
    // default, QTEST_FUNCTION_TIMEOUT in ms) waits for the whole of it.
    if (!qEnvironmentVariableIsSet("QTEST_FUNCTION_TIMEOUT"))
        qputenv("QTEST_FUNCTION_TIMEOUT",
                QByteArray::number((2 * envNumber("GATEHOUSE_SOAK_SECONDS", 60) + 900) * 1000));
    QCoreApplication app(argc, argv);
    tst_Soak test;
    QTEST_SET_MAIN_SOURCE_PATH
    return QTest::qExec(&test, argc, argv);
}
