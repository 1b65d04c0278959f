// SPDX-License-Identifier: MIT
#include "overheadbench.h"

#include "procstat.h"
#include "redisserver.h"

#include <redis/redisclient.h>

#include <QDir>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QProcess>
#include <QSet>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTextStream>
#include <QTimer>

#include <cmath>
#include <csignal>
#include <limits>
#include <optional>
#include <unistd.h>

namespace gatehouse::bench {

QList<OverheadFeature> overheadFeatures()
{
    // Prometheus' own example configuration scrapes every 15 s: the
    // figure the target is for, with history written every tick.
    // Every second is the stress case, measured and shown without a target;
    // the last pair is two baselines, the size of the instrument's margin.
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
             true},
            // The instrument's own noise: both sides the baseline, so the
            // rounds' ratios are what two identical processes differ by.
            {QStringLiteral("serve: instrument check, both sides the baseline"),
             {},
             0,
             false,
             0,
             false}};
}

namespace {

constexpr int s_fillSettlesMs = 12000; // populateTracked's longest window, and then some

// utime + stime of a process, in seconds; -1 when it is gone.
double processCpu(qint64 pid)
{
    QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!stat.open(QIODevice::ReadOnly))
        return -1;
    const QList<QByteArray> f = procStatFields(stat.readAll());
    if (f.size() < 13)
        return -1;
    const double ticks = double(sysconf(_SC_CLK_TCK));
    return (f.at(11).toDouble() + f.at(12).toDouble()) / ticks; // utime, stime
}

// Every thread of a process: its name (comm, as QThread::setObjectName sets
// it: "history", "QDBusConnection"; the main thread has the program's name)
// and its utime + stime in seconds, by thread id.
struct ThreadCpu
{
    QByteArray name;
    double cpu = 0;
};
QHash<qint64, ThreadCpu> threadsCpu(qint64 pid)
{
    QHash<qint64, ThreadCpu> out;
    const double ticks = double(sysconf(_SC_CLK_TCK));
    const QDir tasks(QStringLiteral("/proc/%1/task").arg(pid));
    for (const QString &tid : tasks.entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        QFile stat(tasks.filePath(tid + QStringLiteral("/stat")));
        if (!stat.open(QIODevice::ReadOnly))
            continue; // gone since the listing
        const QByteArray line = stat.readAll();
        const qsizetype open = line.indexOf('(');
        const qsizetype close = line.lastIndexOf(')');
        const QList<QByteArray> f = procStatFields(line);
        if (open < 0 || close < open || f.size() < 13)
            continue;
        out.insert(tid.toLongLong(), {line.mid(open + 1, close - open - 1),
                                      (f.at(11).toDouble() + f.at(12).toDouble()) / ticks});
    }
    return out;
}

// CPU seconds per minute by thread name between two readings of threadsCpu();
// a thread started in between counts from zero (one that ended is lost, as
// its CPU is from the process's figure).
QMap<QString, double> threadsPerMinute(const QHash<qint64, ThreadCpu> &before,
                                       const QHash<qint64, ThreadCpu> &after, double minutes)
{
    QMap<QString, double> out;
    for (auto it = after.cbegin(); it != after.cend(); ++it) {
        const double start = before.value(it.key()).cpu;
        out[QString::fromUtf8(it->name)] += (it->cpu - start) / minutes;
    }
    return out;
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
    double cpuPerMinute = -1;      // CPU seconds per minute of watching
    QMap<QString, double> threads; // the same, by thread name
    qint64 objects = 0;
    int scrapes = 0;
};

// One run of gatehouse-cli serve: warm up (discovery, a first full tick),
// then seconds of watching, CPU measured over those only.
// "0.98 1.02 1.10": /proc/loadavg's first three fields.
QString loadAverage()
{
    QFile f(QStringLiteral("/proc/loadavg"));
    if (!f.open(QIODevice::ReadOnly))
        return QStringLiteral("unknown");
    return QString::fromLatin1(f.readAll()).section(QLatin1Char(' '), 0, 2);
}

quint16 freePort()
{
    QTcpServer probe;
    if (!probe.listen(QHostAddress::LocalHost, 0))
        return 0;
    return probe.serverPort();
}

// One watching process: gatehouse-cli serve or the console (offscreen),
// with a feature or as the baseline.
class Watched
{
public:
    Watched(const RedisEndpoint &endpoint, const QString &profile, bool console,
            const OverheadFeature *feature)
        : m_feature(feature)
    {
        QStringList args{QStringLiteral("--url"), endpoint.displayUrl(),
                         QStringLiteral("--profile"), profile};
        const bool history = feature && feature->history;
        if (console) {
            // The console serves its metrics at a port it is given (both
            // sides, the baseline never scraped), and keeps history unless
            // told not to.
            const quint16 port = freePort();
            m_url = QUrl(QStringLiteral("http://127.0.0.1:%1/metrics").arg(port));
            m_process.setProgram(QStringLiteral(GATEHOUSE_GUI));
            QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
            env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
            m_process.setProcessEnvironment(env);
            args += {QStringLiteral("--metrics"), QStringLiteral("127.0.0.1:%1").arg(port)};
            args += history ? QStringList{QStringLiteral("--history-dir"), m_historyDir.path()}
                            : QStringList{QStringLiteral("--no-history")};
        } else {
            m_process.setProgram(QStringLiteral(GATEHOUSE_CLI));
            args += {QStringLiteral("serve"), QStringLiteral("--metrics"),
                     QStringLiteral("127.0.0.1:0")};
            if (history)
                args += {QStringLiteral("--history"), QStringLiteral("--history-dir"),
                         m_historyDir.path()};
        }
        if (feature)
            args += feature->extraArgs;
        m_process.setArguments(args);
        m_process.setStandardErrorFile(QProcess::nullDevice());
        m_process.start();
        if (!m_process.waitForStarted(10000))
            return;
        if (!console) {
            if (!m_process.waitForReadyRead(15000))
                return;
            m_url = QUrl(
                QString::fromUtf8(m_process.readLine()).trimmed().section(QLatin1Char(' '), 3));
        }
        m_started = m_url.isValid();
    }
    ~Watched()
    {
        if (m_process.state() == QProcess::NotRunning)
            return;
        ::kill(pid_t(m_process.processId()), SIGTERM);
        if (!m_process.waitForFinished(10000)) {
            m_process.kill();
            m_process.waitForFinished(5000);
        }
    }

    // Discovery over and every tracked object read (the scrapes both sides
    // take before measuring): true once, false while warming.
    bool warm(QNetworkAccessManager &net)
    {
        if (!m_started || m_warm)
            return m_warm;
        const QByteArray body = get(net, m_url);
        qint64 found = 0;
        bool discovering = true;
        for (const QByteArray &line : body.split('\n')) {
            if (line.startsWith("gatehouse_objects{"))
                found += line.mid(line.lastIndexOf(' ') + 1).toLongLong();
            else if (line == "gatehouse_discovery_running 0")
                discovering = false;
        }
        if (found > 0 && !discovering && body.contains("gatehouse_console_tick_commands ")) {
            m_run.objects = found;
            m_warm = true;
        }
        return m_warm;
    }
    void begin()
    {
        m_cpuBefore = processCpu(m_process.processId());
        m_threadsBefore = threadsCpu(m_process.processId());
    }
    void scrape(QNetworkAccessManager &net)
    {
        get(net, m_url);
        ++m_run.scrapes;
    }
    Run end(double minutes)
    {
        const double after = processCpu(m_process.processId());
        if (m_warm && m_cpuBefore >= 0 && after >= 0) {
            m_run.cpuPerMinute = (after - m_cpuBefore) / minutes;
            m_run.threads
                = threadsPerMinute(m_threadsBefore, threadsCpu(m_process.processId()), minutes);
        }
        return m_run;
    }
    const OverheadFeature *feature() const { return m_feature; }

private:
    const OverheadFeature *m_feature = nullptr;
    QProcess m_process;
    QTemporaryDir m_historyDir;
    QUrl m_url;
    bool m_started = false;
    bool m_warm = false;
    double m_cpuBefore = -1;
    QHash<qint64, ThreadCpu> m_threadsBefore;
    Run m_run;
};

// One round: the baseline and the feature's process watch at the same time,
// their CPU measured over the same seconds, so whatever else the machine
// does in that minute weighs on both alike (watching one after the other,
// the per-round ratios spread over +-10 % on a quiet machine). Each process
// takes a few per cent of one core: they do not crowd each other. The one
// started second tends to cost more (two identical baselines differ by about
// 6 % that way), so featureFirst says which starts first and rounds alternate.
std::pair<Run, Run> watchPair(const RedisEndpoint &endpoint, const QString &profile,
                              const OverheadFeature &feature, int seconds, bool featureFirst)
{
    std::optional<Watched> first, second;
    first.emplace(endpoint, profile, feature.console, featureFirst ? &feature : nullptr);
    second.emplace(endpoint, profile, feature.console, featureFirst ? nullptr : &feature);
    Watched &off = featureFirst ? *second : *first;
    Watched &on = featureFirst ? *first : *second;
    QNetworkAccessManager net;
    QElapsedTimer warmClock;
    warmClock.start();
    while (warmClock.elapsed() < 180000) {
        spin(1000);
        const bool a = off.warm(net);
        if (on.warm(net) && a)
            break;
    }
    // The first full tick after discovery, then the budget's estimate of what
    // an object costs settles (a few paced ticks): both measure the steady
    // state.
    spin(10000);
    off.begin();
    on.begin();
    QElapsedTimer watch;
    watch.start();
    // Scrapes on the feature's schedule; the loop wakes once a second either way.
    const int every = feature.scrapeEveryMs;
    qint64 nextScrape = every;
    while (watch.elapsed() < seconds * 1000) {
        spin(every > 0 ? int(std::max<qint64>(1, std::min<qint64>(nextScrape, seconds * 1000)
                                                     - watch.elapsed()))
                       : 1000);
        if (every > 0 && watch.elapsed() >= nextScrape) {
            on.scrape(net);
            nextScrape += every;
        }
    }
    const double minutes = watch.elapsed() / 60000.0;
    Run a = off.end(minutes);
    Run b = on.end(minutes);
    return {a, b};
}

// "main 1.80, history 0.07": CPU s/min by thread name, the busiest first.
QString threadsText(const QMap<QString, double> &threads)
{
    QList<std::pair<double, QString>> byCpu;
    for (auto it = threads.cbegin(); it != threads.cend(); ++it) {
        if (it.value() >= 0.005)
            byCpu.append({it.value(), it.key()});
    }
    std::sort(byCpu.begin(), byCpu.end(), [](const auto &a, const auto &b) { return a > b; });
    QStringList parts;
    for (const auto &[cpu, name] : std::as_const(byCpu))
        parts.append(QStringLiteral("%1 %2").arg(name).arg(cpu, 0, 'f', 3));
    return parts.join(QStringLiteral(", "));
}

// The median per thread name over runs (a thread missing from a run: 0 there).
QMap<QString, double> medianThreads(const QList<QMap<QString, double>> &runs)
{
    QSet<QString> names;
    for (const auto &r : runs) {
        for (auto it = r.cbegin(); it != r.cend(); ++it)
            names.insert(it.key());
    }
    QMap<QString, double> out;
    for (const QString &name : std::as_const(names)) {
        QList<double> v;
        for (const auto &r : runs)
            v.append(r.value(name));
        std::sort(v.begin(), v.end());
        out.insert(name, v.at(v.size() / 2));
    }
    return out;
}

} // namespace

int runOverheadFill(const QString &url, const QString &profilePath)
{
    QString error;
    const std::optional<RedisEndpoint> endpoint = RedisEndpoint::fromUrl(url, &error);
    if (!endpoint) {
        QTextStream(stderr) << "gatehouse-bench: " << error << Qt::endl;
        return 2;
    }
    auto client = test::connectedClient(*endpoint);
    if (!client) {
        QTextStream(stderr) << "gatehouse-bench: cannot connect to " << url << Qt::endl;
        return 1;
    }
    test::call(*client, {"FLUSHALL"});
    populateTracked(*client, MonitorBenchSizes());
    QFile file(profilePath);
    if (!file.open(QIODevice::WriteOnly) || file.write(benchProfile().toJson()) < 0) {
        QTextStream(stderr) << "gatehouse-bench: cannot write " << profilePath << Qt::endl;
        return 1;
    }
    return 0;
}

QList<Figure> runOverheadBench(const RedisEndpoint &endpoint, const MonitorBenchSizes &sizes,
                               int seconds, int rounds, const QList<int> &only)
{
    auto client = test::connectedClient(endpoint);
    if (!client)
        return {};
    test::call(*client, {"FLUSHALL"});
    populateTracked(*client, sizes);
    // Every round watches the same settled data: the limiters' windows
    // (10 s) and retry horizons (5 s) of the fill over before the first, as
    // they are for the later ones (the first would otherwise watch its
    // windows drain and record their falls, work the others never see).
    spin(s_fillSettlesMs);
    QTemporaryDir dir;
    const QString profile = dir.filePath(QStringLiteral("bench-profile.json"));
    QFile file(profile);
    if (!file.open(QIODevice::WriteOnly) || file.write(benchProfile().toJson()) < 0)
        return {};
    file.close();

    QList<Figure> figures;
    const QList<OverheadFeature> features = overheadFeatures();
    for (qsizetype fi = 0; fi < features.size(); ++fi) {
        if (!only.isEmpty() && !only.contains(int(fi) + 1))
            continue;
        const OverheadFeature &feature = features.at(fi);
        // Rounds of both sides at once (watchPair), the median of each side
        // and of the per-round ratios.
        QList<double> off, on, ratios;
        QList<double> byOrder[2]; // the ratios of rounds where the feature started second, first
        QList<QMap<QString, double>> offThreads, onThreads;
        qint64 objects = 0;
        int scrapes = 0;
        for (int r = 0; r < rounds; ++r) {
            const bool featureFirst = r % 2 == 1;
            const auto [a, b] = watchPair(endpoint, profile, feature, seconds, featureFirst);
            if (a.cpuPerMinute < 0 || b.cpuPerMinute < 0)
                continue;
            off.append(a.cpuPerMinute);
            on.append(b.cpuPerMinute);
            ratios.append(b.cpuPerMinute / a.cpuPerMinute);
            byOrder[featureFirst ? 1 : 0].append(ratios.last());
            offThreads.append(a.threads);
            onThreads.append(b.threads);
            objects = std::max(objects, b.objects);
            scrapes += b.scrapes;
            QTextStream(stderr) << "gatehouse-bench: overhead " << fi + 1 << " round " << r + 1
                                << (featureFirst ? " (feature started first)" : "") << ": "
                                << a.cpuPerMinute << " s vs " << b.cpuPerMinute
                                << " s CPU per minute (" << ratios.last()
                                << "x); without: " << threadsText(a.threads)
                                << "; with: " << threadsText(b.threads) << "; load "
                                << loadAverage() << Qt::endl;
        }
        if (off.isEmpty())
            continue;
        std::sort(off.begin(), off.end());
        std::sort(on.begin(), on.end());
        std::sort(ratios.begin(), ratios.end());
        Figure f;
        f.name = QStringLiteral("9. console CPU per minute, %1 (%2 objects)")
                     .arg(feature.name)
                     .arg(objects);
        // The two sides of a round watch the same minute: the figure is the
        // median of the rounds' ratios (the ratio of each side's median
        // pairs CPU times of different minutes), taken per starting order and
        // their geometric mean when both orders ran, so that the order's own
        // cost cancels out.
        const double medianRatio = ratios.at(ratios.size() / 2);
        double figureRatio = medianRatio;
        if (!byOrder[0].isEmpty() && !byOrder[1].isEmpty()) {
            double medians[2];
            for (int o = 0; o < 2; ++o) {
                std::sort(byOrder[o].begin(), byOrder[o].end());
                const qsizetype n = byOrder[o].size();
                medians[o] = n % 2 ? byOrder[o].at(n / 2)
                                   : (byOrder[o].at(n / 2 - 1) + byOrder[o].at(n / 2)) / 2;
            }
            figureRatio = std::sqrt(medians[0] * medians[1]);
        }
        f.peerValue = off.at(off.size() / 2);
        f.value = figureRatio * f.peerValue;
        f.unit = QStringLiteral("CPU s/min");
        f.peer = QStringLiteral("the same console, without");
        f.atMost = true;
        // A ratio target as the most CPU; no target: the figure is shown only.
        f.target = feature.target > 0 ? feature.target * f.peerValue
                                      : std::numeric_limits<double>::infinity();
        f.note = QStringLiteral("%6 watching every object, %1 s per run, %2 "
                                "round(s) of both sides at once, alternating which starts first; "
                                "the figure: the baseline's median times the geometric mean of the "
                                "two orders' median ratios; baseline never scraped, no "
                                "history; %3 scrapes in all; ratio of the sides' medians %4 (%5); "
                                "per-round ratios %7 to %8, median %9. CPU s/min by thread "
                                "(median): without %10; with %11.")
                     .arg(seconds)
                     .arg(off.size())
                     .arg(scrapes)
                     .arg(on.at(on.size() / 2) / f.peerValue, 0, 'f', 3)
                     .arg(feature.target > 0
                              ? QStringLiteral("target <= %1").arg(feature.target, 0, 'f', 2)
                              : QStringLiteral("no target: shown only"))
                     .arg(feature.console ? QStringLiteral("gatehouse (offscreen)")
                                          : QStringLiteral("gatehouse-cli serve"))
                     .arg(ratios.first(), 0, 'f', 3)
                     .arg(ratios.last(), 0, 'f', 3)
                     .arg(ratios.at(ratios.size() / 2), 0, 'f', 3)
                     .arg(threadsText(medianThreads(offThreads)),
                          threadsText(medianThreads(onThreads)));
        figures.append(f);
    }
    return figures;
}

} // namespace gatehouse::bench
