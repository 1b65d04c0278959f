// SPDX-License-Identifier: MIT
// Token hashes on a server without per-field expiry (Debian's Redis 7.0, the
// one CI runs): discovery sends none of HPTTL, HTTL, HEXPIRE, HPEXPIRE, and a
// hash of tokens stays an ordinary hash (it cannot carry per-field TTLs
// there); issuing a token field is refused before anything is written,
// because HSET would store a field that nothing could expire.
#include <redis/redisclient.h>
#include <redis/serveridentity.h>
#include <redis/serverinfo.h>

#include "redisserver.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace gatehouse;
using gatehouse::test::call;
using gatehouse::test::CliRun;
using gatehouse::test::RedisServer;

class tst_TokenHashAbsent : public QObject
{
    Q_OBJECT

private:
    RedisServer m_server;
    std::unique_ptr<RedisClient> m_client;

    CliRun cli(const QStringList &args)
    {
        return gatehouse::test::runCli(QStringLiteral(GATEHOUSE_CLI),
                                       QStringList{QStringLiteral("--url"), m_server.url()} + args,
                                       {}, 60000);
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(m_server.start(), qPrintable(m_server.errorString()));
        m_client = test::connectedClient(m_server);
        QVERIFY(m_client);
        const ServerIdentity id
            = ServerIdentity::fromInfo(parseInfo(call(*m_client, {"INFO", "server"}).bytes()));
        QVERIFY2(!id.has(ServerIdentity::Capability::HashFieldExpiry),
                 qPrintable(id.displayName()
                            + QStringLiteral(" has per-field expiry; this test is about a "
                                             "server without it (tst_tokenhash covers it)")));
    }

    void cleanupTestCase()
    {
        m_client.reset();
        m_server.stop();
        QCOMPARE(RedisServer::runningChildren(), 0);
    }

    void nothingOfPerFieldExpiryIsSent()
    {
        QList<QByteArray> hset{"HSET", "otp:pending"};
        for (int i = 0; i < 20; ++i)
            hset << "tok" + QByteArray::number(i) + "x7f3a"
                 << "user:" + QByteArray::number(i);
        QVERIFY(!call(*m_client, hset).isError());
        QVERIFY(!call(*m_client, {"CONFIG", "RESETSTAT"}).isError());
        const CliRun run = cli({QStringLiteral("snapshot"), QStringLiteral("--json")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        const QJsonObject s = QJsonDocument::fromJson(run.out.toUtf8()).object();
        for (const QJsonValue &v : s.value(QLatin1String("tokens")).toArray())
            QVERIFY(v.toObject().value(QLatin1String("key")).toString() != "otp:pending");
        bool ordinary = false;
        for (const QJsonValue &v : s.value(QLatin1String("other")).toArray()) {
            const QJsonArray samples = v.toObject().value(QLatin1String("sampleKeys")).toArray();
            ordinary |= samples.contains(QStringLiteral("otp:pending"));
        }
        QVERIFY2(ordinary, qPrintable(run.out));
        const QByteArray stats = call(*m_client, {"INFO", "commandstats"}).bytes();
        QVERIFY2(stats.contains("cmdstat_hrandfield"), stats.constData()); // the hash was read
        for (const char *command : {"hpttl", "httl", "hexpire", "hpexpire", "hexpiretime",
                                    "hpersist", "hsetex", "hgetex"})
            QVERIFY2(!stats.contains(QByteArray("cmdstat_" + QByteArray(command) + ':')), command);
        // Nor an unknown command tried: every error reply the server counted
        // (errorstats) belongs to a command it knows (commandstats' failed and
        // rejected calls: CLUSTER SHARDS on a standalone server, NOSCRIPT).
        const auto sum = [](const QByteArray &text, const QByteArray &field) {
            qint64 total = 0;
            for (qsizetype at = text.indexOf(field); at >= 0; at = text.indexOf(field, at + 1)) {
                const qsizetype from = at + field.size();
                qsizetype to = from;
                while (to < text.size() && text.at(to) >= '0' && text.at(to) <= '9')
                    ++to;
                total += text.mid(from, to - from).toLongLong();
            }
            return total;
        };
        const QByteArray errors = call(*m_client, {"INFO", "errorstats"}).bytes();
        QCOMPARE(sum(errors, ":count="),
                 sum(stats, "failed_calls=") + sum(stats, "rejected_calls="));
    }

    void issuingAFieldIsRefusedWithoutAWrite()
    {
        const qint64 before = call(*m_client, {"HLEN", "otp:pending"}).toInteger();
        const CliRun r
            = cli({QStringLiteral("token"), QStringLiteral("issue-field"),
                   QStringLiteral("otp:pending"), QStringLiteral("--ttl"), QStringLiteral("60")});
        QVERIFY2(r.exitCode != 0, qPrintable(r.out));
        QVERIFY2(r.err.contains(QLatin1String("per-field expiry")), qPrintable(r.err));
        QCOMPARE(call(*m_client, {"HLEN", "otp:pending"}).toInteger(), before);
    }
};

QTEST_GUILESS_MAIN(tst_TokenHashAbsent)
#include "tst_tokenhashabsent.moc"
