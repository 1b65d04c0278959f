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
#include <QTemporaryDir>
#include <QTextStream>
#include <QTimer>

#include <csignal>
#include <unistd.h>

namespace gatehouse::bench {

QList<OverheadFeature> overheadFeatures()
{
    return {{QStringLiteral("metrics served and scraped every second"), {}, true}};
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
Run watchOnce(const RedisEndpoint &endpoint, const QString &profile, const OverheadFeature *feature,
              int seconds)
{
    Run run;
    QProcess serve;
    serve.setProgram(QStringLiteral(GATEHOUSE_CLI));
    QStringList args{
        QStringLiteral("--url"), endpoint.displayUrl(),       QStringLiteral("--profile"),  profile,
        QStringLiteral("serve"), QStringLiteral("--metrics"), QStringLiteral("127.0.0.1:0")};
    if (feature)
        args += feature->extraArgs;
    serve.setArguments(args);
    serve.setStandardErrorFile(QProcess::nullDevice());
    serve.start();
    if (!serve.waitForStarted(10000) || !serve.waitForReadyRead(15000))
        return run;
    const QUrl url(QString::fromUtf8(serve.readLine()).trimmed().section(QLatin1Char(' '), 3));
    QNetworkAccessManager net;
    // Warm-up: until every tracked object is found and read once (the one
    // scrape both sides take).
    QElapsedTimer warm;
    warm.start();
    while (warm.elapsed() < 120000) {
        spin(1000);
        const QByteArray body = get(net, url);
        qint64 found = 0;
        for (const QByteArray &line : body.split('\n')) {
            if (line.startsWith("gatehouse_objects{"))
                found += line.mid(line.lastIndexOf(' ') + 1).toLongLong();
        }
        if (found > 0 && body.contains("gatehouse_console_tick_commands ")) {
            run.objects = found;
            break;
        }
    }
    spin(2000); // the first full tick after discovery is done
    const double before = processCpu(serve.processId());
    QElapsedTimer watch;
    watch.start();
    while (watch.elapsed() < seconds * 1000) {
        const qint64 next = (run.scrapes + 1) * 1000;
        spin(int(std::max<qint64>(1, next - watch.elapsed())));
        if (feature && feature->scrape) {
            get(net, url);
            ++run.scrapes;
        } else {
            ++run.scrapes; // counts seconds only
        }
    }
    const double after = processCpu(serve.processId());
    const double elapsedMin = watch.elapsed() / 60000.0;
    if (before >= 0 && after >= 0)
        run.cpuPerMinute = (after - before) / elapsedMin;
    if (!feature || !feature->scrape)
        run.scrapes = 0;
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
            const Run a = watchOnce(endpoint, profile, nullptr, seconds);
            const Run b = watchOnce(endpoint, profile, &feature, seconds);
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
        // At most 5 % more: the value is a ratio here, compared with atMost.
        f.atMost = true;
        f.target = 1.05 * f.peerValue;
        f.note = QStringLiteral("gatehouse-cli serve watching every object, %1 s per run, %2 "
                                "alternating round(s), median; baseline never scraped; %3 "
                                "scrapes in all; ratio %4 (target <= 1.05).")
                     .arg(seconds)
                     .arg(off.size())
                     .arg(scrapes)
                     .arg(f.value / f.peerValue, 0, 'f', 3);
        figures.append(f);
    }
    return figures;
}

} // namespace gatehouse::bench
