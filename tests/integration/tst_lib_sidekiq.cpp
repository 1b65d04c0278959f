// SPDX-License-Identifier: MIT
// Sidekiq, driven for real (Debian ruby-sidekiq 6.x, installed by
// .ci/install-deps): its own client pushes jobs, a real `sidekiq` process
// takes one and is killed -9 in the middle of it. Nothing is faked: the
// process's heartbeat simply stops, and after SidekiqUnit::DeadAfterMs of
// silence Gatehouse, with no profile, shows the job in flight on a dead
// process. `gatehouse-cli queue requeue queues --stuck` pushes it back, a new
// worker runs it, and Sidekiq's own API (Stats, Queue, RetrySet) and the
// jobs' own record show every job ran exactly once and nothing was lost.
// Retry now, kill, retry from the dead set and delete act on jobs that failed.
//
// GATEHOUSE_SIDEKIQ_RUBYLIB (a RUBYLIB: a Sidekiq checkout's lib, then
// redis-client's and connection_pool's, as README's supported-libraries
// section fetches them) runs the same test with that Sidekiq instead of
// Debian's: its client and API through that RUBYLIB, and the `sidekiq`
// executable of the checkout (bin/sidekiq beside the lib holding
// sidekiq.rb). Unset, Debian's 6.x runs (CI).
#include <monitor/jobbrowser.h>
#include <patterns/sidekiq/sidekiqunit.h>
#include <redis/redisclient.h>

#include "librarytest.h"
#include "matchnow.h"
#include "redisserver.h"

#include <QDeadlineTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QTest>

using namespace gatehouse;
using gatehouse::test::call;
using gatehouse::test::CliRun;
using gatehouse::test::RedisServer;

namespace {

const QString LibrariesDir = QStringLiteral(GATEHOUSE_LIBRARIES_DIR);
const QString App = LibrariesDir + QStringLiteral("/sidekiq_app.rb");
const QString Ruby = QStringLiteral("/usr/bin/ruby");

// The RUBYLIB of a Sidekiq checkout (GATEHOUSE_SIDEKIQ_RUBYLIB), or empty
// for Debian's.
QString rubyLib()
{
    return qEnvironmentVariable("GATEHOUSE_SIDEKIQ_RUBYLIB");
}

// The sidekiq executable: Debian's, or bin/sidekiq of the checkout whose
// lib (an entry of the RUBYLIB) holds sidekiq.rb.
QString sidekiqExecutable()
{
    if (rubyLib().isEmpty())
        return QStringLiteral("/usr/bin/sidekiq");
    for (const QString &dir : rubyLib().split(QLatin1Char(':'), Qt::SkipEmptyParts)) {
        if (QFile::exists(dir + QStringLiteral("/sidekiq.rb")))
            return dir + QStringLiteral("/../bin/sidekiq");
    }
    return {};
}

// A process's work hash after its identity: Sidekiq 6's, or 7's.
QByteArray workSuffix()
{
    return rubyLib().isEmpty() ? QByteArray(":workers") : QByteArray(":work");
}

// The environment of every Ruby the test runs: RUBYLIB when one is given.
QProcessEnvironment rubyEnvironment()
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    if (!rubyLib().isEmpty())
        env.insert(QStringLiteral("RUBYLIB"), rubyLib());
    return env;
}

// tests/libraries/sidekiq_app.rb run as a command; its stdout, trimmed.
QString app(const QString &url, const QStringList &args)
{
    QProcess p;
    p.setProcessEnvironment(rubyEnvironment());
    p.start(Ruby, QStringList{App, url} + args);
    if (!p.waitForFinished(60000) || p.exitCode() != 0) {
        qWarning("sidekiq_app.rb %s failed: %s", qPrintable(args.join(QLatin1Char(' '))),
                 p.readAllStandardError().constData());
        return QStringLiteral("<failed>");
    }
    return QString::fromUtf8(p.readAllStandardOutput()).trimmed();
}

// What Sidekiq's own Busy figure says: `ruby -e` printing
// Sidekiq::Stats.new.workers_size against the same server.
qint64 workersSize(const QString &url)
{
    QProcess p;
    QProcessEnvironment env = rubyEnvironment();
    env.insert(QStringLiteral("REDIS_URL"), url);
    p.setProcessEnvironment(env);
    p.start(Ruby, {QStringLiteral("-e"), QStringLiteral("require 'sidekiq'; require 'sidekiq/api'; "
                                                        "Sidekiq.logger.level = Logger::WARN; "
                                                        "print Sidekiq::Stats.new.workers_size")});
    if (!p.waitForFinished(60000) || p.exitCode() != 0)
        return -1;
    bool ok = false;
    const qint64 n = QString::fromUtf8(p.readAllStandardOutput()).trimmed().toLongLong(&ok);
    return ok ? n : -1;
}

QJsonObject stats(const QString &url)
{
    return QJsonDocument::fromJson(app(url, {QStringLiteral("stats")}).toUtf8()).object();
}

// A real Sidekiq worker process (one thread) loading the test's jobs.
std::unique_ptr<QProcess> startWorker(const RedisServer &server)
{
    auto p = std::make_unique<QProcess>();
    QProcessEnvironment env = rubyEnvironment();
    env.insert(QStringLiteral("REDIS_URL"), server.url());
    p->setProcessEnvironment(env);
    p->setStandardOutputFile(server.dir() + QStringLiteral("/sidekiq.log"), QIODevice::Append);
    p->setStandardErrorFile(server.dir() + QStringLiteral("/sidekiq.log"), QIODevice::Append);
    p->start(Ruby, {sidekiqExecutable(), QStringLiteral("-r"), App, QStringLiteral("-c"),
                    QStringLiteral("1")});
    return p;
}

using gatehouse::test::stopProcess;

bool waitFor(const std::function<bool()> &done, int ms = 30000)
{
    return gatehouse::test::pollUntil(done, ms);
}

QStringList strings(const RedisValue &list)
{
    QStringList out;
    for (const RedisValue &v : list.elements())
        out << QString::fromUtf8(v.bytes());
    return out;
}

// A page of a state's jobs, or a job's detail, as the Queues page reads them
// (JobBrowser over SidekiqUnit::jobPage and jobDetail).
JobListing page(RedisClient &client, const QString &state)
{
    JobBrowser browser(&client);
    QSignalSpy listed(&browser, &JobBrowser::listed);
    if (!browser.listJobs(SidekiqUnit::objectForKey("queues"), state, 0, 50) || !listed.wait(5000))
        return {};
    return listed.first().first().value<JobListing>();
}

JobListing detail(RedisClient &client, const QByteArray &ref)
{
    JobBrowser browser(&client);
    QSignalSpy detailed(&browser, &JobBrowser::detailed);
    if (!browser.showJob(SidekiqUnit::objectForKey("queues"), ref) || !detailed.wait(5000))
        return {};
    return detailed.first().first().value<JobListing>();
}

} // namespace

class tst_LibSidekiq : public QObject
{
    Q_OBJECT

private:
    CliRun cli(const RedisServer &server, QStringList args)
    {
        return gatehouse::test::libraryCli(QStringLiteral(GATEHOUSE_CLI), server, args);
    }
    QJsonObject snapshot(const RedisServer &server)
    {
        return gatehouse::test::snapshotOf(
            cli(server, {QStringLiteral("snapshot"), QStringLiteral("--json")}));
    }
    // Every object of the snapshot other than the deployment: none may exist
    // (Sidekiq's retry/schedule/dead sets, stat counters, heartbeat hashes
    // and work hashes are its own, not limiters, locks or tokens).
    static QStringList others(const QJsonObject &snapshot,
                              const QString &deployment = QStringLiteral("queues"))
    {
        return gatehouse::test::objectsBesides(snapshot, deployment);
    }
    static QJsonObject deployment(const QJsonObject &snapshot)
    {
        const QJsonArray queues = snapshot[QStringLiteral("queues")].toArray();
        return queues.size() == 1 ? queues.first().toObject() : QJsonObject();
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(QFile::exists(Ruby) && QFile::exists(sidekiqExecutable()),
                 rubyLib().isEmpty()
                     ? "/usr/bin/ruby or /usr/bin/sidekiq is missing: run .ci/install-deps "
                       "(Debian ruby-sidekiq)"
                     : "GATEHOUSE_SIDEKIQ_RUBYLIB names no lib holding sidekiq.rb with a "
                       "bin/sidekiq beside it (see README, supported libraries)");
        QProcess p;
        p.setProcessEnvironment(rubyEnvironment());
        p.start(Ruby, {QStringLiteral("-e"),
                       QStringLiteral("require 'sidekiq'; print Sidekiq::VERSION")});
        QVERIFY(p.waitForFinished(30000));
        const QString version = QString::fromUtf8(p.readAllStandardOutput());
        // Debian's is 6.x; a checkout is the 7.x the test was run with (8
        // needs Ruby 3.2).
        const QString major = rubyLib().isEmpty() ? QStringLiteral("6.") : QStringLiteral("7.");
        QVERIFY2(p.exitCode() == 0 && version.startsWith(major),
                 qPrintable(QStringLiteral("Sidekiq %1 is not loadable for /usr/bin/ruby (found "
                                           "\"%2\"): %3")
                                .arg(major + QLatin1Char('x'), version,
                                     rubyLib().isEmpty()
                                         ? QStringLiteral("run .ci/install-deps (Debian "
                                                          "ruby-sidekiq)")
                                         : QStringLiteral("check GATEHOUSE_SIDEKIQ_RUBYLIB"))));
        qInfo("Sidekiq %s (%s)", qPrintable(version),
              rubyLib().isEmpty() ? "Debian" : qPrintable(rubyLib()));
    }

    void sidekiq()
    {
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        std::unique_ptr<RedisClient> connected = gatehouse::test::connectedClient(server);
        QVERIFY(connected);
        RedisClient &client = *connected;
        const QString url = server.url();
        const auto push = [&](const char *klass, const char *tag) {
            return app(url, {QStringLiteral("push"), QLatin1String(klass), QLatin1String(tag)});
        };

        // A worker takes stuck-1 (the oldest) and blocks in it.
        QCOMPARE(call(client, {"SET", "hang", "1"}).bytes(), QByteArray("OK"));
        const QString stuckJid = push("HangJob", "stuck-1");
        QCOMPARE(stuckJid.size(), 24);
        QCOMPARE(push("HangJob", "job-2").size(), 24);
        QCOMPARE(push("HangJob", "job-3").size(), 24);
        auto worker = startWorker(server);
        const auto stopWorker = qScopeGuard([&] { stopProcess(worker); });
        QVERIFY2(waitFor([&] {
                     return strings(call(client, {"LRANGE", "started", "0", "-1"}))
                            == QStringList{QStringLiteral("stuck-1")};
                 }),
                 "the worker did not take stuck-1");
        // Its heartbeat (every 5 s) records what it runs, in the work hash
        // ("<identity>:workers" in Sidekiq 6, "<identity>:work" in 7: its
        // launcher.rb). Sidekiq 6 writes the work hash and the "busy" count in two transactions:
        // both, before the kill (a kill between them, likely on a loaded machine, leaves the last
        // beat's busy 0).
        QByteArray identity;
        QVERIFY2(waitFor([&] {
                     identity = call(client, {"SRANDMEMBER", "processes"}).bytes();
                     return !identity.isEmpty()
                            && call(client, {"HLEN", identity + workSuffix()}).toInteger() == 1
                            && call(client, {"HGET", identity, "busy"}).bytes() == "1";
                 }),
                 "the worker's heartbeat never recorded its work");

        // Killed -9 in the middle of the job: no shutdown, no requeue by Sidekiq.
        worker->kill();
        worker->waitForFinished(10000);
        worker.reset();

        // Right after, its last heartbeat is a few seconds old: in flight, not
        // stuck (a process between two beats is alive).
        QJsonObject snap = snapshot(server);
        QJsonObject d = deployment(snap);
        QCOMPARE(d[QStringLiteral("pattern")].toString(), QStringLiteral("sidekiq"));
        QCOMPARE(d[QStringLiteral("inFlight")].toInt(), 1);
        QCOMPARE(d[QStringLiteral("stuck")].toArray().size(), 0);
        // The text snapshot names the deployment "Sidekiq", and its key,
        // which commands take, beside it.
        const CliRun text = cli(server, {QStringLiteral("snapshot")});
        QVERIFY2(text.exitCode == 0, qPrintable(text.err));
        const QStringList lines = text.out.split(QLatin1Char('\n'));
        QVERIFY2(std::any_of(lines.cbegin(), lines.cend(),
                             [](const QString &l) {
                                 return l.trimmed().startsWith(QLatin1String("Sidekiq"))
                                        && l.contains(QLatin1String("  key queues"));
                             }),
                 qPrintable(text.out));
        // "Requeue all stuck"'s confirmation: nothing on a live process counts.
        const auto stuckNow = [&] {
            return gatehouse::test::matchNow(
                client, SidekiqUnit::Kind, SidekiqUnit::objectForKey("queues"),
                QStringLiteral("queue.requeue"), {{QStringLiteral("stuck"), QByteArray()}});
        };
        gatehouse::test::MatchNow counted = stuckNow();
        QVERIFY2(counted.ok, qPrintable(counted.error));
        QCOMPARE(counted.count, qint64(0));

        // No one restarts it. Once its heartbeat is DeadAfterMs old (server
        // time; its hash would expire at 60 s, and the work with it),
        // Gatehouse calls the job stuck. Real time passes: nothing is expired
        // or deleted by the test.
        QVERIFY2(waitFor(
                     [&] {
                         snap = snapshot(server);
                         return deployment(snap)[QStringLiteral("stuck")].toArray().size() == 1;
                     },
                     40000),
                 "the dead process's job was never reported stuck");
        d = deployment(snap);
        QCOMPARE(d[QStringLiteral("key")].toString(), QStringLiteral("queues"));
        const QJsonObject library = d[QStringLiteral("library")].toObject();
        QCOMPARE(library[QStringLiteral("name")].toString(), QStringLiteral("sidekiq"));
        QCOMPARE(library[QStringLiteral("layoutKnown")].toBool(), true);
        QJsonObject counts = d[QStringLiteral("counts")].toObject();
        QCOMPARE(counts[QStringLiteral("enqueued")].toInt(), 2);
        // Busy as Sidekiq's own Stats#workers_size counts it: the killed
        // process stays in "processes" with its last "busy" until its hash
        // expires, and Sidekiq counts it.
        const qint64 sidekiqBusy = workersSize(url);
        QCOMPARE(sidekiqBusy, qint64(1));
        QCOMPARE(qint64(counts[QStringLiteral("busy")].toInt()), sidekiqBusy);
        qInfo("busy %d, Sidekiq::Stats#workers_size %lld", counts[QStringLiteral("busy")].toInt(),
              sidekiqBusy);
        QCOMPARE(counts[QStringLiteral("retry")].toInt(), 0);
        QCOMPARE(counts[QStringLiteral("scheduled")].toInt(), 0);
        QCOMPARE(counts[QStringLiteral("dead")].toInt(), 0);
        // Sidekiq::Stats' processed and failed (its lifetime counters: the
        // throughput chart's figures), as its dashboard shows them.
        const QJsonObject before = stats(url);
        QCOMPARE(counts[QStringLiteral("processed")].toInt(),
                 before[QStringLiteral("processed")].toInt());
        QCOMPARE(counts[QStringLiteral("failed")].toInt(),
                 before[QStringLiteral("failed")].toInt());
        const QJsonObject stuck = d[QStringLiteral("stuck")].toArray().first().toObject();
        QCOMPARE(stuck[QStringLiteral("job")].toString(), stuckJid);
        QVERIFY(stuck[QStringLiteral("reason")].toString().contains(QLatin1String("dead")));
        QVERIFY(stuck[QStringLiteral("sinceMs")].toDouble() > 1.6e12); // run_at, in ms
        const QJsonArray queues = d[QStringLiteral("queues")].toArray();
        QCOMPARE(queues.size(), 1);
        QCOMPARE(queues.first()[QStringLiteral("name")].toString(), QStringLiteral("default"));
        QCOMPARE(queues.first()[QStringLiteral("size")].toInt(), 2);
        QVERIFY(queues.first()[QStringLiteral("latencyMs")].toDouble() >= 20000);
        const QJsonArray processes = d[QStringLiteral("processes")].toArray();
        QCOMPARE(processes.size(), 1);
        const QJsonObject process = processes.first().toObject();
        QCOMPARE(process[QStringLiteral("identity")].toString(), QString::fromUtf8(identity));
        QCOMPARE(process[QStringLiteral("alive")].toBool(), false);
        QCOMPARE(process[QStringLiteral("state")].toString(), QStringLiteral("dead"));
        // Its work is lost for good when its work hash expires (EXPIRE 60 at
        // its last beat, at least 20 s ago): a countdown of about 40 s at most, which
        // decreases with the server's clock.
        const double lostIn = process[QStringLiteral("workLostInMs")].toDouble(-1);
        QVERIFY2(lostIn > 0 && lostIn <= 41000, qPrintable(QString::number(lostIn)));
        QCOMPARE(d[QStringLiteral("workLostInMs")].toDouble(-1), lostIn);
        QTest::qWait(1500);
        const QJsonObject later = deployment(snapshot(server));
        const double lostLater = later[QStringLiteral("workLostInMs")].toDouble(-1);
        QVERIFY2(lostLater > 0 && lostLater <= lostIn - 1000,
                 qPrintable(QStringLiteral("%1 then %2").arg(lostIn).arg(lostLater)));
        qInfo("work lost in %.1f s, then %.1f s", lostIn / 1000, lostLater / 1000);
        // The alert figure for it fires on the first reading.
        const CliRun alerted = cli(server, {QStringLiteral("watch"), QStringLiteral("--interval"),
                                            QStringLiteral("300"), QStringLiteral("--count"),
                                            QStringLiteral("2"), QStringLiteral("--alert"),
                                            QStringLiteral("workLostInMs < 61s on sidekiq"),
                                            QStringLiteral("--fail-on-alert")});
        const QString alertSaid = alerted.out + alerted.err;
        QVERIFY2(alerted.exitCode == 4, qPrintable(alertSaid));
        // The --alert rule is named by its figure's title, as the console shows it.
        QVERIFY2(alertSaid.contains(QLatin1String("(rule \"Dead process's work lost in < ")),
                 qPrintable(alertSaid));
        QVERIFY2(!alertSaid.contains(QLatin1String("workLostInMs")), qPrintable(alertSaid));
        QCOMPARE(process[QStringLiteral("concurrency")].toInt(), 1);
        QCOMPARE(process[QStringLiteral("busy")].toInt(), 1);
        QVERIFY(process[QStringLiteral("beatAgeMs")].toDouble() >= 20000);
        QCOMPARE(process[QStringLiteral("work")].toArray().size(), 1);
        QCOMPARE(process[QStringLiteral("work")][0][QStringLiteral("job")].toString(), stuckJid);
        QCOMPARE(process[QStringLiteral("work")][0][QStringLiteral("class")].toString(),
                 QStringLiteral("HangJob"));
        QCOMPARE(others(snap), QStringList());

        // Its jobs as the Queues page lists them: the dead process's one busy
        // (named by its jid, which requeue --job takes), the others enqueued.
        JobListing jobs = page(client, QStringLiteral("busy"));
        QVERIFY2(jobs.ok, qPrintable(jobs.message));
        QCOMPARE(jobs.total, 1);
        QCOMPARE(QString::fromUtf8(jobs.rows.first().id), stuckJid);
        QCOMPARE(jobs.rows.first().name, QStringLiteral("HangJob"));
        QVERIFY(jobs.rows.first().atMs > 1.6e12);
        JobListing shown = detail(client, jobs.rows.first().refOrId());
        QVERIFY2(shown.ok, qPrintable(shown.message));
        QVERIFY2(shown.detail.contains(stuckJid), qPrintable(shown.detail));
        jobs = page(client, QStringLiteral("enqueued"));
        QCOMPARE(jobs.total, 2);
        QCOMPARE(jobs.rows.size(), 2);
        for (const JobRow &row : jobs.rows) {
            QCOMPARE(row.name, QStringLiteral("HangJob"));
            QCOMPARE(row.id.size(), 24);
            QVERIFY(row.atMs > 1.6e12); // enqueued_at
            shown = detail(client, row.refOrId());
            QVERIFY2(shown.ok, qPrintable(shown.message));
            QVERIFY2(shown.detail.contains(QString::fromUtf8(row.id)), qPrintable(shown.detail));
        }
        // By the jid alone, as queue search prints it: found in its queue.
        const QString enqueuedJid = QString::fromUtf8(jobs.rows.first().id);
        const CliRun byId = cli(server, {QStringLiteral("queue"), QStringLiteral("job"),
                                         QStringLiteral("queues"), enqueuedJid});
        QVERIFY2(byId.exitCode == 0, qPrintable(byId.err + byId.out));
        QVERIFY2(byId.out.contains(enqueuedJid), qPrintable(byId.out));
        // Named as the snapshot shows the deployment ("Sidekiq"): the same.
        const CliRun byName = cli(server, {QStringLiteral("queue"), QStringLiteral("search"),
                                           QStringLiteral("Sidekiq"), enqueuedJid});
        QVERIFY2(byName.exitCode == 0, qPrintable(byName.err + byName.out));
        QVERIFY2(byName.out.contains(QLatin1String("1 job found in queues (Sidekiq deployment)")),
                 qPrintable(byName.out));
        const CliRun noSuch
            = cli(server, {QStringLiteral("queue"), QStringLiteral("job"), QStringLiteral("queues"),
                           QStringLiteral("0123456789abcdef01234567")});
        QCOMPARE(noSuch.exitCode, 3);
        QVERIFY2(noSuch.err.contains(QLatin1String("No job with that id in any state")),
                 qPrintable(noSuch.err));
        // A verb on a set not named: where else to look is said.
        const CliRun notInRetry = cli(server, {QStringLiteral("queue"), QStringLiteral("delete"),
                                               QStringLiteral("queues"), QStringLiteral("--job"),
                                               QStringLiteral("0123456789abcdef01234567")});
        QCOMPARE(notInRetry.exitCode, 3);
        QVERIFY2(QString(notInRetry.err + notInRetry.out)
                     .contains(QLatin1String("name it with --from schedule|dead")),
                 qPrintable(notInRetry.err + notInRetry.out));

        // The confirmation counts it by the server's clock, as the script
        // will judge it.
        counted = stuckNow();
        QVERIFY2(counted.ok, qPrintable(counted.error));
        QCOMPARE(counted.count, qint64(1));
        QVERIFY2(counted.sentence.startsWith(QLatin1String("1 match now; they are requeued 100 "
                                                           "per run")),
                 qPrintable(counted.sentence));

        // Pushed back through the CLI; Sidekiq's own API sees it enqueued.
        CliRun run = cli(server, {QStringLiteral("queue"), QStringLiteral("requeue"),
                                  QStringLiteral("queues"), QStringLiteral("--stuck")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QVERIFY2(run.out.contains(QLatin1String("Requeued 1 stuck job.")), qPrintable(run.out));
        QCOMPARE(call(client, {"EXISTS", identity + workSuffix()}).toInteger(), 0);
        QJsonObject s = stats(url);
        QCOMPARE(s[QStringLiteral("enqueued")].toInt(), 3);
        QCOMPARE(s[QStringLiteral("queues")][QStringLiteral("default")].toInt(), 3);
        QCOMPARE(s[QStringLiteral("retry")].toInt(), 0);
        // Nothing left to recover: a second run changes nothing.
        run = cli(server, {QStringLiteral("queue"), QStringLiteral("requeue"),
                           QStringLiteral("queues"), QStringLiteral("--stuck")});
        QCOMPARE(run.exitCode, 3);
        QCOMPARE(stats(url)[QStringLiteral("enqueued")].toInt(), 3);
        QCOMPARE(stuckNow().count, qint64(0));

        // Jobs that fail once wait an hour in the retry set.
        QCOMPARE(call(client, {"DEL", "hang"}).toInteger(), 1);
        const QString retried = push("FailOnceJob", "fail-1");
        const QString killed = push("FailOnceJob", "fail-2");
        const QString deleted = push("FailOnceJob", "fail-3");
        worker = startWorker(server);
        QVERIFY2(waitFor([&] {
                     return call(client, {"LLEN", "ran"}).toInteger() == 3
                            && call(client, {"ZCARD", "retry"}).toInteger() == 3;
                 }),
                 "the new worker did not run the requeued jobs");
        s = stats(url);
        QCOMPARE(s[QStringLiteral("retry")].toInt(), 3);
        QCOMPARE(s[QStringLiteral("enqueued")].toInt(), 0);
        // Listed in the retry set with their class, error and retry count,
        // each named "<score>-<jid>" as Sidekiq Web names it.
        jobs = page(client, QStringLiteral("retry"));
        QCOMPARE(jobs.total, 3);
        QStringList retrying;
        for (const JobRow &row : jobs.rows) {
            retrying << QString::fromUtf8(row.id);
            QCOMPARE(row.name, QStringLiteral("FailOnceJob"));
            QCOMPARE(row.error, QStringLiteral("failing once on purpose"));
            QCOMPARE(row.attempts, 0); // retry_count: none retried yet
            QVERIFY(row.ref.endsWith(QByteArray('-' + row.id)));
            shown = detail(client, row.ref);
            QVERIFY2(shown.ok, qPrintable(shown.message));
            QVERIFY2(shown.detail.contains(QLatin1String("failing once on purpose")),
                     qPrintable(shown.detail));
        }
        retrying.sort();
        QStringList pushed{retried, killed, deleted};
        pushed.sort();
        QCOMPARE(retrying, pushed);

        // Retry now (from the retry set), kill (to dead), then retry from dead.
        run = cli(server, {QStringLiteral("queue"), QStringLiteral("retry"),
                           QStringLiteral("queues"), QStringLiteral("--job"), retried});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
        run = cli(server, {QStringLiteral("queue"), QStringLiteral("kill"),
                           QStringLiteral("queues"), QStringLiteral("--job"), killed});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
        QVERIFY2(waitFor([&] {
                     return call(client, {"LLEN", "ran"}).toInteger() == 4;
                 }),
                 "the worker did not run the job retried from the retry set");
        s = stats(url);
        QCOMPARE(s[QStringLiteral("dead")].toInt(), 1);
        QCOMPARE(s[QStringLiteral("retry")].toInt(), 1);
        jobs = page(client, QStringLiteral("dead"));
        QCOMPARE(jobs.total, 1);
        QCOMPARE(QString::fromUtf8(jobs.rows.first().id), killed);
        QVERIFY(jobs.rows.first().atMs > 1.6e12); // when it died
        run = cli(server, {QStringLiteral("queue"), QStringLiteral("retry"),
                           QStringLiteral("queues"), QStringLiteral("--job"), killed,
                           QStringLiteral("--from"), QStringLiteral("dead")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
        // Delete, named "<score>-<jid>" as Sidekiq Web names it.
        const QJsonArray retries = stats(url)[QStringLiteral("retries")].toArray();
        QCOMPARE(retries.size(), 1);
        QCOMPARE(retries.first()[QStringLiteral("jid")].toString(), deleted);
        run = cli(server, {QStringLiteral("queue"), QStringLiteral("delete"),
                           QStringLiteral("queues"), QStringLiteral("--job"),
                           retries.first()[QStringLiteral("score")].toString() + QLatin1Char('-')
                               + deleted});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
        QVERIFY2(waitFor([&] {
                     return call(client, {"LLEN", "ran"}).toInteger() == 5;
                 }),
                 "the worker did not run the job retried from the dead set");

        // Exactly once each (stuck-1 started twice: the killed run and the
        // requeued one), and nothing lost by Sidekiq's own account.
        QStringList ran = strings(call(client, {"LRANGE", "ran", "0", "-1"}));
        ran.sort();
        QCOMPARE(ran, (QStringList{"fail-1", "fail-2", "job-2", "job-3", "stuck-1"}));
        QCOMPARE(strings(call(client, {"LRANGE", "started", "0", "-1"}))
                     .count(QStringLiteral("stuck-1")),
                 2);
        s = stats(url);
        for (const char *state : {"enqueued", "retry", "dead", "scheduled"})
            QCOMPARE(s[QLatin1String(state)].toInt(), 0);
        // Its processed and failed counters are flushed with each heartbeat.
        QVERIFY2(waitFor([&] { return stats(url)[QStringLiteral("failed")].toInt() == 3; }),
                 "Sidekiq did not count 3 failures");

        // Stopped cleanly (TERM): Sidekiq takes the process out of
        // "processes" and leaves its hash to expire. It is not listed, not
        // alive, and a job pushed now has no worker.
        const QStringList running = strings(call(client, {"SMEMBERS", "processes"}));
        worker->terminate();
        QVERIFY2(worker->waitForFinished(30000), "Sidekiq did not stop on TERM");
        worker.reset();
        QStringList stopped = running;
        for (const QString &p : strings(call(client, {"SMEMBERS", "processes"})))
            stopped.removeAll(p);
        QCOMPARE(stopped.size(), 1); // it took itself out; the killed one is still listed
        QCOMPARE(call(client, {"EXISTS", stopped.first().toUtf8()}).toInteger(), 1);
        QVERIFY(!push("HangJob", "after-stop").isEmpty());
        d = deployment(snapshot(server));
        for (const QJsonValue &p : d[QStringLiteral("processes")].toArray()) {
            QVERIFY2(p[QStringLiteral("identity")].toString() != stopped.first()
                         && !p[QStringLiteral("alive")].toBool(),
                     qPrintable(QJsonDocument(d).toJson()));
        }
        QCOMPARE(d[QStringLiteral("state")][QStringLiteral("id")].toString(),
                 QStringLiteral("no-worker"));
        QCOMPARE(call(client, {"LPOP", "queue:default"}).isNil(), false);
        // Its queue is empty now (no list key; "queues" still names it): one
        // snapshot reads it as Sidekiq::Queue does, size 0.
        QCOMPARE(call(client, {"EXISTS", "queue:default"}).toInteger(), 0);
        d = deployment(snapshot(server));
        const QJsonArray emptied = d[QStringLiteral("queues")].toArray();
        QVERIFY2(emptied.size() == 1 && emptied.first()[QStringLiteral("size")] == QJsonValue(0)
                     && emptied.first()[QStringLiteral("latencyMs")] == QJsonValue(0),
                 qPrintable(QJsonDocument(d).toJson()));
        QVERIFY2(!d[QStringLiteral("message")].toString().contains(QLatin1String("were read")),
                 qPrintable(QJsonDocument(d).toJson()));

        // Still one deployment, nothing mistaken for anything else.
        snap = snapshot(server);
        QCOMPARE(snap[QStringLiteral("queues")].toArray().size(), 1);
        QCOMPARE(others(snap), QStringList());
    }

    // Sidekiq 7 and 8 are not in Debian: their layout as LIBRARIES.md reads
    // it from Sidekiq 8.1's source, written here by hand (not by Sidekiq),
    // under a redis-namespace prefix: "<identity>:work" whose payload is the
    // job's JSON string, timestamps in ms (8), "version" in the info JSON.
    void sidekiq8LayoutByHand()
    {
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        std::unique_ptr<RedisClient> connected = gatehouse::test::connectedClient(server);
        QVERIFY(connected);
        RedisClient &client = *connected;
        const RedisValue time = call(client, {"TIME"});
        const qint64 nowMs
            = time.at(0).bytes().toLongLong() * 1000 + time.at(1).bytes().toLongLong() / 1000;
        const QByteArray now = QByteArray::number(nowMs);
        const QByteArray dead = "web-1:101:aaaaaaaaaaaa", live = "web-2:202:bbbbbbbbbbbb";
        const auto job
            = [&](const QByteArray &jid, const QByteArray &queue, qint64 at) -> QByteArray {
            return "{\"class\":\"Report\",\"args\":[],\"jid\":\"" + jid + "\",\"queue\":\"" + queue
                   + "\",\"created_at\":" + QByteArray::number(at)
                   + ",\"enqueued_at\":" + QByteArray::number(at) + "}";
        };
        const QByteArray deadJob = job("j8dead", "critical", nowMs - 90000);
        const auto work = [&](const QByteArray &payload, qint64 runAt) -> QByteArray {
            return QJsonDocument(
                       QJsonObject{{QStringLiteral("queue"), QStringLiteral("critical")},
                                   {QStringLiteral("payload"), QString::fromUtf8(payload)},
                                   {QStringLiteral("run_at"), double(runAt)}})
                .toJson(QJsonDocument::Compact);
        };
        const QList<QList<QByteArray>> writes{
            {"SADD", "myapp:queues", "default"},
            {"SADD", "myapp:processes", dead, live},
            {"LPUSH", "myapp:queue:default", job("j8wait", "default", nowMs - 5000)},
            // The dead process's heartbeat hash expired; its work is left.
            {"HSET", "myapp:" + dead + ":work", "t1", work(deadJob, nowMs - 70000)},
            {"EXPIRE", "myapp:" + dead + ":work", "60"},
            {"HSET", "myapp:" + live, "info",
             "{\"hostname\":\"web-2\",\"concurrency\":5,\"version\":\"8.0.1\",\"identity\":\""
                 + live + "\"}",
             "busy", "1", "beat", now, "quiet", "false"},
            {"EXPIRE", "myapp:" + live, "60"},
            {"HSET", "myapp:" + live + ":work", "t2",
             work(job("j8live", "critical", nowMs - 3000), nowMs - 2000)},
            {"EXPIRE", "myapp:" + live + ":work", "60"},
            {"ZADD", "myapp:retry", QByteArray::number(nowMs / 1000 + 3600),
             "{\"class\":\"Report\",\"args\":[],\"jid\":\"j8retry\",\"queue\":"
             "\"default\",\"enqueued_at\":"
                 + QByteArray::number(nowMs - 100000) + ",\"retry_count\":2}"},
        };
        for (const QList<QByteArray> &w : writes)
            QVERIFY(!call(client, w).isError());

        QJsonObject snap = snapshot(server);
        QCOMPARE(others(snap, QStringLiteral("myapp:queues")), QStringList());
        const QJsonObject d = deployment(snap);
        QCOMPARE(d[QStringLiteral("key")].toString(), QStringLiteral("myapp:queues"));
        QCOMPARE(d[QStringLiteral("library")][QStringLiteral("layout")].toString(),
                 QStringLiteral("sidekiq:8.0.1"));
        QJsonObject counts = d[QStringLiteral("counts")].toObject();
        QCOMPARE(counts[QStringLiteral("enqueued")].toInt(), 1);
        QCOMPARE(counts[QStringLiteral("busy")].toInt(), 1);
        QCOMPARE(counts[QStringLiteral("retry")].toInt(), 1);
        const QJsonArray stuck = d[QStringLiteral("stuck")].toArray();
        QCOMPARE(stuck.size(), 1);
        QCOMPARE(stuck.first()[QStringLiteral("job")].toString(), QStringLiteral("j8dead"));
        QCOMPARE(qint64(stuck.first()[QStringLiteral("sinceMs")].toDouble()), nowMs - 70000);
        const QJsonObject queue = d[QStringLiteral("queues")][0].toObject();
        QCOMPARE(queue[QStringLiteral("name")].toString(), QStringLiteral("default"));
        const double latency = queue[QStringLiteral("latencyMs")].toDouble();
        QVERIFY2(latency >= 5000 && latency < 60000, qPrintable(QString::number(latency)));
        QCOMPARE(d[QStringLiteral("inFlight")].toInt(), 2);

        // The live process's job is refused; the dead one's goes back as it was.
        CliRun run = cli(server, {QStringLiteral("queue"), QStringLiteral("requeue"),
                                  QStringLiteral("myapp:queues"), QStringLiteral("--job"),
                                  QStringLiteral("j8live")});
        QCOMPARE(run.exitCode, 3);
        QVERIFY2(run.err.contains(QLatin1String("live")), qPrintable(run.err));
        run = cli(server, {QStringLiteral("queue"), QStringLiteral("requeue"),
                           QStringLiteral("myapp:queues"), QStringLiteral("--job"),
                           QStringLiteral("j8dead")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        // The outcome names the queue the job went to, as its key is named.
        QVERIFY2(run.out.contains(QLatin1String("Job j8dead was pushed back to queue \"critical\" "
                                                "(myapp:queue:critical).")),
                 qPrintable(run.out));
        QCOMPARE(call(client, {"LRANGE", "myapp:queue:critical", "0", "-1"}).size(), 1);
        QCOMPARE(call(client, {"LINDEX", "myapp:queue:critical", "0"}).bytes(), deadJob);
        QCOMPARE(call(client, {"SISMEMBER", "myapp:queues", "critical"}).toInteger(), 1);
        QCOMPARE(call(client, {"EXISTS", "myapp:" + dead + ":work"}).toInteger(), 0);
        QCOMPARE(call(client, {"HLEN", "myapp:" + live + ":work"}).toInteger(), 1);

        // Retry now: retry_count given back, enqueued_at now in ms, args kept.
        run = cli(server,
                  {QStringLiteral("queue"), QStringLiteral("retry"), QStringLiteral("myapp:queues"),
                   QStringLiteral("--job"), QStringLiteral("j8retry")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
        QCOMPARE(call(client, {"ZCARD", "myapp:retry"}).toInteger(), 0);
        const QByteArray retried = call(client, {"LINDEX", "myapp:queue:default", "0"}).bytes();
        const QJsonObject o = QJsonDocument::fromJson(retried).object();
        QCOMPARE(o[QStringLiteral("jid")].toString(), QStringLiteral("j8retry"));
        QCOMPARE(o[QStringLiteral("retry_count")].toInt(), 1);
        QVERIFY(o[QStringLiteral("args")].isArray());
        QVERIFY(o[QStringLiteral("enqueued_at")].toDouble() >= double(nowMs));
        QVERIFY2(retried.contains("\"args\":[]"), retried.constData());
    }
};

QTEST_GUILESS_MAIN(tst_LibSidekiq)
#include "tst_lib_sidekiq.moc"
