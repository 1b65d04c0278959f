// SPDX-License-Identifier: MIT
#include "millionbench.h"

#include "benchloader.h"
#include "procstat.h"

#include "redisserver.h"

#include <deployment/deployment.h>
#include <mainwindow.h>
#include <monitor/monitor.h>
#include <redis/redisclient.h>

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRandomGenerator>
#include <QSet>
#include <QTextStream>
#include <QThread>
#include <QTimer>

#include <hiredis/hiredis.h>
#include <malloc.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <memory>

namespace gatehouse::bench {

namespace {

constexpr int s_millionRuns = 3; // runs of the loop and of the CLI, taking turns

// "2.41, 2.37, 3.90": each run's seconds.
QString secondsList(const QList<double> &runs)
{
    QStringList out;
    for (double s : runs)
        out.append(QString::number(s, 'f', 2));
    return out.join(QStringLiteral(", "));
}

// The server's time (TIME) in ms; 0 when it does not answer.
qint64 serverNowMs(redisContext *c)
{
    auto *time = static_cast<redisReply *>(redisCommand(c, "TIME"));
    const qint64 nowMs = time && time->elements == 2
                             ? QByteArray(time->element[0]->str).toLongLong() * 1000
                                   + QByteArray(time->element[1]->str).toLongLong() / 1000
                             : 0;
    if (time)
        freeReplyObject(time);
    return nowMs;
}

QByteArray hex(QRandomGenerator &rng, int len)
{
    static const char digits[] = "0123456789abcdef";
    QByteArray out(len, '0');
    for (int i = 0; i < len; ++i)
        out[i] = digits[rng.bounded(16)];
    return out;
}

QByteArray num(qint64 v)
{
    return QByteArray::number(v);
}

QString urlOf(const RedisEndpoint &ep)
{
    return QStringLiteral("redis://%1:%2").arg(ep.host).arg(ep.port);
}

struct Planted
{
    qint64 structures = 0; // instances: windows, locks, code families, queues
    qint64 keys = 0;       // their keys
};

// About `keys` keys: ordinary families (caches, sessions, dated counters,
// page caches, timelines, leaderboards, flags, logs, profiles) and planted
// structures (sliding windows with TTLs, locks, one-time codes with
// six-hex-digit suffixes, queues with work in flight), all with the server's
// time so windows and claims are recent.
Planted fill(redisContext *c, int keys, qint64 nowMs)
{
    QRandomGenerator rng(1600);
    Planted planted;
    Loader load(c);
    const int windows = keys / 100;
    const int locks = keys / 50;
    const int codes = keys / 500;
    const int queues = 50;
    for (int i = 0; i < windows; ++i) {
        QList<QByteArray> zadd{"ZADD", "ratelimit:api:" + num(i)};
        for (int m = 0; m < 5; ++m)
            zadd << num(nowMs - m * 700) << num(nowMs - m * 700) + '-' + num(m);
        load.add(zadd);
        // An hour: the windows must outlive the CLI run and be there for the console's.
        load.add({"PEXPIRE", "ratelimit:api:" + num(i), "3600000"});
    }
    for (int i = 0; i < locks; ++i)
        load.add({"SET", "lock:order:" + num(i), hex(rng, 32), "PX", "3600000"});
    for (int i = 0; i < codes; ++i)
        load.add({"SET", "otp:" + hex(rng, 6), num(100000 + rng.bounded(900000)), "EX", "3600"});
    for (int i = 0; i < queues; ++i) {
        const QByteArray q = "jobs:mail:" + num(i);
        load.add({"LPUSH", q, "a", "b", "c"});
        load.add({"LPUSH", q + ":processing", "x"});
    }
    planted.structures = windows + locks + 1 + queues;
    planted.keys = windows + locks + codes + 2 * queues;

    const qint64 ordinary = keys - planted.keys;
    // Shares of the ordinary keys, per mille.
    struct Share
    {
        int perMille;
        int kind;
    };
    static const Share shares[]
        = {{300, 0}, {150, 1}, {150, 2}, {100, 3}, {50, 4}, {50, 5}, {50, 6}, {50, 7}, {100, 8}};
    for (const Share &s : shares) {
        const qint64 n = ordinary * s.perMille / 1000;
        for (qint64 i = 0; i < n; ++i) {
            switch (s.kind) {
            case 0: // product cache, JSON, an hour
                load.add({"SET", "cache:product:" + num(i),
                          "{\"id\":" + num(i) + ",\"name\":\"item " + num(i)
                              + "\",\"price\":" + num(rng.bounded(10000)) + "}",
                          "EX", "3600"});
                break;
            case 1: { // sessions: a hash with a TTL
                const QByteArray key = "session:" + hex(rng, 32);
                load.add({"HSET", key, "user_id", num(i), "created", num(nowMs / 1000)});
                load.add({"EXPIRE", key, "1800"});
                break;
            }
            case 2: // per-day counters
                load.add({"SET", "stats:views:2026-11-" + num(10 + i % 14) + ":" + num(i / 14),
                          num(rng.bounded(5000)), "EX", "604800"});
                break;
            case 3: // page caches
                load.add({"SET", "page:/products/" + num(i),
                          "<html><body>product " + num(i) + "</body></html>", "EX", "600"});
                break;
            case 4: // timelines: recent times as scores
                load.add({"ZADD", "feed:user:" + num(i), num(nowMs - 5000), "post:" + num(i),
                          num(nowMs - 90000), "post:" + num(i + 1)});
                break;
            case 5: // leaderboards
                load.add({"ZADD", "leaderboard:game:" + num(i), num(rng.bounded(1000)), "alice",
                          num(rng.bounded(1000)), "bob"});
                break;
            case 6: // feature flags
                load.add({"SET", "feature:beta:" + num(i), "on"});
                break;
            case 7: // logs
                load.add({"RPUSH", "log:checkout:" + num(i), "started", "finished"});
                break;
            default: // user profiles
                load.add({"HSET", "user:" + num(i) + ":profile", "name", "user " + num(i), "email",
                          "u" + num(i) + "@example.com"});
                break;
            }
        }
    }
    return planted;
}

// The reference: a hiredis SCAN loop (COUNT 1000) with each batch's keys'
// TYPE pipelined, the least any discovery must do. Returns seconds.
double scanTypeSeconds(const RedisEndpoint &ep, qint64 *keys)
{
    Context c = connect(ep);
    if (!c || c->err)
        return 0;
    QElapsedTimer clock;
    clock.start();
    std::string cursor = "0";
    *keys = 0;
    do {
        auto *reply = static_cast<redisReply *>(
            redisCommand(c.get(), "SCAN %s COUNT 1000", cursor.c_str()));
        if (!reply || reply->type != REDIS_REPLY_ARRAY || reply->elements != 2) {
            if (reply)
                freeReplyObject(reply);
            return 0;
        }
        cursor.assign(reply->element[0]->str, reply->element[0]->len);
        const redisReply *batch = reply->element[1];
        for (size_t i = 0; i < batch->elements; ++i) {
            const char *argv[] = {"TYPE", batch->element[i]->str};
            const size_t lens[] = {4, batch->element[i]->len};
            redisAppendCommandArgv(c.get(), 2, argv, lens);
        }
        for (size_t i = 0; i < batch->elements; ++i) {
            void *type = nullptr;
            if (redisGetReply(c.get(), &type) != REDIS_OK)
                return 0;
            freeReplyObject(type);
        }
        *keys += qint64(batch->elements);
        freeReplyObject(reply);
    } while (cursor != "0");
    return clock.nsecsElapsed() / 1e9;
}

// What the server process went through during a run, from /proc: page
// faults, times the kernel took its core away, and the time the host took
// from this machine's CPUs (steal). A command logged slower than its work
// explains itself by these: the server was not running.
struct ServerPauses
{
    qint64 minorFaults = 0;
    qint64 majorFaults = 0;
    qint64 involuntarySwitches = 0;
    double stealMs = 0;

    static ServerPauses read(qint64 pid)
    {
        ServerPauses p;
        QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
        if (stat.open(QIODevice::ReadOnly)) {
            const QList<QByteArray> f = procStatFields(stat.readAll());
            if (f.size() > 9) {
                p.minorFaults = f.at(7).toLongLong(); // minflt (field 10)
                p.majorFaults = f.at(9).toLongLong(); // majflt (field 12)
            }
        }
        QFile status(QStringLiteral("/proc/%1/status").arg(pid));
        if (status.open(QIODevice::ReadOnly)) {
            for (const QByteArray &line : status.readAll().split('\n')) {
                if (line.startsWith("nonvoluntary_ctxt_switches:"))
                    p.involuntarySwitches = line.mid(27).trimmed().toLongLong();
            }
        }
        QFile all(QStringLiteral("/proc/stat"));
        if (all.open(QIODevice::ReadOnly)) {
            const QList<QByteArray> f = all.readLine().simplified().split(' ');
            if (f.size() > 8) // "cpu user nice system idle iowait irq softirq steal"
                p.stealMs = f.at(8).toDouble() * 1000.0 / double(sysconf(_SC_CLK_TCK));
        }
        return p;
    }
    ServerPauses since(const ServerPauses &before) const
    {
        return {minorFaults - before.minorFaults, majorFaults - before.majorFaults,
                involuntarySwitches - before.involuntarySwitches, stealMs - before.stealMs};
    }
    QString text() const
    {
        return QStringLiteral("%1 minor/%2 major faults, %3 preemptions, %4 ms stolen")
            .arg(minorFaults)
            .arg(majorFaults)
            .arg(involuntarySwitches)
            .arg(stealMs, 0, 'f', 0);
    }
};

// The server's process id (INFO server), 0 when it does not say.
qint64 serverPid(redisContext *c)
{
    auto *reply = static_cast<redisReply *>(redisCommand(c, "INFO server"));
    qint64 pid = 0;
    if (reply && reply->type == REDIS_REPLY_STRING) {
        for (const QByteArray &line : QByteArray(reply->str, qsizetype(reply->len)).split('\n')) {
            if (line.startsWith("process_id:"))
                pid = line.mid(11).trimmed().toLongLong();
        }
    }
    if (reply)
        freeReplyObject(reply);
    return pid;
}

// A command SLOWLOG kept: its time on the server and its arguments.
struct SlowEntry
{
    double ms = 0;
    QList<QByteArray> args;
};

// The slowest command in SLOWLOG (ms) and how many there are; the entries
// themselves into *kept when given.
double slowestMs(redisContext *c, qint64 *entries, QList<SlowEntry> *kept = nullptr)
{
    auto *reply = static_cast<redisReply *>(redisCommand(c, "SLOWLOG GET 128"));
    double worst = 0;
    *entries = 0;
    if (reply && reply->type == REDIS_REPLY_ARRAY) {
        *entries = qint64(reply->elements);
        for (size_t i = 0; i < reply->elements; ++i) {
            const redisReply *e = reply->element[i];
            if (e->type != REDIS_REPLY_ARRAY || e->elements < 4)
                continue;
            SlowEntry entry;
            entry.ms = double(e->element[2]->integer) / 1000.0;
            const redisReply *args = e->element[3];
            for (size_t a = 0; args->type == REDIS_REPLY_ARRAY && a < args->elements; ++a)
                entry.args.append(
                    QByteArray(args->element[a]->str, qsizetype(args->element[a]->len)));
            worst = std::max(worst, entry.ms);
            if (kept)
                kept->append(std::move(entry));
        }
    }
    if (reply)
        freeReplyObject(reply);
    return worst;
}

// What a logged command costs the server when run again at once, five
// times: the median of SLOWLOG's own times (its threshold 0 meanwhile). Only
// the reads discovery sends are run again; -1 for anything else (or a
// command SLOWLOG cut short).
double rerunMs(redisContext *c, const QList<QByteArray> &args)
{
    static const QSet<QByteArray> reads{"SCAN",  "TYPE", "PTTL", "MEMORY", "OBJECT", "EXISTS",
                                        "ZCARD", "LLEN", "HLEN", "SCARD",  "XLEN",   "STRLEN"};
    if (args.isEmpty() || !reads.contains(args.first().toUpper())
        || std::any_of(args.cbegin(), args.cend(), [](const QByteArray &a) {
               return a.contains("more bytes") || a.contains("more arguments");
           }))
        return -1;
    std::vector<const char *> argv;
    std::vector<size_t> lens;
    for (const QByteArray &a : args) {
        argv.push_back(a.constData());
        lens.push_back(size_t(a.size()));
    }
    freeReplyObject(redisCommand(c, "CONFIG SET slowlog-log-slower-than 0"));
    freeReplyObject(redisCommand(c, "SLOWLOG RESET"));
    for (int run = 0; run < 5; ++run)
        freeReplyObject(redisCommandArgv(c, int(argv.size()), argv.data(), lens.data()));
    qint64 entries = 0;
    QList<SlowEntry> logged;
    slowestMs(c, &entries, &logged);
    freeReplyObject(redisCommand(c, "CONFIG SET slowlog-log-slower-than 10000"));
    freeReplyObject(redisCommand(c, "SLOWLOG RESET"));
    QList<double> times;
    for (const SlowEntry &e : std::as_const(logged)) {
        if (e.args == args)
            times.append(e.ms);
    }
    if (times.isEmpty())
        return -1;
    std::sort(times.begin(), times.end());
    return times.at(times.size() / 2);
}

qint64 statusKb(const char *field)
{
    QFile f(QStringLiteral("/proc/self/status"));
    if (!f.open(QIODevice::ReadOnly))
        return 0;
    for (const QByteArray &line : f.readAll().split('\n')) {
        if (line.startsWith(field))
            return line.mid(qsizetype(qstrlen(field))).trimmed().split(' ').first().toLongLong();
    }
    return 0;
}

// Peak resident memory (kB) of the largest child waited for so far.
qint64 childrenPeakKb()
{
    rusage usage{};
    getrusage(RUSAGE_CHILDREN, &usage);
    return usage.ru_maxrss;
}

} // namespace

int runMillionGuiChild(const QString &url)
{
    QString error;
    const std::optional<RedisEndpoint> endpoint = RedisEndpoint::fromUrl(url, &error);
    if (!endpoint) {
        QTextStream(stderr) << "gatehouse-bench: " << error << Qt::endl;
        return 2;
    }
    // As the application runs: the monitor and its client on a thread of
    // their own, no profile (autodetection), no history file.
    QThread thread;
    thread.start();
    Deployment::Options options;
    options.endpoint = *endpoint;
    options.retryFirstConnection = true;
    options.thread = &thread;
    options.actions = true;
    auto deployment = std::make_unique<Deployment>(std::move(options));
    Monitor *monitor = deployment->monitor();
    auto ownedWindow = std::make_unique<MainWindow>(deployment.get(), MainWindow::Options());
    MainWindow &window = *ownedWindow;
    window.show();
    QCoreApplication::processEvents();
    const qint64 beforeKb = statusKb("VmRSS:");
    QElapsedTimer clock;
    clock.start();
    QEventLoop wait;
    bool discovered = false;
    qint64 shown = -1;
    QObject::connect(monitor, &Monitor::discoveryFinished, &wait, [&] { discovered = true; });
    // The console has what discovery found once a snapshot after it arrived.
    QObject::connect(monitor, &Monitor::snapshotReady, &wait, [&](const Snapshot &s) {
        if (discovered && !s.discovering) {
            shown = s.objects.size();
            wait.quit();
        }
    });
    deployment->start();
    QTimer::singleShot(600000, &wait, &QEventLoop::quit);
    wait.exec();
    const double wallMs = clock.nsecsElapsed() / 1e6;
    // A few ticks with every row on screen, as an operator sees it.
    QEventLoop settle;
    QTimer::singleShot(3000, &settle, &QEventLoop::quit);
    settle.exec();
    const qint64 afterKb = statusKb("VmRSS:");
    const qint64 peakKb = statusKb("VmHWM:");
    // What is live, without what the allocator keeps free (M4's note).
    malloc_trim(0);
    const qint64 trimmedKb = statusKb("VmRSS:");
    ownedWindow.reset();
    deployment.reset(); // the monitor and its client go on their thread
    thread.quit();
    thread.wait();
    QTextStream(stdout) << QJsonDocument(
                               QJsonObject{{QStringLiteral("beforeKb"), double(beforeKb)},
                                           {QStringLiteral("afterKb"), double(afterKb)},
                                           {QStringLiteral("peakKb"), double(peakKb)},
                                           {QStringLiteral("trimmedKb"), double(trimmedKb)},
                                           {QStringLiteral("shown"), double(shown)},
                                           {QStringLiteral("wallMs"), wallMs}})
                               .toJson(QJsonDocument::Compact)
                        << Qt::endl;
    return shown < 0 ? 1 : 0;
}

int runMillionFill(const QString &url, int keys)
{
    QString error;
    const std::optional<RedisEndpoint> endpoint = RedisEndpoint::fromUrl(url, &error);
    if (!endpoint) {
        QTextStream(stderr) << "gatehouse-bench: " << error << Qt::endl;
        return 2;
    }
    Context c = connect(*endpoint);
    if (!c || c->err) {
        QTextStream(stderr) << "gatehouse-bench: cannot connect to " << url << Qt::endl;
        return 1;
    }
    freeReplyObject(redisCommand(c.get(), "FLUSHALL"));
    const qint64 nowMs = serverNowMs(c.get());
    const Planted planted = fill(c.get(), keys, nowMs);
    QTextStream(stdout) << planted.structures << " structures planted among " << keys << " keys"
                        << Qt::endl;
    return 0;
}

QList<Figure> runMillionBench(const RedisEndpoint &endpoint, int keys)
{
    Context c = connect(endpoint);
    if (!c || c->err)
        return {};
    freeReplyObject(redisCommand(c.get(), "FLUSHALL"));
    freeReplyObject(redisCommand(c.get(), "CONFIG SET notify-keyspace-events %s", ""));
    const qint64 nowMs = serverNowMs(c.get());
    QElapsedTimer loadClock;
    loadClock.start();
    const Planted planted = fill(c.get(), keys, nowMs);
    const double loadS = loadClock.nsecsElapsed() / 1e9;
    auto *size = static_cast<redisReply *>(redisCommand(c.get(), "DBSIZE"));
    const qint64 dbsize = size ? size->integer : 0;
    if (size)
        freeReplyObject(size);

    // The loop and the CLI take turns, three runs each, and each side's best
    // run is its figure (as figure 8's rounds): a burst of other work on the
    // machine during one run (another build, say) halves that run's rate,
    // and a lone pair of runs then reads as the code's figure.
    // The CLI: one snapshot without a profile, its JSON cut to 100 objects
    // per section (--limit) and thrown away; stderr keeps its progress.
    freeReplyObject(redisCommand(c.get(), "CONFIG SET slowlog-log-slower-than 10000"));
    const qint64 peakBefore = childrenPeakKb();
    qint64 refKeys = 0;
    QList<double> refRuns;
    QList<double> cliRuns;
    int cliExit = 0;
    qint64 slowEntries = 0;
    double slowest = 0;
    qint64 loopEntries = 0;
    double loopSlowest = 0; // the same SCAN COUNT 1000, the peer's: the server's own pauses
    const qint64 pid = serverPid(c.get());
    QStringList runNotes;      // per run: each side's slowest command and the server's pauses
    QList<SlowEntry> cliSlow;  // the CLI's commands over 10 ms
    QList<QString> cliSlowRun; // the run's pauses beside each
    for (int run = 0; run < s_millionRuns; ++run) {
        freeReplyObject(redisCommand(c.get(), "SLOWLOG RESET"));
        ServerPauses before = ServerPauses::read(pid);
        const double loopS = scanTypeSeconds(endpoint, &refKeys);
        const ServerPauses loopPauses = ServerPauses::read(pid).since(before);
        qint64 loopRunEntries = 0;
        const double loopRunSlowest = slowestMs(c.get(), &loopRunEntries);
        loopSlowest = std::max(loopSlowest, loopRunSlowest);
        loopEntries += loopRunEntries;
        refRuns.append(loopS);
        freeReplyObject(redisCommand(c.get(), "SLOWLOG RESET"));
        QProcess cli;
        cli.setStandardOutputFile(QProcess::nullDevice());
        cli.setStandardErrorFile(QProcess::nullDevice());
        QElapsedTimer cliClock;
        before = ServerPauses::read(pid);
        cliClock.start();
        cli.start(QStringLiteral(GATEHOUSE_CLI),
                  {QStringLiteral("--url"), urlOf(endpoint), QStringLiteral("snapshot"),
                   QStringLiteral("--json"), QStringLiteral("--limit"), QStringLiteral("100")});
        cli.waitForFinished(-1);
        const double runS = cliClock.nsecsElapsed() / 1e9;
        const ServerPauses cliPauses = ServerPauses::read(pid).since(before);
        cliRuns.append(runS);
        cliExit = std::max(cliExit, cli.exitCode());
        qint64 entries = 0;
        QList<SlowEntry> logged;
        const double runSlowest = slowestMs(c.get(), &entries, &logged); // this run's alone
        slowest = std::max(slowest, runSlowest);
        slowEntries += entries;
        for (SlowEntry &e : logged) {
            cliSlow.append(std::move(e));
            cliSlowRun.append(cliPauses.text());
        }
        runNotes.append(QStringLiteral("run %1: loop slowest %2 ms (%3); CLI slowest %4 ms (%5)")
                            .arg(run + 1)
                            .arg(loopRunSlowest, 0, 'f', 1)
                            .arg(loopPauses.text())
                            .arg(runSlowest, 0, 'f', 1)
                            .arg(cliPauses.text()));
    }
    // Each of the CLI's slow commands run again at once: what it costs the
    // server by itself, beside what the log says it took.
    QStringList reruns;
    for (qsizetype i = 0; i < cliSlow.size(); ++i) {
        const SlowEntry &e = cliSlow.at(i);
        const double again = rerunMs(c.get(), e.args);
        reruns.append(QStringLiteral("%1 logged %2 ms, %3 run again (server: %4)")
                          .arg(QString::fromLatin1(e.args.mid(0, 4).join(' ')))
                          .arg(e.ms, 0, 'f', 1)
                          .arg(again < 0 ? QStringLiteral("not")
                                         : QStringLiteral("%1 ms").arg(again, 0, 'f', 2))
                          .arg(cliSlowRun.at(i)));
    }
    const qint64 cliPeakKb = childrenPeakKb(); // the largest of the runs
    const double refS = *std::min_element(refRuns.cbegin(), refRuns.cend());
    const double cliS = *std::min_element(cliRuns.cbegin(), cliRuns.cend());

    // The console, in a process of its own.
    QProcess gui;
    gui.start(QCoreApplication::applicationFilePath(),
              {QStringLiteral("--million-gui"), urlOf(endpoint)});
    gui.waitForFinished(-1);
    const QJsonObject g = QJsonDocument::fromJson(gui.readAllStandardOutput().trimmed()).object();
    const double guiPeakMb = g.value(QStringLiteral("peakKb")).toDouble() / 1024.0;
    const double shown = g.value(QStringLiteral("shown")).toDouble();
    const double perObject = shown > 0 ? (g.value(QStringLiteral("afterKb")).toDouble()
                                          - g.value(QStringLiteral("beforeKb")).toDouble())
                                             * 1024.0 / shown
                                       : 0;

    Figure rate;
    rate.name = QStringLiteral("M1. million-key discovery keys/s");
    rate.unit = QStringLiteral("keys/s");
    rate.value = cliS > 0 ? dbsize / cliS : 0;
    rate.peer = QStringLiteral("hiredis SCAN COUNT 1000 + pipelined TYPE");
    rate.peerValue = refS > 0 ? dbsize / refS : 0;
    rate.target = 1.0 / 1.3; // at most 1.3 times the loop's time
    rate.note = QStringLiteral("%1 keys (%2 planted structures, %3 of their keys; loaded in "
                               "%4 s): gatehouse-cli snapshot --json --limit 100, no profile, "
                               "%5 s from start to exit (CLI exit code %6); the loop %7 s over "
                               "%8 keys. Best of %9 alternating runs each (CLI %10 s; loop "
                               "%11 s).")
                    .arg(dbsize)
                    .arg(planted.structures)
                    .arg(planted.keys)
                    .arg(loadS, 0, 'f', 1)
                    .arg(cliS, 0, 'f', 2)
                    .arg(cliExit)
                    .arg(refS, 0, 'f', 2)
                    .arg(refKeys)
                    .arg(s_millionRuns)
                    .arg(secondsList(cliRuns), secondsList(refRuns));
    const QString peakNote
        = cliPeakKb > peakBefore
              ? QString()
              : QStringLiteral(" (no larger than an earlier child's: a lower bound)");
    return {
        rate,
        budgetFigure(QStringLiteral("M2. million-key CLI peak resident"), QStringLiteral("MB"),
                     cliPeakKb / 1024.0, 300,
                     QStringLiteral("getrusage(RUSAGE_CHILDREN) ru_maxrss%1.").arg(peakNote)),
        budgetFigure(QStringLiteral("M3. million-key console peak resident"), QStringLiteral("MB"),
                     guiPeakMb, 300,
                     QStringLiteral("gatehouse-bench --million-gui: MainWindow offscreen, "
                                    "monitor on its thread, no profile; VmHWM after "
                                    "discovery and 3 s of ticks; %1 objects shown, "
                                    "discovery to first snapshot %2 s.")
                         .arg(shown)
                         .arg(g.value(QStringLiteral("wallMs")).toDouble() / 1000.0, 0, 'f', 1)),
        budgetFigure(QStringLiteral("M4. million-key console bytes per shown object"),
                     QStringLiteral("B"), perObject, 2048,
                     QStringLiteral("resident growth from before connecting to after "
                                    "discovery, over the objects shown; %1 B after a "
                                    "malloc_trim (what the allocator kept free left out).")
                         .arg(qRound(shown > 0 ? (g.value(QStringLiteral("trimmedKb")).toDouble()
                                                  - g.value(QStringLiteral("beforeKb")).toDouble())
                                                     * 1024.0 / shown
                                               : 0))),
        budgetFigure(QStringLiteral("M5. slowest command during discovery"), QStringLiteral("ms"),
                     slowest, 10,
                     QStringLiteral("SLOWLOG (slowlog-log-slower-than 10000) over the CLI's "
                                    "runs: %1 entries; over the loop's: %2 entries, the slowest "
                                    "%3 ms. The server during each run (/proc): %4.%5")
                         .arg(slowEntries)
                         .arg(loopEntries)
                         .arg(loopSlowest, 0, 'f', 1)
                         .arg(runNotes.join(QStringLiteral("; ")))
                         .arg(reruns.isEmpty() ? QString()
                                               : QStringLiteral(" The CLI's entries: ")
                                                     + reruns.join(QStringLiteral("; ")) + '.'))};
}

} // namespace gatehouse::bench
