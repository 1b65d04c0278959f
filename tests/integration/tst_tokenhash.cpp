// SPDX-License-Identifier: MIT
// Tokens kept as the fields of one hash, each with its own TTL (HPEXPIRE,
// Redis 7.4+), against a real server that has per-field expiry: the binary
// named at configure time (-DGATEHOUSE_REDIS74=/path/redis-server), started
// through GATEHOUSE_TEST_SERVER. What a user relies on: such a hash is shown
// as one token object with its live fields, soonest and latest expiry and
// fields without a TTL; a large hash is read in a bounded sample (never
// HGETALL); a field is issued with its own TTL and revoked with HDEL, each
// refused without a write on a key that is not a hash; a field's expiry
// (hexpired) is followed.
#include <redis/redisclient.h>
#include <redis/redissubscriber.h>
#include <redis/serveridentity.h>
#include <redis/serverinfo.h>

#include "commandstats.h"
#include "redisserver.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTest>

using namespace gatehouse;
using gatehouse::test::call;
using gatehouse::test::CliRun;
using gatehouse::test::RedisServer;

class tst_TokenHash : public QObject
{
    Q_OBJECT

private:
    RedisServer m_server;
    std::unique_ptr<RedisClient> m_client;
    ServerIdentity m_identity;

    CliRun cli(const QStringList &args)
    {
        return gatehouse::test::runCli(QStringLiteral(GATEHOUSE_CLI),
                                       QStringList{QStringLiteral("--url"), m_server.url()} + args,
                                       {}, 60000);
    }

    QJsonObject tokenObject(const QString &key)
    {
        const CliRun run = cli({QStringLiteral("snapshot"), QStringLiteral("--json")});
        if (run.exitCode != 0)
            qWarning("snapshot failed: %s", qPrintable(run.err));
        const QJsonObject s = QJsonDocument::fromJson(run.out.toUtf8()).object();
        for (const QJsonValue &v : s.value(QLatin1String("tokens")).toArray()) {
            if (v.toObject().value(QLatin1String("key")).toString() == key)
                return v.toObject();
        }
        return {};
    }

    void fill(const QByteArray &key, int fields, qint64 ttlMs, int withoutTtl = 0)
    {
        QList<QByteArray> hset{"HSET", key};
        for (int i = 0; i < fields + withoutTtl; ++i)
            hset << "tok" + QByteArray::number(i) + "x7f3a"
                 << "user:" + QByteArray::number(i);
        QVERIFY(!call(*m_client, hset).isError());
        QList<QByteArray> expire{"HPEXPIRE", key, QByteArray::number(ttlMs), "FIELDS",
                                 QByteArray::number(fields)};
        for (int i = 0; i < fields; ++i)
            expire << "tok" + QByteArray::number(i) + "x7f3a";
        const RedisValue r = call(*m_client, expire);
        QVERIFY2(!r.isError(), qPrintable(r.errorMessage()));
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(m_server.start(), qPrintable(m_server.errorString()));
        m_client = test::connectedClient(m_server);
        QVERIFY(m_client);
        m_identity
            = ServerIdentity::fromInfo(parseInfo(call(*m_client, {"INFO", "server"}).bytes()));
        // Not skipped on an older server: this test is registered only for one
        // that has per-field expiry, and fails if it does not.
        QVERIFY2(m_identity.has(ServerIdentity::Capability::HashFieldExpiry),
                 qPrintable(m_identity.displayName() + QStringLiteral(" has no HPEXPIRE")));
    }

    void init() { QVERIFY(!call(*m_client, {"FLUSHALL"}).isError()); }

    void cleanupTestCase()
    {
        m_client.reset();
        m_server.stop();
        QCOMPARE(RedisServer::runningChildren(), 0);
    }

    void hashOfExpiringFieldsIsATokenObject()
    {
        fill("otp:pending", 12, 600000, 2);
        const QJsonObject o = tokenObject(QStringLiteral("otp:pending"));
        QVERIFY2(!o.isEmpty(), "otp:pending is not among the tokens");
        QCOMPARE(o.value(QLatin1String("pattern")).toString(), QStringLiteral("token-hash"));
        QCOMPARE(o.value(QLatin1String("count")).toInt(), 14);
        QCOMPARE(o.value(QLatin1String("fields")).toInt(), 14);
        QCOMPARE(o.value(QLatin1String("withoutTtl")).toInt(), 2);
        const double minTtl = o.value(QLatin1String("minTtlMs")).toDouble();
        const double maxTtl = o.value(QLatin1String("maxTtlMs")).toDouble();
        QVERIFY2(minTtl > 500000 && minTtl <= maxTtl && maxTtl <= 600000,
                 qPrintable(QStringLiteral("%1 .. %2").arg(minTtl).arg(maxTtl)));
    }

    void largeHashIsReadInABoundedSample()
    {
        fill("codes:pending", 5000, 900000);
        const qint64 before = test::commandStat(*m_client, "hgetall");
        const QJsonObject o = tokenObject(QStringLiteral("codes:pending"));
        QVERIFY2(!o.isEmpty(), "codes:pending is not among the tokens");
        QCOMPARE(o.value(QLatin1String("fields")).toInt(), 5000);
        QCOMPARE(o.value(QLatin1String("sampledFields")).toInt(), 100);
        QCOMPARE(o.value(QLatin1String("count")).toInt(), 5000);
        QCOMPARE(test::commandStat(*m_client, "hgetall"), before);
    }

    void plainHashStaysOrdinary()
    {
        QVERIFY(!call(*m_client, {"HSET", "user:1", "name", "ada", "email", "a@example.org"})
                     .isError());
        QVERIFY(tokenObject(QStringLiteral("user:1")).isEmpty());
    }

    void issueAndRevokeAField()
    {
        fill("otp:pending", 3, 600000);
        const CliRun issued
            = cli({QStringLiteral("token"), QStringLiteral("issue-field"),
                   QStringLiteral("otp:pending"), QStringLiteral("--ttl"), QStringLiteral("120"),
                   QStringLiteral("--value"), QStringLiteral("user:42")});
        QVERIFY2(issued.exitCode == 0, qPrintable(issued.err + issued.out));
        QCOMPARE(call(*m_client, {"HLEN", "otp:pending"}).toInteger(), 4);
        // The new field is the one whose value was given; it expires on its own.
        const RedisValue all = call(*m_client, {"HGETALL", "otp:pending"});
        QByteArray field;
        for (qsizetype i = 0; i + 1 < all.size(); i += 2) {
            if (all.at(i + 1).bytes() == "user:42")
                field = all.at(i).bytes();
        }
        QVERIFY(!field.isEmpty());
        QVERIFY2(issued.out.contains(QString::fromUtf8(field)), qPrintable(issued.out));
        const qint64 ttl
            = call(*m_client, {"HPTTL", "otp:pending", "FIELDS", "1", field}).at(0).toInteger();
        QVERIFY2(ttl > 100000 && ttl <= 120000, qPrintable(QString::number(ttl)));

        const CliRun revoked = cli({QStringLiteral("token"), QStringLiteral("revoke-field"),
                                    QStringLiteral("otp:pending"), QStringLiteral("--field"),
                                    QString::fromUtf8(field)});
        QVERIFY2(revoked.exitCode == 0, qPrintable(revoked.err + revoked.out));
        QCOMPARE(call(*m_client, {"HEXISTS", "otp:pending", field}).toInteger(), 0);
        QCOMPARE(call(*m_client, {"HLEN", "otp:pending"}).toInteger(), 3);
        // Gone already: nothing to do (exit 3), nothing changed.
        const CliRun again = cli({QStringLiteral("token"), QStringLiteral("revoke-field"),
                                  QStringLiteral("otp:pending"), QStringLiteral("--field"),
                                  QString::fromUtf8(field)});
        QCOMPARE(again.exitCode, 3);
        QCOMPARE(call(*m_client, {"HLEN", "otp:pending"}).toInteger(), 3);
    }

    void issueNeverOverwritesAField()
    {
        fill("otp:pending", 1, 600000);
        const CliRun r = cli(
            {QStringLiteral("token"), QStringLiteral("issue-field"), QStringLiteral("otp:pending"),
             QStringLiteral("--ttl"), QStringLiteral("60"), QStringLiteral("--field"),
             QStringLiteral("tok0x7f3a"), QStringLiteral("--value"), QStringLiteral("other")});
        QCOMPARE(r.exitCode, 3);
        QCOMPARE(call(*m_client, {"HGET", "otp:pending", "tok0x7f3a"}).bytes(),
                 QByteArray("user:0"));
        QVERIFY(
            call(*m_client, {"HPTTL", "otp:pending", "FIELDS", "1", "tok0x7f3a"}).at(0).toInteger()
            > 60000);
    }

    void actionsOnAKeyThatIsNoHashWriteNothing()
    {
        QVERIFY(!call(*m_client, {"SET", "otp:pending", "x", "EX", "600"}).isError());
        for (const QStringList &args :
             {QStringList{QStringLiteral("issue-field"), QStringLiteral("otp:pending"),
                          QStringLiteral("--ttl"), QStringLiteral("60")},
              QStringList{QStringLiteral("revoke-field"), QStringLiteral("otp:pending"),
                          QStringLiteral("--field"), QStringLiteral("x")}}) {
            const CliRun r = cli(QStringList{QStringLiteral("token")} + args);
            QVERIFY2(r.exitCode != 0, qPrintable(r.out));
            QVERIFY2(r.err.contains(QLatin1String("string")), qPrintable(r.err));
            QCOMPARE(call(*m_client, {"TYPE", "otp:pending"}).bytes(), QByteArray("string"));
            QCOMPARE(call(*m_client, {"GET", "otp:pending"}).bytes(), QByteArray("x"));
        }
    }

    void fieldExpiryIsPublished()
    {
        // The server publishes "hexpired" on the hash's keyspace channel under
        // the classes Gatehouse asks for (K and h): the monitor re-reads an
        // object whose field expired.
        QVERIFY(!call(*m_client, {"CONFIG", "SET", "notify-keyspace-events", "Kh"}).isError());
        RedisSubscriber subscriber(m_server.endpoint());
        QSignalSpy events(&subscriber, &RedisSubscriber::patternMessage);
        subscriber.psubscribe({"__keyspace@0__:otp:*"});
        subscriber.open();
        // The PSUBSCRIBE is in before the field is written.
        QTRY_VERIFY(call(*m_client, {"PUBSUB", "NUMPAT"}).toInteger() >= 1);
        fill("otp:soon", 1, 50, 1);
        QTRY_VERIFY_WITH_TIMEOUT(std::any_of(events.cbegin(), events.cend(),
                                             [](const QList<QVariant> &e) {
                                                 return e.at(1).toByteArray()
                                                            == "__keyspace@0__:otp:soon"
                                                        && e.at(2).toByteArray() == "hexpired";
                                             }),
                                 5000);
        QCOMPARE(call(*m_client, {"HLEN", "otp:soon"}).toInteger(), 1);
        QVERIFY(!call(*m_client, {"CONFIG", "SET", "notify-keyspace-events", ""}).isError());
    }
};

QTEST_GUILESS_MAIN(tst_TokenHash)
#include "tst_tokenhash.moc"
