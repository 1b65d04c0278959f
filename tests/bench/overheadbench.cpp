// SPDX-License-Identifier: MIT
#include "overheadbench.h"

#include "redisserver.h"

#include <redis/redisclient.h>

#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QProcess>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTextStream>
#include <QTimer>

#include <csignal>
#include <limits>
#include <unistd.h>

namespace gatehouse::bench {

QList<OverheadFeature> overheadFeatures()
{
    // Prometheus' own example configuration scrapes every 15 s: the
    // figure the target is for, with history written every tick.
    // Every second is the stress case, measured and shown without a target.
    // The desktop console is measured the same way: its baseline keeps no
    // history (--no-history) and is never scraped.
    return {{QStringLiteral("serve: history written, metrics scraped every 15 s"),
             {},
             15000,
             true,
             1.05,
             false},
            {QStringLiteral("serve: metrics scraped every 15 s, no history"),
             {},
             15000,
             false,
             1.05,
             false},
            {QStringLiteral("serve: metrics scraped every second, no history"),
             {},
             1000,
             false,
             0,
             false},
            {QStringLiteral("console: history written, metrics scraped every 15 s"),
             {},
             15000,
             true,
             1.05,
             true}};
}

namespace {

// utime + stime of a process, in seconds; -1 when it is gone.
double processCpu(qint64 pid)
{
    QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!stat.open(QIODevice::ReadOnly))
        return -1;
    const QByteArray line = stat.readAll();
    // Fields after the command name (which may hold spaces) in parentheses.
    const QList<QByteArray> f = line.mid(line.lastIndexOf(')') + 2).split(' ');
    if (f.size() < 13)
        return -1;
    const double ticks = double(sysconf(_SC_CLK_TCK));
    return (f.at(11).toDouble() + f.at(12).toDouble()) / ticks; // utime, stime
}

QByteArray get(QNetworkAccessManager &net, const QUrl &url)
{
    QNetworkRequest req(url);
    req.setTransferTimeout(5000);
    QNetworkReply *reply = net.get(req);
    QEventLoop loop;
    QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
    if (!reply->isFinished())
        loop.exec();
    const QByteArray body = reply->readAll();
    reply->deleteLater();
    return body;
}

void spin(int ms)
{
    QEventLoop loop;
    QTimer::singleShot(ms, &loop, &QEventLoop::quit);
    loop.exec();
}

struct Run
{
    double cpuPerMinute = -1; // CPU seconds per minute of watching
    qint64 objects = 0;
    int scrapes = 0;
};

// One run of gatehouse-cli serve: warm up (discovery, a first full tick),
// then seconds of watching, CPU measured over those only.
quint16 freePort()
{
    QTcpServer probe;
    if (!probe.listen(QHostAddress::LocalHost, 0))
        return 0;
    return probe.serverPort();
}

Run watchOnce(const RedisEndpoint &endpoint, const QString &profile, bool console,
              const OverheadFeature *feature, int seconds)
{
    Run run;
    QProcess serve;
    QStringList args{QStringLiteral("--url"), endpoint.displayUrl(), QStringLiteral("--profile"),
                     profile};
    QTemporaryDir historyDir;
    const bool history = feature && feature->history;
    QUrl url;
    if (console) {
        // The console serves its metrics at a port it is given (both sides,
        // the baseline never scraped), and keeps history unless told not to.
        const quint16 port = freePort();
        url = QUrl(QStringLiteral("http://127.0.0.1:%1/metrics").arg(port));
        serve.setProgram(QStringLiteral(GATEHOUSE_GUI));
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        serve.setProcessEnvironment(env);
        args += {QStringLiteral("--metrics"), QStringLiteral("127.0.0.1:%1").arg(port)};
        args += history ? QStringList{QStringLiteral("--history-dir"), historyDir.path()}
                        : QStringList{QStringLiteral("--no-history")};
    } else {
        serve.setProgram(QStringLiteral(GATEHOUSE_CLI));
        args += {QStringLiteral("serve"), QStringLiteral("--metrics"),
                 QStringLiteral("127.0.0.1:0")};
        if (history)
            args += {QStringLiteral("--history"), QStringLiteral("--history-dir"),
                     historyDir.path()};
    }
    if (feature)
        args += feature->extraArgs;
    serve.setArguments(args);
    serve.setStandardErrorFile(QProcess::nullDevice());
    serve.start();
    if (!serve.waitForStarted(10000))
        return run;
    if (!console) {
        if (!serve.waitForReadyRead(15000))
            return run;
        url = QUrl(QString::fromUtf8(serve.readLine()).trimmed().section(QLatin1Char(' '), 3));
    }
    QNetworkAccessManager net;
    // Warm-up: until discovery is over and every tracked object was read
    // (the scrapes both sides take before measuring).
    QElapsedTimer warm;
    warm.start();
    while (warm.elapsed() < 180000) {
        spin(1000);
        const QByteArray body = get(net, url);
        qint64 found = 0;
        bool discovering = true;
        for (const QByteArray &line : body.split('\n')) {
            if (line.startsWith("gatehouse_objects{"))
                found += line.mid(line.lastIndexOf(' ') + 1).toLongLong();
            else if (line == "gatehouse_discovery_running 0")
                discovering = false;
        }
        if (found > 0 && !discovering && body.contains("gatehouse_console_tick_commands ")) {
            run.objects = found;
            break;
        }
    }
    spin(2000); // the first full tick after discovery is done
    const double before = processCpu(serve.processId());
    QElapsedTimer watch;
    watch.start();
    // Scrapes on the feature's schedule; the loop wakes once a second either way.
    const int every = feature ? feature->scrapeEveryMs : 0;
    qint64 nextScrape = every;
    while (watch.elapsed() < seconds * 1000) {
        spin(every > 0 ? int(std::max<qint64>(1, std::min<qint64>(nextScrape, seconds * 1000)
                                                     - watch.elapsed()))
                       : 1000);
        if (every > 0 && watch.elapsed() >= nextScrape) {
            get(net, url);
            ++run.scrapes;
            nextScrape += every;
        }
    }
    const double after = processCpu(serve.processId());
    const double elapsedMin = watch.elapsed() / 60000.0;
    if (before >= 0 && after >= 0)
        run.cpuPerMinute = (after - before) / elapsedMin;
    ::kill(pid_t(serve.processId()), SIGTERM);
    if (!serve.waitForFinished(10000)) {
        serve.kill();
        serve.waitForFinished(5000);
    }
    return run;
}

} // namespace

QList<Figure> runOverheadBench(const RedisEndpoint &endpoint, const MonitorBenchSizes &sizes,
                               int seconds, int rounds)
{
    auto client = test::connectedClient(endpoint);
    if (!client)
        return {};
    test::call(*client, {"FLUSHALL"});
    populateTracked(*client, sizes);
    QTemporaryDir dir;
    const QString profile = dir.filePath(QStringLiteral("bench-profile.json"));
    QFile file(profile);
    if (!file.open(QIODevice::WriteOnly) || file.write(benchProfile().toJson()) < 0)
        return {};
    file.close();

    QList<Figure> figures;
    for (const OverheadFeature &feature : overheadFeatures()) {
        // Alternating rounds, the median of each side: the machine's load
        // moves both alike.
        QList<double> off, on;
        qint64 objects = 0;
        int scrapes = 0;
        for (int r = 0; r < rounds; ++r) {
            const Run a = watchOnce(endpoint, profile, feature.console, nullptr, seconds);
            const Run b = watchOnce(endpoint, profile, feature.console, &feature, seconds);
            if (a.cpuPerMinute < 0 || b.cpuPerMinute < 0)
                continue;
            off.append(a.cpuPerMinute);
            on.append(b.cpuPerMinute);
            objects = std::max(objects, b.objects);
            scrapes += b.scrapes;
            QTextStream(stderr) << "gatehouse-bench: overhead round " << r + 1 << ": "
                                << a.cpuPerMinute << " s vs " << b.cpuPerMinute
                                << " s CPU per minute" << Qt::endl;
        }
        if (off.isEmpty())
            continue;
        std::sort(off.begin(), off.end());
        std::sort(on.begin(), on.end());
        Figure f;
        f.name = QStringLiteral("9. console CPU per minute, %1 (%2 objects)")
                     .arg(feature.name)
                     .arg(objects);
        f.value = on.at(on.size() / 2);
        f.unit = QStringLiteral("CPU s/min");
        f.peer = QStringLiteral("the same console, without");
        f.peerValue = off.at(off.size() / 2);
        f.atMost = true;
        // A ratio target as the most CPU; no target: the figure is shown only.
        f.target = feature.target > 0 ? feature.target * f.peerValue
                                      : std::numeric_limits<double>::infinity();
        f.note = QStringLiteral("%6 watching every object, %1 s per run, %2 "
                                "alternating round(s), median; baseline never scraped, no "
                                "history; %3 scrapes in all; ratio %4 (%5).")
                     .arg(seconds)
                     .arg(off.size())
                     .arg(scrapes)
                     .arg(f.value / f.peerValue, 0, 'f', 3)
                     .arg(feature.target > 0
                              ? QStringLiteral("target <= %1").arg(feature.target, 0, 'f', 2)
                              : QStringLiteral("no target: the stress case"))
                     .arg(feature.console ? QStringLiteral("gatehouse (offscreen)")
                                          : QStringLiteral("gatehouse-cli serve"));
        figures.append(f);
    }
    return figures;
}

} // namespace gatehouse::bench
