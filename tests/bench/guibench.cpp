// SPDX-License-Identifier: MIT
#include "guibench.h"

#include "redisserver.h"

#include <deployment/deployment.h>
#include <mainwindow.h>
#include <monitor/monitor.h>
#include <objecttablemodel.h>
#include <sectionpage.h>

#include <QElapsedTimer>
#include <QEventLoop>
#include <QTableView>
#include <QThread>
#include <QTimer>

#include <algorithm>
#include <cmath>

namespace gatehouse::bench {

QList<Figure> runGuiBench(const RedisEndpoint &endpoint, const MonitorBenchSizes &sizes,
                          int seconds, bool events)
{
    const auto connection = test::connectedClient(endpoint);
    if (!connection)
        return {};
    RedisClient &client = *connection;
    test::call(client, {"FLUSHALL"});
    test::call(client, {"CONFIG", "SET", "notify-keyspace-events", events ? "KEA" : ""});
    populateTracked(client, sizes);

    // As the application does it: the monitor and its client on a thread of
    // their own, the actions' client and the window's reads on the GUI thread.
    QThread thread;
    thread.start();
    Deployment::Options options;
    options.endpoint = endpoint;
    options.monitor.profile = benchProfile();
    options.monitor.intervalMs = 1000;
    options.retryFirstConnection = true;
    options.thread = &thread;
    options.actions = true;
    auto deployment = std::make_unique<Deployment>(std::move(options));
    auto ownedWindow = std::make_unique<MainWindow>(deployment.get(), MainWindow::Options());
    MainWindow &window = *ownedWindow;
    window.show();
    QEventLoop wait;
    QObject::connect(deployment->monitor(), &Monitor::discoveryFinished, &wait, &QEventLoop::quit);
    deployment->start();
    wait.exec();
    // The limiters, with charts for one of them: 10,000 windows of one name
    // family are one row, expanded to select a member (as an operator does).
    window.showPage(1);
    auto *limiters = qobject_cast<SectionPage *>(window.page(1));
    bool charted = false;
    QElapsedTimer selecting;
    selecting.start();
    while (limiters && !charted && selecting.elapsed() < 10000) { // the table fills with a snapshot
        charted = limiters->selectKey("bench:rl:1") && limiters->selected();
        if (!charted) {
            QEventLoop later;
            QTimer::singleShot(50, &later, &QEventLoop::quit);
            later.exec();
        }
    }

    // The probe: a 5 ms timer; a stall is how much later than due it fires.
    QList<double> stalls;
    QElapsedTimer clock;
    QTimer probe;
    probe.setTimerType(Qt::PreciseTimer);
    probe.setInterval(5);
    qint64 last = 0;
    QObject::connect(&probe, &QTimer::timeout, &probe, [&] {
        const qint64 t = clock.nsecsElapsed();
        if (last > 0)
            stalls.append(std::max(0.0, (t - last) / 1e6 - 5.0));
        last = t;
    });
    QEventLoop run;
    QTimer::singleShot(seconds * 1000, &run, &QEventLoop::quit);
    clock.start();
    probe.start();
    run.exec();
    probe.stop();
    std::sort(stalls.begin(), stalls.end());
    const double p99 = stalls.isEmpty() ? 0 : stalls.at(qsizetype(stalls.size() * 0.99));
    const double max = stalls.isEmpty() ? 0 : stalls.last();
    const int rows = window.model(QStringLiteral("limiter"))->rowCount()
                     + window.model(QStringLiteral("lock"))->rowCount()
                     + window.model(QStringLiteral("queue"))->rowCount();
    ownedWindow.reset();
    deployment.reset(); // the monitor and its client go on their thread
    thread.quit();
    thread.wait();
    const QString note
        = QStringLiteral("%1 s, %2 probe ticks, %3 rows in the tables (families of more than "
                         "50 folded), %5, refreshing at 1 Hz, %4, monitor on its own thread, "
                         "offscreen.")
              .arg(seconds)
              .arg(stalls.size())
              .arg(rows)
              .arg(events ? QStringLiteral("keyspace events live (adaptive refresh)")
                          : QStringLiteral("keyspace events off (every object read every tick)"))
              .arg(charted ? QStringLiteral("charts of member bench:rl:1 on screen")
                           : QStringLiteral("no chart on screen (bench:rl:1 not selected)"));
    const QString suffix = events ? QString() : QStringLiteral(", events off");
    return {budgetFigure(QStringLiteral("4. GUI event-loop stall p99") + suffix,
                         QStringLiteral("ms"), p99, 16, note),
            budgetFigure(QStringLiteral("4. GUI event-loop stall max") + suffix,
                         QStringLiteral("ms"), max, 50)};
}

} // namespace gatehouse::bench
