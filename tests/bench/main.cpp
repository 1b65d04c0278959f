// SPDX-License-Identifier: MIT
// gatehouse-bench: Gatehouse's figures side by side with their peers.
#include "benchreport.h"
#include "redisserver.h"
#include "wirebench.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QTextStream>
#include <QThread>

using namespace gatehouse;

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
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
                                    QStringLiteral("Alternating rounds per figure (default 3)."),
                                    QStringLiteral("N"), QStringLiteral("3"));
    parser.addOptions({smoke, requests, rounds});
    parser.process(app);

    const bool isSmoke = parser.isSet(smoke);
    const int n = isSmoke ? 2000 : parser.value(requests).toInt();
    const int r = isSmoke ? 1 : parser.value(rounds).toInt();

    test::RedisServer server;
    if (!server.start()) {
        QTextStream(stderr) << "gatehouse-bench: " << server.errorString() << Qt::endl;
        return 1;
    }
    QList<bench::Figure> figures = bench::runWireBench(server.endpoint(), n, r);
    bench::report(figures,
                  QStringLiteral("%1 run: redis-server 127.0.0.1:%2, %3 requests per run, %4 "
                                 "alternating round(s), best of each side; client and server "
                                 "unpinned on %5 cores.")
                      .arg(isSmoke ? QStringLiteral("Smoke") : QStringLiteral("Full"))
                      .arg(server.port())
                      .arg(n)
                      .arg(r)
                      .arg(QThread::idealThreadCount()));
    for (const auto &f : figures) {
        if (f.peerValue <= 0 || f.value <= 0) {
            QTextStream(stderr) << "gatehouse-bench: no figure for " << f.name << Qt::endl;
            return 1;
        }
    }
    return 0;
}
