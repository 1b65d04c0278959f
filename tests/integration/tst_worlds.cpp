// SPDX-License-Identifier: MIT
// A new world: after a Sentinel failover or a restart, what `watch` shows is
// what the server there holds now (issue reproductions, exactly as
// reported), and the change is announced.
#include <redis/redisclient.h>

#include "redissentinel.h"
#include "redisserver.h"
#include "watchprocess.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QTest>

using namespace gatehouse;
using gatehouse::test::call;
using gatehouse::test::RedisSentinel;
using gatehouse::test::RedisServer;
using gatehouse::test::WatchProcess;

namespace {

bool setToken(RedisClient &client, const QByteArray &key, const QByteArray &token)
{
    return call(client, {"SET", key, token, "PX", "600000"}) == RedisValue::status("OK");
}

// The tokens a watch line shows for each lock key, and whether any is stale.
QHash<QString, QString> lockTokens(const QJsonObject &snapshot, bool *anyStale = nullptr)
{
    QHash<QString, QString> tokens;
    for (const QJsonValue &v : snapshot.value(QLatin1String("locks")).toArray()) {
        const QJsonObject o = v.toObject();
        if (anyStale && o.value(QLatin1String("stale")).toBool())
            *anyStale = true;
        if (!o.value(QLatin1String("gone")).toBool())
            tokens.insert(o.value(QLatin1String("key")).toString(),
                          o.value(QLatin1String("token")).toString());
    }
    return tokens;
}

QByteArray randomToken()
{
    return "tok" + QByteArray::number(QRandomGenerator::global()->generate64(), 16);
}

} // namespace

class tst_WatchWorlds : public QObject
{
    Q_OBJECT

private slots:
    void cleanupTestCase() { QCOMPARE(RedisServer::runningChildren(), 0); }

    // The reproduction, exactly: events on both nodes, ten locks,
    // watch --json every 500 ms with no profile, SENTINEL FAILOVER, then on
    // the new master a new lock and a lock that changed hands. Within two
    // ticks of those writes the watch shows what the new master holds.
    void sentinelFailoverShowsTheNewMastersWorld()
    {
        RedisSentinel sentinel(1, QStringLiteral("gh"));
        QVERIFY2(sentinel.start(), qPrintable(sentinel.errorString()));
        for (int i = 0; i < sentinel.nodeCount(); ++i)
            QCOMPARE(
                sentinel.cli(sentinel.node(i).port(),
                             {QStringLiteral("CONFIG"), QStringLiteral("SET"),
                              QStringLiteral("notify-keyspace-events"), QStringLiteral("KEA")}),
                QByteArray("OK"));
        const quint16 first = sentinel.node(sentinel.currentMaster()).port();
        QHash<QString, QString> truth;
        for (int i = 1; i <= 10; ++i) {
            const QString key = QStringLiteral("lock:s:%1").arg(i);
            const QString token = QString::fromLatin1(randomToken());
            QCOMPARE(sentinel.cli(first, {QStringLiteral("SET"), key, token, QStringLiteral("PX"),
                                          QStringLiteral("600000")}),
                     QByteArray("OK"));
            truth.insert(key, token);
        }
        WatchProcess watch(QStringLiteral(GATEHOUSE_CLI),
                           {QStringLiteral("--url"), sentinel.url(), QStringLiteral("--interval"),
                            QStringLiteral("500")});
        QVERIFY(watch.started());
        QVERIFY2(gatehouse::test::waitUntil(
                     [&] {
                         watch.poll();
                         const QJsonObject s = watch.latest();
                         return lockTokens(s) == truth
                                && s[QLatin1String("server")][QLatin1String("refresh")]
                                    [QLatin1String("mode")]
                                       == QLatin1String("events");
                     },
                     30000),
                 qPrintable(watch.errors()));
        // Autodetected locks are watched for 20 ticks (Monitor::Options::
        // behaviourTicks): a lock taken over by a plain SET within them
        // argues against it being a lock. The holder changes after them.
        QTest::qWait(10500);

        const int promoted = sentinel.failover();
        QVERIFY2(promoted >= 0, qPrintable(sentinel.errorString()));
        const quint16 port = sentinel.node(promoted).port();
        const QString promotedAddress = sentinel.nodeAddress(promoted);
        const QString changed = QString::fromLatin1(randomToken());
        const QString after = QString::fromLatin1(randomToken());
        QCOMPARE(sentinel.cli(port, {QStringLiteral("SET"), QStringLiteral("lock:s:1"), changed,
                                     QStringLiteral("PX"), QStringLiteral("600000")}),
                 QByteArray("OK"));
        QCOMPARE(sentinel.cli(port, {QStringLiteral("SET"), QStringLiteral("lock:s:after"), after,
                                     QStringLiteral("PX"), QStringLiteral("600000")}),
                 QByteArray("OK"));
        QElapsedTimer written;
        written.start();
        truth.insert(QStringLiteral("lock:s:1"), changed);
        truth.insert(QStringLiteral("lock:s:after"), after);
        // Two ticks (1 s), then the next line printed.
        QTest::qWait(1000);
        watch.poll();
        const qsizetype seen = watch.snapshots().size();
        QVERIFY(gatehouse::test::waitUntil(
            [&] {
                watch.poll();
                return watch.snapshots().size() > seen;
            },
            2000));
        const QJsonObject line = watch.latest();
        bool stale = false;
        const QHash<QString, QString> shown = lockTokens(line, &stale);
        QVERIFY2(shown == truth,
                 qPrintable(QStringLiteral("%1 ms after the writes: %2")
                                .arg(written.elapsed())
                                .arg(QString::fromUtf8(
                                    QJsonDocument(line[QLatin1String("locks")].toArray())
                                        .toJson(QJsonDocument::Compact)))));
        QVERIFY(!stale);
        QCOMPARE(line[QLatin1String("server")][QLatin1String("address")].toString(),
                 promotedAddress);
        // The switch was announced, with the readings made whole again.
        const QList<QJsonObject> changes = watch.events(QStringLiteral("masterChanged"));
        QCOMPARE(changes.size(), 1);
        QVERIFY2(changes.first()[QLatin1String("message")].toString().contains(promotedAddress),
                 qPrintable(changes.first()[QLatin1String("message")].toString()));
        QCOMPARE(watch.events(QStringLiteral("readingsWhole")).size(), 1);
        const QJsonObject world = line[QLatin1String("server")][QLatin1String("world")].toObject();
        QCOMPARE(world[QLatin1String("generation")].toInt(), 1);
        QVERIFY(world[QLatin1String("whole")].toBool());
        // And it stays so: two more seconds of lines show the same.
        const qsizetype settled = watch.snapshots().size();
        QTest::qWait(2000);
        watch.poll();
        for (qsizetype i = settled; i < watch.snapshots().size(); ++i)
            QCOMPARE(lockTokens(watch.snapshots().at(i)), truth);
    }

    // A restart that lost every key (no persistence) is a new world too:
    // announced with the keys before and after, and no lock is shown as held.
    void restartWithoutPersistenceIsAnnounced()
    {
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        auto client = gatehouse::test::connectedClient(server);
        QVERIFY(client);
        QCOMPARE(call(*client, {"CONFIG", "SET", "notify-keyspace-events", "KEA"}),
                 RedisValue::status("OK"));
        for (int i = 1; i <= 5; ++i)
            QVERIFY(setToken(*client, "lock:r:" + QByteArray::number(i), randomToken()));
        for (int i = 0; i < 20; ++i)
            call(*client, {"SET", "page:" + QByteArray::number(i), "x"});
        client.reset();
        WatchProcess watch(QStringLiteral(GATEHOUSE_CLI),
                           {QStringLiteral("--url"), server.url(), QStringLiteral("--interval"),
                            QStringLiteral("300")});
        QVERIFY(watch.started());
        QVERIFY2(gatehouse::test::waitUntil(
                     [&] {
                         watch.poll();
                         return lockTokens(watch.latest()).size() == 5;
                     },
                     20000),
                 qPrintable(watch.errors()));
        server.stop();
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        QVERIFY2(gatehouse::test::waitUntil(
                     [&] {
                         watch.poll();
                         return !watch.events(QStringLiteral("serverRestarted")).isEmpty()
                                && !watch.events(QStringLiteral("readingsWhole")).isEmpty();
                     },
                     30000),
                 qPrintable(watch.errors()));
        const QString message = watch.events(QStringLiteral("serverRestarted"))
                                    .first()[QLatin1String("message")]
                                    .toString();
        QVERIFY2(message.contains(QLatin1String("25 keys before, 0 now")), qPrintable(message));
        QVERIFY(gatehouse::test::waitUntil(
            [&] {
                watch.poll();
                return lockTokens(watch.latest()).isEmpty();
            },
            3000));
        const QJsonObject world
            = watch.latest()[QLatin1String("server")][QLatin1String("world")].toObject();
        QVERIFY(world[QLatin1String("restart")].toBool());
        QCOMPARE(world[QLatin1String("keysBefore")].toInt(), 25);
        QCOMPARE(world[QLatin1String("keysAfter")].toInt(), 0);
    }
};

QTEST_GUILESS_MAIN(tst_WatchWorlds)
#include "tst_worlds.moc"
