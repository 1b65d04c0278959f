// SPDX-License-Identifier: MIT
// gatehouse-bench: Gatehouse's figures side by side with their peers.
#include "benchreport.h"
#include "clusterbench.h"
#include "guibench.h"
#include "limiterbench.h"
#include "millionbench.h"
#include "monitorbench.h"
#include "overheadbench.h"
#include "redisserver.h"
#include "searchbench.h"
#include "wirebench.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QTextStream>
#include <QThread>

#include <sched.h>

using namespace gatehouse;

int main(int argc, char *argv[])
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") && qEnvironmentVariableIsEmpty("DISPLAY"))
        qputenv("QT_QPA_PLATFORM", "offscreen"); // figure 4 runs the console without a display
    QApplication app(argc, argv);
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Runs Gatehouse's benchmarks against its own redis-server, each beside its peer."));
    parser.addHelpOption();
    const QCommandLineOption smoke(QStringLiteral("smoke"),
                                   QStringLiteral("Tiny sizes: checks the harness runs; the "
                                                  "figures mean nothing."));
    const QCommandLineOption requests(QStringLiteral("requests"),
                                      QStringLiteral("Requests per wire run (default 1000000)."),
                                      QStringLiteral("N"), QStringLiteral("1000000"));
    const QCommandLineOption rounds(QStringLiteral("rounds"),
                                    QStringLiteral("Alternating rounds per figure (default 3; the "
                                                   "overhead group 5)."),
                                    QStringLiteral("N"), QStringLiteral("3"));
    const QCommandLineOption only(QStringLiteral("only"),
                                  QStringLiteral("Run one group: wire, discovery, refresh, gui, "
                                                 "limiter, overhead, cluster or million."),
                                  QStringLiteral("group"));
    const QCommandLineOption overheadSeconds(
        QStringLiteral("overhead-seconds"),
        QStringLiteral("overhead: seconds of watching per run (default 60: whole minutes, as the "
                       "history file folds its minute once a minute)."),
        QStringLiteral("S"), QStringLiteral("60"));
    const QCommandLineOption overheadFeatures(
        QStringLiteral("overhead-features"),
        QStringLiteral("overhead: which figures to run, 1-based and comma-separated (1: serve "
                       "with history and metrics every 15 s, 2: metrics every 15 s, 3: metrics "
                       "every second, 4: the desktop console, 5: the instrument check, two "
                       "baselines); default all."),
        QStringLiteral("list"));
    // The million group's console side runs in a child: its memory is its own.
    QCommandLineOption millionGui(QStringLiteral("million-gui"),
                                  QStringLiteral("(internal) million: the console's side."),
                                  QStringLiteral("url"));
    millionGui.setFlags(QCommandLineOption::HiddenFromHelp);
    // For profiling discovery by hand: fill a server of your own and return.
    QCommandLineOption millionFill(QStringLiteral("million-fill"),
                                   QStringLiteral("Fill the server at url with the million "
                                                  "group's keyspace (FLUSHALL first)."),
                                   QStringLiteral("url"));
    // For profiling the overhead group's console by hand: fill a server of
    // your own, write the profile, and return.
    QCommandLineOption overheadFill(QStringLiteral("overhead-fill"),
                                    QStringLiteral("Fill the server at url with the overhead "
                                                   "group's objects (FLUSHALL first) and write "
                                                   "their profile to --overhead-profile."),
                                    QStringLiteral("url"));
    QCommandLineOption overheadProfile(QStringLiteral("overhead-profile"),
                                       QStringLiteral("overhead-fill: where the profile goes."),
                                       QStringLiteral("file"),
                                       QStringLiteral("bench-profile.json"));
    parser.addOptions({smoke, requests, rounds, only, overheadSeconds, overheadFeatures, millionGui,
                       millionFill, overheadFill, overheadProfile});
    parser.process(app);
    if (parser.isSet(millionGui))
        return bench::runMillionGuiChild(parser.value(millionGui));
    if (parser.isSet(millionFill))
        return bench::runMillionFill(parser.value(millionFill), 1000000);
    if (parser.isSet(overheadFill))
        return bench::runOverheadFill(parser.value(overheadFill), parser.value(overheadProfile));

    const bool isSmoke = parser.isSet(smoke);
    const int n = isSmoke ? 2000 : parser.value(requests).toInt();
    const int r = isSmoke ? 1 : parser.value(rounds).toInt();

    test::RedisServer server;
    if (!server.start()) {
        QTextStream(stderr) << "gatehouse-bench: " << server.errorString() << Qt::endl;
        return 1;
    }
    // Server on the last core, this client (all its threads) on the others,
    // for both sides of every figure: a client's CPU does not steal from the
    // server it measures. Peers (redis-benchmark) inherit the client's set.
    QString placement = QStringLiteral("client and server unpinned");
    const int cores = QThread::idealThreadCount();
    if (cores >= 2) {
        cpu_set_t serverSet;
        cpu_set_t clientSet;
        CPU_ZERO(&serverSet);
        CPU_ZERO(&clientSet);
        CPU_SET(cores - 1, &serverSet);
        for (int c = 0; c < cores - 1; ++c)
            CPU_SET(c, &clientSet);
        if (sched_setaffinity(pid_t(server.pid()), sizeof serverSet, &serverSet) == 0
            && sched_setaffinity(0, sizeof clientSet, &clientSet) == 0)
            placement = QStringLiteral("redis-server pinned to core %1, clients to cores 0-%2")
                            .arg(cores - 1)
                            .arg(cores - 2);
    }
    const QString group = parser.value(only);
    static const QStringList s_groups{
        QStringLiteral("wire"),    QStringLiteral("discovery"), QStringLiteral("refresh"),
        QStringLiteral("gui"),     QStringLiteral("limiter"),   QStringLiteral("overhead"),
        QStringLiteral("cluster"), QStringLiteral("million"),   QStringLiteral("search")};
    if (!group.isEmpty() && !s_groups.contains(group)) {
        QTextStream(stderr) << "gatehouse-bench: unknown group \"" << group << "\"; use one of "
                            << s_groups.join(QLatin1String(", ")) << "." << Qt::endl;
        return 2;
    }
    bench::MonitorBenchSizes sizes;
    if (isSmoke) {
        sizes.keys = 20000;
        sizes.limiters = 200;
        sizes.locks = 200;
        sizes.queues = 20;
        sizes.eventWrites = 20;
        sizes.observerSegmentMs = 300;
    }
    QList<bench::Figure> figures;
    if (group.isEmpty() || group == QLatin1String("wire"))
        figures += bench::runWireBench(server.endpoint(), n, r);
    if (group.isEmpty() || group == QLatin1String("discovery"))
        figures += bench::runDiscoveryBench(server.endpoint(), sizes, r);
    if (group.isEmpty() || group == QLatin1String("refresh"))
        figures += bench::runRefreshBench(server.endpoint(), sizes, r);
    if (group.isEmpty() || group == QLatin1String("gui")) {
        // A desktop console is not pinned: its GUI and monitor threads and the
        // server share every core, as on an operator's machine.
        cpu_set_t all;
        CPU_ZERO(&all);
        for (int c = 0; c < cores; ++c)
            CPU_SET(c, &all);
        sched_setaffinity(0, sizeof all, &all);
        sched_setaffinity(pid_t(server.pid()), sizeof all, &all);
        for (bool events : {true, false}) {
            auto gui = bench::runGuiBench(server.endpoint(), sizes, isSmoke ? 2 : 60, events);
            if (!gui.isEmpty())
                gui.first().note += QStringLiteral(" Client and server unpinned for this figure.");
            figures += gui;
        }
    }
    if (group.isEmpty() || group == QLatin1String("limiter"))
        figures += bench::runLimiterBench(server.endpoint(), isSmoke ? 2000 : 200000, r);
    if (group.isEmpty() || group == QLatin1String("overhead")) {
        QList<int> which;
        for (const QString &n :
             parser.value(overheadFeatures).split(QLatin1Char(','), Qt::SkipEmptyParts)) {
            bool ok = false;
            which.append(n.trimmed().toInt(&ok));
            if (!ok || which.last() < 1 || which.last() > int(bench::overheadFeatures().size())) {
                QTextStream(stderr)
                    << "gatehouse-bench: --overhead-features \"" << parser.value(overheadFeatures)
                    << "\" is not a list of figures from 1 to " << bench::overheadFeatures().size()
                    << " (e.g. 1,2)." << Qt::endl;
                return 2;
            }
        }
        figures += bench::runOverheadBench(
            server.endpoint(), sizes,
            isSmoke ? 2 : std::max(1, parser.value(overheadSeconds).toInt()),
            // A ratio of CPU times moves by +-10 % from round to round on a
            // quiet machine: five pairs by default (CI runs --smoke only).
            isSmoke || parser.isSet(rounds) ? r : 5, which);
    }
    if (group.isEmpty() || group == QLatin1String("cluster")) {
        bench::ClusterBenchSizes clusterSizes;
        if (isSmoke)
            clusterSizes = {3000, 60, 60, 6};
        figures += bench::runClusterBench(clusterSizes, r);
    }
    if (group.isEmpty() || group == QLatin1String("search"))
        figures += bench::runSearchBench(server.endpoint(),
                                         qEnvironmentVariableIsSet("GATEHOUSE_SEARCH_JOBS")
                                             ? qEnvironmentVariableIntValue("GATEHOUSE_SEARCH_JOBS")
                                         : isSmoke ? 5000
                                                   : 1000000,
                                         isSmoke ? 2 : 10, isSmoke ? 300 : 1500);
    if (group.isEmpty() || group == QLatin1String("million"))
        figures += bench::runMillionBench(server.endpoint(), isSmoke ? 20000 : 1000000);
    bench::report(figures,
                  QStringLiteral("%1 run: redis-server 127.0.0.1:%2, %3 requests per run, %4 "
                                 "alternating round(s), best of each side; %5.")
                      .arg(isSmoke ? QStringLiteral("Smoke") : QStringLiteral("Full"))
                      .arg(server.port())
                      .arg(n)
                      .arg(r)
                      .arg(placement));
    for (const auto &f : figures) {
        if (!f.atMost && (f.peerValue <= 0 || f.value <= 0)) {
            QTextStream(stderr) << "gatehouse-bench: no figure for " << f.name << Qt::endl;
            return 1;
        }
    }
    return 0;
}
