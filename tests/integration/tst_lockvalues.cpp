// SPDX-License-Identifier: MIT
// Locks whatever their holders write: families of thirty keys taken with
// SET key value NX PX, each family with one kind of value (a token, one name
// for every holder, a process identity, a small integer, a UUID, JSON, random
// letters), on a real server and with no profile: `gatehouse-cli snapshot
// --json` shows every key as a lock.
#include <redis/redisclient.h>

#include "lock/lockshapes.h"
#include "redisserver.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>
#include <QtTest>

using namespace gatehouse;
using gatehouse::test::call;

namespace {

// (value shape, key prefix): test::lockValue's shapes.
const QList<std::pair<QByteArray, QByteArray>> &families()
{
    static const QList<std::pair<QByteArray, QByteArray>> s_families{
        {"tok", "lock:c:"},          {"literal", "lock:lit:"},  {"host-pid", "app:job_lock:"},
        {"integer", "lock:int:"},    {"uuid", "mutex:report:"}, {"json", "lease:shard:"},
        {"letters", "lock:letters:"}};
    return s_families;
}

constexpr int FamilySize = 30;

} // namespace

class tst_LockValues : public QObject
{
    Q_OBJECT

private:
    gatehouse::test::RedisServer m_server{gatehouse::test::RedisServer::Options{}};
    std::unique_ptr<RedisClient> m_client;

private slots:
    void initTestCase()
    {
        QVERIFY2(m_server.start(), qPrintable(m_server.errorString()));
        m_client = gatehouse::test::connectedClient(m_server);
        QVERIFY(m_client);
        for (const auto &[shape, prefix] : families()) {
            for (int n = 0; n < FamilySize; ++n) {
                const RedisValue r
                    = call(*m_client, {"SET", prefix + QByteArray::number(n),
                                       gatehouse::test::lockValue(shape, n), "PX", "600000", "NX"});
                QCOMPARE(r.bytes(), QByteArray("OK"));
            }
        }
    }

    void cleanupTestCase()
    {
        m_client.reset();
        m_server.stop();
        QCOMPARE(gatehouse::test::RedisServer::runningChildren(), 0);
    }

    void everyFamilyShownAsLocks()
    {
        const gatehouse::test::CliRun run = gatehouse::test::runCli(
            QStringLiteral(GATEHOUSE_CLI), {QStringLiteral("--url"), m_server.url(),
                                            QStringLiteral("snapshot"), QStringLiteral("--json")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QJsonParseError error;
        const QJsonObject s = QJsonDocument::fromJson(run.out.toUtf8(), &error).object();
        QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString()));
        QSet<QByteArray> locks;
        for (const QJsonValue &v : s.value(QLatin1String("locks")).toArray()) {
            const QJsonObject lock = v.toObject();
            if (lock.value(QLatin1String("pattern")).toString() == QLatin1String("lock"))
                locks.insert(lock.value(QLatin1String("key")).toString().toUtf8());
        }
        for (const auto &[shape, prefix] : families()) {
            int found = 0;
            for (int n = 0; n < FamilySize; ++n)
                found += locks.contains(prefix + QByteArray::number(n));
            qInfo("%s (%s): %d of %d shown as locks", prefix.constData(), shape.constData(), found,
                  FamilySize);
            QVERIFY2(found == FamilySize, prefix.constData());
        }
        QCOMPARE(locks.size(), qsizetype(families().size() * FamilySize));
        QVERIFY2(s.value(QLatin1String("other")).toArray().isEmpty(),
                 qPrintable(QJsonDocument(s.value(QLatin1String("other")).toArray())
                                .toJson(QJsonDocument::Compact)));
    }
};

QTEST_GUILESS_MAIN(tst_LockValues)
#include "tst_lockvalues.moc"
