// SPDX-License-Identifier: MIT
// Two limiter libraries driven for real against a private redis-server:
// npm redis-semaphore 5 (tests/libraries/semaphore-app.js: its own Semaphore,
// MultiSemaphore and Mutex) and Python limits 2.8 (Debian python3-limits;
// tests/libraries/limits_app.py: its fixed, elastic-expiry and moving-window
// strategies on its Redis storage). A Semaphore holder is killed with SIGKILL
// while it holds; once its lock timeout has passed Gatehouse, with no
// profile, shows it stale with the library's rule, releases it through the
// CLI, and the library's own acquire then agrees on what is held. The limits
// counters and moving windows are shown with the library's own figures
// (get_window_stats) and reset through the CLI. Resembling layouts (holders
// that are not the library's identifiers, a LIMITER key without the limit in
// its name) are shown read-only, and the hand-written patterns next to them
// keep their own units.
#include <redis/redisclient.h>

#include "librarytest.h"
#include "limiterapps.h"
#include "otherlibraries.h"
#include "redisserver.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QScopeGuard>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

#include <signal.h>

using namespace gatehouse;
using gatehouse::test::CliRun;
using gatehouse::test::RedisServer;
using gatehouse::test::SemaphoreHolder;

namespace {

const qint64 TimeoutMs = 10000; // the holders' lockTimeout: refreshed every 8 s

QJsonObject objectOf(const QJsonObject &snapshot, const QString &section, const QString &key)
{
    for (const QJsonValue &o : snapshot.value(section).toArray()) {
        if (o[QStringLiteral("key")].toString() == key)
            return o.toObject();
    }
    return {};
}

QJsonObject holderOf(const QJsonObject &semaphore, const QByteArray &identifier)
{
    for (const QJsonValue &h : semaphore.value(QStringLiteral("holderList")).toArray()) {
        if (h[QStringLiteral("holder")].toString() == QString::fromUtf8(identifier))
            return h.toObject();
    }
    return {};
}

} // namespace

class tst_LibLimiters : public QObject
{
    Q_OBJECT

private:
    RedisServer m_server;
    std::unique_ptr<RedisClient> m_client;

    RedisValue call(const QList<QByteArray> &command)
    {
        return gatehouse::test::call(*m_client, command);
    }
    qint64 serverNowMs()
    {
        const RedisValue t = call({"TIME"});
        return t.at(0).bytes().toLongLong() * 1000 + t.at(1).bytes().toLongLong() / 1000;
    }
    CliRun cli(const QStringList &args)
    {
        return gatehouse::test::libraryCli(QStringLiteral(GATEHOUSE_CLI), m_server, args);
    }
    QJsonObject snapshot(const QStringList &extra = {})
    {
        return gatehouse::test::snapshotOf(
            cli(extra + QStringList{QStringLiteral("snapshot"), QStringLiteral("--json")}));
    }
    QJsonObject limits(const QString &command, const QStringList &args)
    {
        return QJsonDocument::fromJson(
                   gatehouse::test::LimitsApp{m_server.url()}.run(command, args).toUtf8())
            .object();
    }
    QString hits(const QStringList &args)
    {
        return gatehouse::test::LimitsApp{m_server.url()}.run(QStringLiteral("hit"), args);
    }
    gatehouse::test::SemaphoreApp semaphores() const { return {m_server.url()}; }

private slots:
    void initTestCase()
    {
        const QString missing = gatehouse::test::limiterLibrariesMissing();
        QVERIFY2(missing.isEmpty(), qPrintable(missing));
        QVERIFY2(m_server.start(), qPrintable(m_server.errorString()));
        m_client = gatehouse::test::connectedClient(m_server);
        QVERIFY(m_client);
    }

    void cleanup() { call({"FLUSHALL"}); }

    void cleanupTestCase()
    {
        m_client.reset();
        m_server.stop();
        QCOMPARE(RedisServer::runningChildren(), 0);
    }

    // A Semaphore holder killed mid-hold turns stale after the lock timeout
    // while a MultiSemaphore holder of 2 permits, acquired later, is paused
    // (SIGSTOP: a slow process, its refresh not yet due). The library prunes a
    // stale holder at any holder's next acquire or refresh, so the stale one
    // stays until the paused holder runs again. Gatehouse shows both under the
    // library with its own rule, the Mutex as a lock, and nothing else; the
    // library's own acquire agrees on the permits held.
    void semaphoreHolders()
    {
        const QString limit = QStringLiteral("5");
        const QString timeout = QString::number(TimeoutMs);
        SemaphoreHolder killed, multi, mutex;
        const auto stopAll = qScopeGuard([&] {
            if (multi.process)
                ::kill(pid_t(multi.process->processId()), SIGCONT);
            for (SemaphoreHolder *h : {&killed, &multi, &mutex})
                gatehouse::test::stopProcess(h->process);
        });
        QVERIFY(killed.start(semaphores(), {QStringLiteral("hold"), QStringLiteral("jobs"), limit,
                                            QStringLiteral("0"), timeout}));
        killed.process->kill(); // SIGKILL: no release, no more refreshes
        killed.process->waitForFinished(10000);
        const qint64 acquiredAt
            = call({"ZSCORE", "semaphore:jobs", killed.identifier}).bytes().toLongLong();
        QVERIFY(acquiredAt > 0);
        QVERIFY(gatehouse::test::pollUntil(
            [&] { return serverNowMs() - acquiredAt > TimeoutMs * 7 / 10; }, 30000));
        QVERIFY(multi.start(semaphores(), {QStringLiteral("hold"), QStringLiteral("jobs"), limit,
                                           QStringLiteral("2"), timeout}));
        QCOMPARE(::kill(pid_t(multi.process->processId()), SIGSTOP), 0);
        QVERIFY(mutex.start(semaphores(), {QStringLiteral("mutex"), QStringLiteral("report"),
                                           QStringLiteral("30000")}));
        QVERIFY(gatehouse::test::pollUntil(
            [&] { return serverNowMs() - acquiredAt > TimeoutMs + 200; }, 30000));

        const QJsonObject snap = snapshot();
        const QJsonObject sem
            = objectOf(snap, QStringLiteral("semaphores"), QStringLiteral("semaphore:jobs"));
        QCOMPARE(sem[QStringLiteral("pattern")].toString(), QStringLiteral("redis-semaphore"));
        QCOMPARE(sem[QStringLiteral("library")][QStringLiteral("layoutKnown")].toBool(), true);
        // PTTL + the newest holder's age: the timeout, plus the delay between
        // the holder's clock read and its acquire script (rounded down to 100 ms).
        const double timeoutShown = sem[QStringLiteral("timeoutMs")].toDouble();
        QVERIFY2(timeoutShown >= double(TimeoutMs) && timeoutShown < double(TimeoutMs) + 1000,
                 qPrintable(QString::number(timeoutShown)));
        QCOMPARE(sem[QStringLiteral("holders")].toDouble(), 2.0); // the multi holder's permits
        QCOMPARE(sem[QStringLiteral("staleHolders")].toDouble(), 1.0);
        QVERIFY(sem[QStringLiteral("limit")].isNull()); // not in Redis
        const QJsonObject stale = holderOf(sem, killed.identifier);
        QCOMPARE(stale[QStringLiteral("stale")].toBool(), true);
        QCOMPARE(qint64(stale[QStringLiteral("acquiredAtMs")].toDouble()), acquiredAt);
        const QJsonObject live = holderOf(sem, multi.identifier);
        QCOMPARE(live[QStringLiteral("stale")].toBool(), false);
        QCOMPARE(live[QStringLiteral("permits")].toDouble(), 2.0);
        const QJsonArray stuck = sem[QStringLiteral("stuck")].toArray();
        QCOMPARE(stuck.size(), 1);
        QCOMPARE(stuck.at(0)[QStringLiteral("job")].toString(),
                 QString::fromUtf8(killed.identifier));
        QVERIFY(stuck.at(0)[QStringLiteral("reason")].toString().contains(
            QLatin1String("past the lock timeout")));

        const QJsonObject lock
            = objectOf(snap, QStringLiteral("locks"), QStringLiteral("mutex:report"));
        QCOMPARE(lock[QStringLiteral("pattern")].toString(), QStringLiteral("lock"));
        QCOMPARE(lock[QStringLiteral("token")].toString(), QString::fromUtf8(mutex.identifier));
        QStringList others = gatehouse::test::objectsBesides(snap, QString());
        others.removeAll(QStringLiteral("semaphores semaphore:jobs"));
        others.removeAll(QStringLiteral("locks mutex:report"));
        QVERIFY2(others.isEmpty(), qPrintable(others.join(QStringLiteral(", "))));

        // A profile gives the limit the library keeps in its callers.
        QTemporaryDir dir;
        QFile profile(dir.filePath(QStringLiteral("p.json")));
        QVERIFY(profile.open(QIODevice::WriteOnly));
        profile.write(R"({"name": "sem", "rules": [{"pattern": "redis-semaphore",
                      "match": "semaphore:*", "limit": 5}]})");
        profile.close();
        const QJsonObject withLimit
            = objectOf(snapshot({QStringLiteral("--profile"), profile.fileName()}),
                       QStringLiteral("semaphores"), QStringLiteral("semaphore:jobs"));
        QCOMPARE(withLimit[QStringLiteral("limit")].toDouble(), 5.0);
        QCOMPARE(withLimit[QStringLiteral("occupancy")].toDouble(), 0.4);

        // Release the stale holder: refused with another acquire time, done
        // with the one shown; the live holder's refreshes go on (no "lost").
        const QString score = QString::number(acquiredAt);
        const auto release = [&](const QByteArray &id, const QString &at) {
            return cli({QStringLiteral("semaphore"), QStringLiteral("release"),
                        QStringLiteral("semaphore:jobs"), QStringLiteral("--holder"),
                        QString::fromUtf8(id), QStringLiteral("--score"), at});
        };
        QCOMPARE(release(killed.identifier, QString::number(acquiredAt + 1)).exitCode, 3);
        QVERIFY(!call({"ZSCORE", "semaphore:jobs", killed.identifier}).isNil());
        const CliRun done = release(killed.identifier, score);
        QVERIFY2(done.exitCode == 0, qPrintable(done.err));
        QVERIFY(call({"ZSCORE", "semaphore:jobs", killed.identifier}).isNil());
        // The paused holder runs again: its refresh finds its permits.
        const QByteArray pausedAt
            = call({"ZSCORE", "semaphore:jobs", multi.identifier + "_0"}).bytes();
        QCOMPARE(::kill(pid_t(multi.process->processId()), SIGCONT), 0);
        QVERIFY(gatehouse::test::pollUntil(
            [&] {
                return call({"ZSCORE", "semaphore:jobs", multi.identifier + "_0"}).bytes()
                       != pausedAt;
            },
            int(TimeoutMs)));
        QVERIFY2(!multi.rest().contains("lost"), multi.output.constData());
        // The library's own acquire: 2 permits held of a limit of 3 leaves one.
        QCOMPARE(semaphores().run(
                     {QStringLiteral("try"), QStringLiteral("jobs"), QStringLiteral("2"), timeout}),
                 QStringLiteral("full"));

        // Releasing the live MultiSemaphore holder removes both its permits;
        // its own next refresh reports the lock lost.
        const QByteArray multiAt
            = call({"ZSCORE", "semaphore:jobs", multi.identifier + "_0"}).bytes();
        const CliRun second = release(multi.identifier, QString::fromUtf8(multiAt));
        QVERIFY2(second.exitCode == 0, qPrintable(second.err));
        QCOMPARE(call({"ZCARD", "semaphore:jobs"}).toInteger(), 0);
        QVERIFY(gatehouse::test::pollUntil([&] { return multi.rest().contains("lost"); },
                                           int(TimeoutMs) * 3));
    }

    // Fixed window, elastic expiry and moving window, each shown with the
    // library's own count, limit and reset (get_window_stats), then reset.
    void limitsWindows()
    {
        QCOMPARE(hits({QStringLiteral("fixed"), QStringLiteral("10/minute"), QStringLiteral("4"),
                       QStringLiteral("api"), QStringLiteral("alice")}),
                 QStringLiteral("4"));
        QCOMPARE(hits({QStringLiteral("elastic"), QStringLiteral("3 per 10 second"),
                       QStringLiteral("2"), QStringLiteral("login"), QStringLiteral("carol")}),
                 QStringLiteral("2"));
        QCOMPARE(hits({QStringLiteral("moving"), QStringLiteral("5/minute"), QStringLiteral("7"),
                       QStringLiteral("api"), QStringLiteral("bob")}),
                 QStringLiteral("5")); // two refused: the window is full
        const QJsonObject snap = snapshot();
        const qint64 now = serverNowMs();
        const QList<std::pair<QString, QStringList>> windows{
            {QStringLiteral("fixed window"),
             {QStringLiteral("fixed"), QStringLiteral("10/minute"), QStringLiteral("api"),
              QStringLiteral("alice")}},
            {QStringLiteral("fixed window"),
             {QStringLiteral("elastic"), QStringLiteral("3 per 10 second"), QStringLiteral("login"),
              QStringLiteral("carol")}},
            {QStringLiteral("moving window"),
             {QStringLiteral("moving"), QStringLiteral("5/minute"), QStringLiteral("api"),
              QStringLiteral("bob")}}};
        QStringList shown;
        for (const auto &[strategy, args] : windows) {
            const QJsonObject stats = limits(QStringLiteral("stats"), args);
            const QString key = stats[QStringLiteral("key")].toString();
            const QJsonObject o = objectOf(snap, QStringLiteral("limiters"), key);
            QCOMPARE(o[QStringLiteral("pattern")].toString(), QStringLiteral("python-limits"));
            QCOMPARE(o[QStringLiteral("strategy")].toString(), strategy);
            QCOMPARE(o[QStringLiteral("limit")].toDouble(),
                     stats[QStringLiteral("limit")].toDouble());
            QCOMPARE(o[QStringLiteral("inWindow")].toDouble(),
                     stats[QStringLiteral("limit")].toDouble()
                         - stats[QStringLiteral("remaining")].toDouble());
            // The library's reset is in whole seconds.
            const double resetAtMs = double(now) + o[QStringLiteral("resetMs")].toDouble();
            QVERIFY2(std::abs(resetAtMs - stats[QStringLiteral("reset")].toDouble() * 1000) <= 2000,
                     qPrintable(key));
            shown << QStringLiteral("limiters ") + key;
        }
        QStringList others = gatehouse::test::objectsBesides(snap, QString());
        others.sort();
        shown.sort();
        QCOMPARE(others, shown);

        for (const auto &[strategy, args] : windows) {
            const QString key
                = limits(QStringLiteral("stats"), args)[QStringLiteral("key")].toString();
            const CliRun reset = cli({QStringLiteral("limiter"), QStringLiteral("reset"), key});
            QVERIFY2(reset.exitCode == 0, qPrintable(reset.err));
            const QJsonObject after = limits(QStringLiteral("stats"), args);
            QCOMPARE(after[QStringLiteral("remaining")].toDouble(),
                     after[QStringLiteral("limit")].toDouble());
        }
    }

    // Layouts that resemble these libraries without matching them are shown
    // read-only and refused; the hand-written patterns keep their units.
    // redis-semaphore's and Python limits' state beside every job library's
    // (whose sorted sets, counters and TTL'd keys look like holders and
    // windows), BullMQ's under the prefix "semaphore" (its ZSETs
    // "semaphore:mail:completed" and "semaphore:mail:delayed" named as
    // semaphores), node-resque's under "LIMITER": only the libraries' own
    // semaphore and windows are theirs, and each other library's is shown as
    // its own.
    void notTakenForOtherLibraries()
    {
        gatehouse::test::OtherLibraries libraries(m_server, *m_client);
        libraries.semaphore(QStringLiteral("exports"));
        libraries.bullmq(QStringLiteral("semaphore"), QStringLiteral("mail"));
        libraries.resque(QStringLiteral("LIMITER"));
        libraries.rest();
        QVERIFY2(libraries.failures().isEmpty(), qPrintable(libraries.failures().join(u'\n')));
        QCOMPARE(call({"TYPE", "semaphore:mail:completed"}).bytes(), QByteArray("zset"));

        const QJsonObject snap = snapshot();
        QCOMPARE(gatehouse::test::keysShownAs(snap, QStringLiteral("redis-semaphore")).join(u' '),
                 QStringLiteral("semaphore:exports"));
        QCOMPARE(gatehouse::test::keysShownAs(snap, QStringLiteral("python-limits")).size(), 2);
        QCOMPARE(gatehouse::test::notShownAsTheirs(snap, libraries.planted()).join(u'\n'),
                 QString());
    }

    void resemblance()
    {
        const QByteArray now = QByteArray::number(serverNowMs());
        // Holders that are not redis-semaphore identifiers, with a TTL.
        call({"ZADD", "semaphore:legacy", now, "worker-1", now, "worker-2"});
        call({"PEXPIRE", "semaphore:legacy", "60000"});
        // The same without the TTL every acquire sets: a hand-written semaphore.
        call({"ZADD", "semaphore:plain", now, "worker-1"});
        // Under LIMITER/ without the limit in the name.
        call({"SET", "LIMITER/custom", "7", "EX", "60"});
        // The seeds' own: a fixed-window counter, a sliding window.
        call({"SET", "rl:api:counter", "7", "EX", "60"});
        call({"ZADD", "ratelimit:api", now, now + "-1"});
        const QJsonObject snap = snapshot();

        const QJsonObject legacy
            = objectOf(snap, QStringLiteral("semaphores"), QStringLiteral("semaphore:legacy"));
        QCOMPARE(legacy[QStringLiteral("pattern")].toString(), QStringLiteral("redis-semaphore"));
        QCOMPARE(legacy[QStringLiteral("library")][QStringLiteral("layoutKnown")].toBool(), false);
        const CliRun refused = cli({QStringLiteral("semaphore"), QStringLiteral("release"),
                                    QStringLiteral("semaphore:legacy"), QStringLiteral("--holder"),
                                    QStringLiteral("worker-1"), QStringLiteral("--score"),
                                    QString::fromLatin1(now)});
        QCOMPARE(refused.exitCode, 3); // the script's check: not the library's identifier
        QVERIFY2(refused.err.contains(QLatin1String("identifier")), qPrintable(refused.err));
        QCOMPARE(call({"ZCARD", "semaphore:legacy"}).toInteger(), 2);

        QCOMPARE(objectOf(snap, QStringLiteral("semaphores"),
                          QStringLiteral("semaphore:plain"))[QStringLiteral("pattern")]
                     .toString(),
                 QStringLiteral("sorted-set-semaphore"));

        const QJsonObject custom
            = objectOf(snap, QStringLiteral("limiters"), QStringLiteral("LIMITER/custom"));
        QCOMPARE(custom[QStringLiteral("pattern")].toString(), QStringLiteral("python-limits"));
        QCOMPARE(custom[QStringLiteral("library")][QStringLiteral("layoutKnown")].toBool(), false);
        QVERIFY(custom[QStringLiteral("limit")].isNull());
        const CliRun reset = cli(
            {QStringLiteral("limiter"), QStringLiteral("reset"), QStringLiteral("LIMITER/custom")});
        QVERIFY(reset.exitCode != 0);
        QVERIFY2(reset.err.contains(QLatin1String("read-only")), qPrintable(reset.err));
        QCOMPARE(call({"EXISTS", "LIMITER/custom"}).toInteger(), 1);

        QCOMPARE(objectOf(snap, QStringLiteral("limiters"),
                          QStringLiteral("rl:api:counter"))[QStringLiteral("pattern")]
                     .toString(),
                 QStringLiteral("fixed-window"));
        QCOMPARE(objectOf(snap, QStringLiteral("limiters"),
                          QStringLiteral("ratelimit:api"))[QStringLiteral("pattern")]
                     .toString(),
                 QStringLiteral("sliding-window"));
    }
};

QTEST_GUILESS_MAIN(tst_LibLimiters)
#include "tst_lib_limiters.moc"
