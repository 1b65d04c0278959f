// SPDX-License-Identifier: MIT
// The sorted-set semaphore, the pattern added as one folder
// (backend/patterns/sorted-set-semaphore/, lua/sorted-set-semaphore/) plus one
// registration line: found by a profile, read live in the snapshot JSON and
// text, and released one holder at a time with gatehouse-cli against a real
// redis-server, clients holding it through its own acquire script.
#include <patterns/patternregistry.h>
#include <redis/redisclient.h>
#include <redis/redisscript.h>

#include "redisserver.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace gatehouse;
using gatehouse::test::call;
using gatehouse::test::CliRun;
using gatehouse::test::RedisServer;

class tst_Semaphore : public QObject
{
    Q_OBJECT

private:
    RedisServer m_server;
    std::unique_ptr<RedisClient> m_client;
    QTemporaryDir m_dir;

    QString auditPath() const { return m_dir.filePath(QStringLiteral("audit.jsonl")); }

    CliRun cli(QStringList args)
    {
        args.prepend(m_server.url());
        args.prepend(QStringLiteral("--url"));
        QProcessEnvironment env;
        env.insert(QStringLiteral("GATEHOUSE_AUDIT_LOG"), auditPath());
        return gatehouse::test::runCli(QStringLiteral(GATEHOUSE_CLI), args, env, 60000);
    }

    QString profile()
    {
        const QString path = m_dir.filePath(QStringLiteral("sem.json"));
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate))
            return {};
        f.write(R"({"name": "sem", "rules": [{"pattern": "sorted-set-semaphore",
                 "match": "sem:*", "limit": 5, "timeout": 60000}]})");
        return path;
    }

    qint64 serverMs()
    {
        const RedisValue t = call(*m_client, {"TIME"});
        return t.at(0).toInteger() * 1000 + t.at(1).toInteger() / 1000;
    }

    RedisValue acquire(const QByteArray &key, const QByteArray &holder)
    {
        const RedisScript s = RedisScript::fromResource(QStringLiteral("semaphore_acquire"));
        return call(*m_client, {"EVAL", s.source(), "1", key, holder, "5", "60000"});
    }

    // Three live holders (acquired through the pattern's own script) and two
    // whose timeout passed and that no acquire has trimmed yet.
    void holders()
    {
        for (const QByteArray h : {"worker-a", "worker-b", "worker-c"})
            QCOMPARE(acquire("sem:pool", h).at(0).toInteger(), 1);
        const qint64 old = serverMs() - 120000;
        call(*m_client, {"ZADD", "sem:pool", QByteArray::number(old), "crashed-1",
                         QByteArray::number(old + 1), "crashed-2"});
    }

    QList<QPair<QByteArray, QByteArray>> members(const QByteArray &key)
    {
        QList<QPair<QByteArray, QByteArray>> out;
        const RedisValue v = call(*m_client, {"ZRANGE", key, "0", "-1", "WITHSCORES"});
        for (qsizetype i = 0; i + 1 < v.size(); i += 2)
            out.append({v.at(i).bytes(), v.at(i + 1).bytes()});
        return out;
    }

    QJsonObject semaphoreJson()
    {
        const CliRun run = cli({QStringLiteral("--profile"), profile(), QStringLiteral("snapshot"),
                                QStringLiteral("--json")});
        if (run.exitCode != 0)
            qWarning() << run.err;
        const QJsonArray all
            = QJsonDocument::fromJson(run.out.toUtf8()).object().value("semaphores").toArray();
        return all.size() == 1 ? all.first().toObject() : QJsonObject();
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QVERIFY2(m_server.start(), qPrintable(m_server.errorString()));
        m_client = gatehouse::test::connectedClient(m_server);
        QVERIFY(m_client);
    }

    void init() { QCOMPARE(call(*m_client, {"FLUSHALL"}), RedisValue::status("OK")); }

    void cleanupTestCase()
    {
        m_client.reset();
        m_server.stop();
    }

    void registered()
    {
        const PatternUnit *unit
            = PatternRegistry::instance().find(QStringLiteral("sorted-set-semaphore"));
        QVERIFY(unit);
        QCOMPARE(unit->section().jsonKey, QStringLiteral("semaphores"));
        QVERIFY(PatternRegistry::instance().section(QStringLiteral("semaphore")));
    }

    // Holders vs limit, the expired ones still present, every holder with the
    // acquire time its release needs.
    void snapshotShowsHoldersAndExpired()
    {
        holders();
        const QJsonObject s = semaphoreJson();
        QCOMPARE(s.value("key").toString(), QStringLiteral("sem:pool"));
        QCOMPARE(s.value("pattern").toString(), QStringLiteral("sorted-set-semaphore"));
        QCOMPARE(s.value("status").toString(), QStringLiteral("ok"));
        QCOMPARE(s.value("holders").toInt(), 3);
        QCOMPARE(s.value("limit").toInt(), 5);
        QCOMPARE(s.value("occupancy").toDouble(), 0.6);
        QCOMPARE(s.value("stored").toInt(), 5);
        QCOMPARE(s.value("expired").toInt(), 2);
        QCOMPARE(s.value("timeoutMs").toInt(), 60000);
        // The oldest live holder, not the expired ones.
        QVERIFY2(s.value("oldestHolderAgeMs").toDouble() >= 0
                     && s.value("oldestHolderAgeMs").toDouble() < 10000,
                 qPrintable(QString::number(s.value("oldestHolderAgeMs").toDouble())));
        const QJsonArray list = s.value("holderList").toArray();
        QCOMPARE(list.size(), 5);
        int expired = 0;
        for (const QJsonValue &v : list) {
            const QJsonObject h = v.toObject();
            const QByteArray id = h.value("holder").toString().toUtf8();
            const RedisValue score = call(*m_client, {"ZSCORE", "sem:pool", id});
            QCOMPARE(qint64(h.value("acquiredAtMs").toDouble()), score.bytes().toLongLong());
            expired += h.value("expired").toBool() ? 1 : 0;
            QCOMPARE(h.value("expired").toBool(), id.startsWith("crashed"));
        }
        QCOMPARE(expired, 2);
    }

    void textSnapshotHasASemaphoresTable()
    {
        holders();
        const CliRun run
            = cli({QStringLiteral("--profile"), profile(), QStringLiteral("snapshot")});
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.out.contains(QLatin1String("Semaphores (1)")), qPrintable(run.out));
        QVERIFY2(run.out.contains(QLatin1String("HOLDERS / LIMIT")), qPrintable(run.out));
        QVERIFY2(run.out.contains(QLatin1String("3 / 5")), qPrintable(run.out));
    }

    // Releases exactly the holder shown, with the acquire time shown; audited.
    void releaseOneHolder()
    {
        holders();
        const QJsonObject s = semaphoreJson();
        QByteArray score;
        for (const QJsonValue &v : s.value("holderList").toArray()) {
            if (v.toObject().value("holder").toString() == QLatin1String("worker-b"))
                score = QByteArray::number(qint64(v.toObject().value("acquiredAtMs").toDouble()));
        }
        QVERIFY(!score.isEmpty());
        auto before = members("sem:pool");
        const CliRun run = cli(
            {QStringLiteral("semaphore"), QStringLiteral("release"), QStringLiteral("sem:pool"),
             QStringLiteral("--holder"), QStringLiteral("worker-b"), QStringLiteral("--score"),
             QString::fromLatin1(score), QStringLiteral("--profile"), profile()});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
        QVERIFY2(run.out.contains(QLatin1String("Released holder \"worker-b\"")),
                 qPrintable(run.out));
        before.removeIf([](const auto &m) { return m.first == "worker-b"; });
        QCOMPARE(members("sem:pool"), before);
        QFile audit(auditPath());
        QVERIFY(audit.open(QIODevice::ReadOnly));
        const QJsonObject entry
            = QJsonDocument::fromJson(audit.readAll().trimmed().split('\n').last()).object();
        QCOMPARE(entry.value("action").toString(), QStringLiteral("semaphore.release"));
        QCOMPARE(entry.value("outcome").toString(), QStringLiteral("done"));
    }

    // The holder released and acquired again (a new score): left alone.
    void staleScoreChangesNothing()
    {
        holders();
        const QByteArray shown = call(*m_client, {"ZSCORE", "sem:pool", "worker-a"}).bytes();
        call(*m_client, {"ZADD", "sem:pool", "XX", QByteArray::number(serverMs() + 5), "worker-a"});
        const auto before = members("sem:pool");
        for (const bool dryRun : {true, false}) {
            QStringList args{QStringLiteral("semaphore"), QStringLiteral("release"),
                             QStringLiteral("sem:pool"),  QStringLiteral("--holder"),
                             QStringLiteral("worker-a"),  QStringLiteral("--score"),
                             QString::fromLatin1(shown)};
            if (dryRun)
                args << QStringLiteral("--dry-run");
            const CliRun run = cli(args);
            QCOMPARE(run.exitCode, 3);
            QVERIFY2(QString(run.out + run.err).contains(QLatin1String("newer slot")),
                     qPrintable(run.out + run.err));
            QCOMPARE(members("sem:pool"), before);
        }
        const CliRun gone
            = cli({QStringLiteral("semaphore"), QStringLiteral("release"),
                   QStringLiteral("sem:pool"), QStringLiteral("--holder"), QStringLiteral("nobody"),
                   QStringLiteral("--score"), QStringLiteral("1")});
        QCOMPARE(gone.exitCode, 3);
        QVERIFY2(gone.err.contains(QLatin1String("no longer holds")), qPrintable(gone.err));
        QCOMPARE(members("sem:pool"), before);
    }

    void wrongTypeIsRefused()
    {
        call(*m_client, {"SET", "sem:pool", "not a semaphore"});
        const CliRun run
            = cli({QStringLiteral("semaphore"), QStringLiteral("release"),
                   QStringLiteral("sem:pool"), QStringLiteral("--holder"), QStringLiteral("x"),
                   QStringLiteral("--score"), QStringLiteral("1")});
        QCOMPARE(run.exitCode, 3);
        QVERIFY2(run.err.contains(QLatin1String("string")), qPrintable(run.err));
        QCOMPARE(call(*m_client, {"GET", "sem:pool"}).bytes(), QByteArray("not a semaphore"));
    }

    void usageProblemsSendNothing()
    {
        const CliRun noScore
            = cli({QStringLiteral("semaphore"), QStringLiteral("release"),
                   QStringLiteral("sem:pool"), QStringLiteral("--holder"), QStringLiteral("x")});
        QCOMPARE(noScore.exitCode, 2);
        QVERIFY2(noScore.err.contains(QLatin1String("--score")), qPrintable(noScore.err));
        const CliRun badScore
            = cli({QStringLiteral("semaphore"), QStringLiteral("release"),
                   QStringLiteral("sem:pool"), QStringLiteral("--holder"), QStringLiteral("x"),
                   QStringLiteral("--score"), QStringLiteral("soon")});
        QCOMPARE(badScore.exitCode, 2);
        const CliRun help = cli({QStringLiteral("--help")});
        QVERIFY2(help.out.contains(QLatin1String("semaphore release KEY --holder ID --score MS")),
                 qPrintable(help.out));
    }
};

QTEST_GUILESS_MAIN(tst_Semaphore)
#include "tst_semaphore.moc"
