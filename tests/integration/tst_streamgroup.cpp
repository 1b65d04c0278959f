// SPDX-License-Identifier: MIT
// Redis Streams consumer groups (backend/patterns/stream-group/): a producer
// XADDs, consumers read with XREADGROUP from their own redis-cli processes,
// one of them dies holding entries; gatehouse-cli finds the stream with no
// profile, shows its groups, consumers and stuck entries, and its actions
// move exactly what their replies say, against a real redis-server. A
// stream without groups (BullMQ's events stream, from real BullMQ) is not
// taken for a queue.
#include <patterns/patternregistry.h>
#include <redis/redisclient.h>

#include "librarytest.h"
#include "otherlibraries.h"
#include "redisserver.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace gatehouse;
using gatehouse::test::call;
using gatehouse::test::CliRun;
using gatehouse::test::RedisServer;

namespace {

const QString LibrariesDir = QStringLiteral(GATEHOUSE_LIBRARIES_DIR);
constexpr int StuckAfterMs = 3000;

} // namespace

class tst_StreamGroup : public QObject
{
    Q_OBJECT

private:
    RedisServer m_server;
    std::unique_ptr<RedisClient> m_client;
    QTemporaryDir m_dir;
    QList<QByteArray> m_ids; // the entries produced, oldest first

    CliRun cli(QStringList args, bool withProfile = true)
    {
        if (withProfile)
            args << QStringLiteral("--profile") << profile();
        return gatehouse::test::libraryCli(QStringLiteral(GATEHOUSE_CLI), m_server, args);
    }

    QString profile()
    {
        const QString path = m_dir.filePath(QStringLiteral("streams.json"));
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate))
            return {};
        f.write(QStringLiteral(R"({"name": "streams", "rules": [{"pattern": "stream-group",
                 "match": "orders*", "stuckAfter": %1}]})")
                    .arg(StuckAfterMs)
                    .toUtf8());
        return path;
    }

    // A consumer of its own: one redis-cli process per command, which exits
    // (a worker that read and died holds what it read).
    QByteArray consumer(const QStringList &args)
    {
        QProcess p;
        p.start(QStringLiteral(GATEHOUSE_REDIS_CLI),
                QStringList{QStringLiteral("-p"), QString::number(m_server.port())} + args);
        if (!p.waitForFinished(10000) || p.exitCode() != 0)
            qWarning("redis-cli %s failed: %s", qPrintable(args.join(QLatin1Char(' '))),
                     p.readAllStandardError().constData());
        return p.readAllStandardOutput();
    }

    // orders: 5 entries; group billing: worker-1 read 3, acked the first and
    // died; once its 2 entries are idle past the threshold, worker-2 reads
    // the other 2 and acks them (a consumer is active when it reads: an
    // XREADGROUP that finds nothing leaves its idle time running on 7.0);
    // group audit read nothing yet (lag 5).
    void produceAndDie()
    {
        m_ids.clear();
        for (int n = 1; n <= 5; ++n)
            m_ids << call(*m_client, {"XADD", "orders", "*", "order", QByteArray::number(n),
                                      "total", QByteArray::number(n * 10)})
                         .bytes();
        QCOMPARE(call(*m_client, {"XGROUP", "CREATE", "orders", "billing", "0"}),
                 RedisValue::status("OK"));
        QCOMPARE(call(*m_client, {"XGROUP", "CREATE", "orders", "audit", "0"}),
                 RedisValue::status("OK"));
        const QStringList read{QStringLiteral("XREADGROUP"), QStringLiteral("GROUP"),
                               QStringLiteral("billing")};
        QVERIFY(consumer(read
                         + QStringList{QStringLiteral("worker-1"), QStringLiteral("COUNT"),
                                       QStringLiteral("3"), QStringLiteral("STREAMS"),
                                       QStringLiteral("orders"), QStringLiteral(">")})
                    .contains(m_ids.at(2)));
        consumer({QStringLiteral("XACK"), QStringLiteral("orders"), QStringLiteral("billing"),
                  QString::fromLatin1(m_ids.at(0))});
        QVERIFY2(gatehouse::test::pollUntil(
                     [this] {
                         return call(*m_client, {"XPENDING", "orders", "billing", "IDLE",
                                                 QByteArray::number(StuckAfterMs), "-", "+", "10"})
                                    .size()
                                == 2;
                     },
                     10000),
                 "worker-1's entries never went idle");
        // worker-2 works on: it reads (after the wait) and acks the other two.
        QVERIFY(consumer(read
                         + QStringList{QStringLiteral("worker-2"), QStringLiteral("COUNT"),
                                       QStringLiteral("10"), QStringLiteral("STREAMS"),
                                       QStringLiteral("orders"), QStringLiteral(">")})
                    .contains(m_ids.at(4)));
        consumer({QStringLiteral("XACK"), QStringLiteral("orders"), QStringLiteral("billing"),
                  QString::fromLatin1(m_ids.at(3)), QString::fromLatin1(m_ids.at(4))});
    }

    QJsonObject queueJson(const QString &key, bool withProfile = true,
                          QJsonObject *snapshot = nullptr)
    {
        const QJsonObject snap = gatehouse::test::snapshotOf(
            cli({QStringLiteral("snapshot"), QStringLiteral("--json")}, withProfile));
        if (snapshot)
            *snapshot = snap;
        for (const QJsonValue &q : snap.value(QStringLiteral("queues")).toArray()) {
            if (q[QStringLiteral("key")].toString() == key)
                return q.toObject();
        }
        return {};
    }

    // The group's PEL: id -> {consumer, deliveries}.
    QMap<QByteArray, QPair<QByteArray, qint64>> pel(const QByteArray &group)
    {
        QMap<QByteArray, QPair<QByteArray, qint64>> out;
        const RedisValue v = call(*m_client, {"XPENDING", "orders", group, "-", "+", "100"});
        for (const RedisValue &e : v.elements())
            out.insert(e.at(0).bytes(), {e.at(1).bytes(), e.at(3).toInteger()});
        return out;
    }

    QStringList consumers(const QByteArray &group)
    {
        QStringList out;
        const RedisValue list = call(*m_client, {"XINFO", "CONSUMERS", "orders", group});
        for (const RedisValue &c : list.elements())
            out << QString::fromUtf8(c.at(1).bytes());
        return out;
    }

    QJsonObject lastAudit()
    {
        QFile audit(m_server.dir() + QStringLiteral("/audit.jsonl"));
        if (!audit.open(QIODevice::ReadOnly))
            return {};
        return QJsonDocument::fromJson(audit.readAll().trimmed().split('\n').last()).object();
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
        QCOMPARE(RedisServer::runningChildren(), 0);
    }

    void registered()
    {
        const PatternUnit *unit = PatternRegistry::instance().find(QStringLiteral("stream-group"));
        QVERIFY(unit);
        QCOMPARE(unit->section().id, QStringLiteral("queue"));
        QCOMPARE(unit->keyType(), QByteArray("stream"));
    }

    // The stream, its groups and consumers, and the dead consumer's entries
    // as stuck with the reason, all as Redis itself reports them.
    void snapshotShowsGroupsAndStuck()
    {
        produceAndDie();
        const QJsonObject q = queueJson(QStringLiteral("orders"));
        QCOMPARE(q.value("pattern").toString(), QStringLiteral("stream-group"));
        QCOMPARE(q.value("status").toString(), QStringLiteral("ok"));
        QCOMPARE(q.value("length").toInt(), 5);
        QCOMPARE(q.value("inFlight").toInt(), 2); // billing's PEL; audit read nothing
        QCOMPARE(q.value("stuckCount").toInt(), 2);
        QCOMPARE(q.value("stuckIsLowerBound").toBool(), false);
        QCOMPARE(q.value("stuckAfterMs").toInt(), StuckAfterMs);
        QCOMPARE(q.value("library").toObject().value("name").toString(),
                 QStringLiteral("redis-streams"));
        const QJsonObject counts = q.value("counts").toObject();
        QCOMPARE(counts.value("entries").toInt(), 5);
        QCOMPARE(counts.value("groups").toInt(), 2);
        QCOMPARE(counts.value("consumers").toInt(), 2);
        QCOMPARE(counts.value("pending").toInt(), 2);
        QCOMPARE(counts.value("lag").toInt(), 5); // audit has read none of the 5

        const QJsonObject stream = q.value("stream").toObject();
        QCOMPARE(stream.value("firstId").toString().toLatin1(), m_ids.first());
        QCOMPARE(stream.value("lastId").toString().toLatin1(), m_ids.last());
        QVERIFY(stream.value("firstAgeMs").toDouble() >= StuckAfterMs);
        QVERIFY(stream.value("lastAgeMs").toDouble() <= stream.value("firstAgeMs").toDouble());

        const QJsonArray groups = q.value("groups").toArray();
        QCOMPARE(groups.size(), 2);
        QJsonObject billing, audit;
        for (const QJsonValue &g : groups)
            (g["name"].toString() == QLatin1String("billing") ? billing : audit) = g.toObject();
        QCOMPARE(billing.value("pending").toInt(), 2);
        QCOMPARE(billing.value("consumerCount").toInt(), 2);
        QCOMPARE(billing.value("lag").toInt(), 0);
        QCOMPARE(billing.value("entriesRead").toInt(), 5);
        QCOMPARE(billing.value("lastDeliveredId").toString().toLatin1(), m_ids.last());
        QCOMPARE(billing.value("oldestPendingId").toString().toLatin1(), m_ids.at(1));
        QCOMPARE(audit.value("name").toString(), QStringLiteral("audit"));
        QCOMPARE(audit.value("pending").toInt(), 0);
        QCOMPARE(audit.value("lag").toInt(), 5);
        QVERIFY(audit.value("oldestPendingId").isNull());
        const QJsonArray cs = billing.value("consumers").toArray();
        QCOMPARE(cs.size(), 2);
        for (const QJsonValue &c : cs) {
            const bool dead = c["name"].toString() == QLatin1String("worker-1");
            QCOMPARE(c["pending"].toInt(), dead ? 2 : 0);
            QCOMPARE(c["quiet"].toBool(), dead);
            QVERIFY(c["idleMs"].toDouble() >= 0);
        }

        // Stuck: worker-1's two entries, with the reason and their ids.
        const QJsonArray stuck = q.value("stuck").toArray();
        QCOMPARE(stuck.size(), 2);
        QCOMPARE(stuck.at(0)["job"].toString().toLatin1(), m_ids.at(1));
        QCOMPARE(stuck.at(1)["job"].toString().toLatin1(), m_ids.at(2));
        const QString reason = stuck.at(0)["reason"].toString();
        QVERIFY2(reason.contains(QLatin1String("group billing"))
                     && reason.contains(QLatin1String("worker-1"))
                     && reason.contains(QLatin1String("gone quiet")),
                 qPrintable(reason));
        const QJsonArray pending = q.value("pendingEntries").toArray();
        QCOMPARE(pending.size(), 2);
        QCOMPARE(pending.at(0)["deliveries"].toInt(), 1);
        QCOMPARE(pending.at(0)["consumer"].toString(), QStringLiteral("worker-1"));

        // The dead-letter stream of the rule's glob is the stream's, not a queue.
        call(*m_client, {"XADD", "orders:dead", "*", "x", "1"});
        QJsonObject snap;
        queueJson(QStringLiteral("orders"), true, &snap);
        QCOMPARE(gatehouse::test::objectsBesides(snap, QStringLiteral("orders")), QStringList());
    }

    // With no profile: found by its groups (XINFO GROUPS), with the default
    // threshold of 5 minutes; a stream without groups is not a queue.
    void foundWithoutProfile()
    {
        produceAndDie();
        call(*m_client, {"XADD", "audit-log", "*", "event", "login"});
        call(*m_client, {"XADD", "orders:dead", "*", "x", "1"});
        QJsonObject snap;
        const QJsonObject q = queueJson(QStringLiteral("orders"), false, &snap);
        QCOMPARE(q.value("pattern").toString(), QStringLiteral("stream-group"));
        QCOMPARE(q.value("stuckAfterMs").toInt(), 5 * 60 * 1000);
        QCOMPARE(q.value("stuckCount").toInt(), 0); // idle 3 s is not stuck at 5 min
        QCOMPARE(q.value("inFlight").toInt(), 2);
        const QString evidence = QJsonDocument(q.value("evidence").toArray()).toJson();
        QVERIFY2(evidence.contains(QLatin1String("consumer groups (audit, billing)")),
                 qPrintable(evidence));
        QCOMPARE(gatehouse::test::objectsBesides(snap, QStringLiteral("orders")), QStringList());
    }

    // Claim: exactly the entries the reply names change owner, their
    // delivery counts go up, nothing else moves.
    void claimMovesWhatTheReplySays()
    {
        produceAndDie();
        // A dry run says how many and which, and moves nothing.
        const auto before = pel("billing");
        const CliRun dry
            = cli({QStringLiteral("--dry-run"), QStringLiteral("queue"), QStringLiteral("claim"),
                   QStringLiteral("orders"), QStringLiteral("--group"), QStringLiteral("billing"),
                   QStringLiteral("--to"), QStringLiteral("rescuer"), QStringLiteral("--idle"),
                   QString::number(StuckAfterMs)});
        QVERIFY2(dry.exitCode == 0, qPrintable(dry.err + dry.out));
        QVERIFY2(dry.out.contains(
                     QStringLiteral("it would do: give 2 entries of group "
                                    "\"billing\" to consumer \"rescuer\": %1, %2.")
                         .arg(QString::fromLatin1(m_ids.at(1)), QString::fromLatin1(m_ids.at(2)))),
                 qPrintable(dry.out));
        QCOMPARE(pel("billing"), before);
        const CliRun run = cli(
            {QStringLiteral("queue"), QStringLiteral("claim"), QStringLiteral("orders"),
             QStringLiteral("--group"), QStringLiteral("billing"), QStringLiteral("--to"),
             QStringLiteral("rescuer"), QStringLiteral("--idle"), QString::number(StuckAfterMs)});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
        QVERIFY2(run.out.contains(
                     QStringLiteral("Gave 2 entries of group \"billing\" to "
                                    "consumer \"rescuer\": %1, %2.")
                         .arg(QString::fromLatin1(m_ids.at(1)), QString::fromLatin1(m_ids.at(2)))),
                 qPrintable(run.out));
        const auto after = pel("billing");
        QCOMPARE(after.size(), 2);
        for (const QByteArray &id : {m_ids.at(1), m_ids.at(2)}) {
            QCOMPARE(after.value(id).first, QByteArray("rescuer"));
            QCOMPARE(after.value(id).second, 2);
        }
        QCOMPARE(call(*m_client, {"XLEN", "orders"}).toInteger(), 5);
        QCOMPARE(lastAudit().value("action").toString(), QStringLiteral("queue.claim"));
        QCOMPARE(lastAudit().value("outcome").toString(), QStringLiteral("done"));

        // Freshly claimed: not idle for the threshold, so nothing to claim.
        const CliRun again = cli(
            {QStringLiteral("queue"), QStringLiteral("claim"), QStringLiteral("orders"),
             QStringLiteral("--group"), QStringLiteral("billing"), QStringLiteral("--to"),
             QStringLiteral("other"), QStringLiteral("--idle"), QString::number(StuckAfterMs)});
        QCOMPARE(again.exitCode, 3);
        QCOMPARE(pel("billing"), after);
    }

    // Dead-letter: the entry's fields and id in the dead-letter stream, and
    // acked; a second time it is no longer pending and nothing is written.
    void deadLetterCopiesThenAcks()
    {
        produceAndDie();
        const QString id = QString::fromLatin1(m_ids.at(1));
        const QStringList args{QStringLiteral("queue"),
                               QStringLiteral("dead-letter"),
                               QStringLiteral("orders"),
                               QStringLiteral("--group"),
                               QStringLiteral("billing"),
                               QStringLiteral("--job"),
                               id};
        const CliRun dry = cli(args + QStringList{QStringLiteral("--dry-run")});
        QVERIFY2(dry.exitCode == 0, qPrintable(dry.err + dry.out));
        QCOMPARE(call(*m_client, {"EXISTS", "orders:dead"}).toInteger(), 0);
        QCOMPARE(pel("billing").size(), 2);

        const CliRun run = cli(args);
        QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
        QVERIFY2(run.out.contains(QLatin1String("copied to \"orders:dead\"")), qPrintable(run.out));
        const RedisValue dead = call(*m_client, {"XRANGE", "orders:dead", "-", "+"});
        QCOMPARE(dead.size(), 1);
        QList<QByteArray> fields;
        for (const RedisValue &f : dead.at(0).at(1).elements())
            fields << f.bytes();
        QCOMPARE(fields, (QList<QByteArray>{"order", "2", "total", "20", "dead-letter-id",
                                            m_ids.at(1), "dead-letter-stream", "orders",
                                            "dead-letter-group", "billing", "dead-letter-consumer",
                                            "worker-1", "dead-letter-deliveries", "1"}));
        QVERIFY(!pel("billing").contains(m_ids.at(1)));
        QVERIFY(pel("billing").contains(m_ids.at(2)));
        QCOMPARE(call(*m_client, {"XLEN", "orders"}).toInteger(), 5); // acked, not deleted

        const CliRun again = cli(args);
        QCOMPARE(again.exitCode, 3);
        QVERIFY2(again.err.contains(QLatin1String("not pending")), qPrintable(again.err));
        QCOMPARE(call(*m_client, {"XLEN", "orders:dead"}).toInteger(), 1);

        const CliRun noGroup = cli({QStringLiteral("queue"), QStringLiteral("dead-letter"),
                                    QStringLiteral("orders"), QStringLiteral("--group"),
                                    QStringLiteral("nobody"), QStringLiteral("--job"), id});
        QCOMPARE(noGroup.exitCode, 3);
        QVERIFY2(noGroup.err.contains(QLatin1String("no consumer group \"nobody\"")),
                 qPrintable(noGroup.err));
    }

    // A user whose ACL allows the copy but not the ack: refused before
    // either is written (the entry neither copied nor acked).
    void deadLetterNeedsBothWrites()
    {
        produceAndDie();
        QCOMPARE(call(*m_client, {"ACL", "SETUSER", "no-ack", "on", ">pw", "~*", "+@all", "-xack"}),
                 RedisValue::status("OK"));
        QStringList args{QStringLiteral("--url"),
                         QStringLiteral("redis://no-ack:pw@127.0.0.1:%1").arg(m_server.port()),
                         QStringLiteral("queue"),
                         QStringLiteral("dead-letter"),
                         QStringLiteral("orders"),
                         QStringLiteral("--group"),
                         QStringLiteral("billing"),
                         QStringLiteral("--job"),
                         QString::fromLatin1(m_ids.at(1))};
        QProcessEnvironment env;
        env.insert(QStringLiteral("GATEHOUSE_AUDIT_LOG"),
                   m_dir.filePath(QStringLiteral("a.jsonl")));
        const CliRun run = gatehouse::test::runCli(QStringLiteral(GATEHOUSE_CLI), args, env);
        call(*m_client, {"ACL", "DELUSER", "no-ack"});
        QVERIFY2(run.exitCode != 0, qPrintable(run.out));
        QVERIFY2(run.err.contains(QLatin1String("XACK")), qPrintable(run.err));
        QCOMPARE(call(*m_client, {"EXISTS", "orders:dead"}).toInteger(), 0);
        QCOMPARE(pel("billing").size(), 2);
    }

    // A consumer holding entries is kept; once they are claimed away it goes.
    void deleteConsumerOnlyWithoutPending()
    {
        produceAndDie();
        const QStringList del{QStringLiteral("queue"),   QStringLiteral("delete-consumer"),
                              QStringLiteral("orders"),  QStringLiteral("--group"),
                              QStringLiteral("billing"), QStringLiteral("--consumer"),
                              QStringLiteral("worker-1")};
        const CliRun refused = cli(del);
        QCOMPARE(refused.exitCode, 3);
        QVERIFY2(refused.err.contains(QLatin1String("still holds 2 pending")),
                 qPrintable(refused.err));
        QVERIFY(consumers("billing").contains(QStringLiteral("worker-1")));

        QCOMPARE(cli({QStringLiteral("queue"), QStringLiteral("claim"), QStringLiteral("orders"),
                      QStringLiteral("--group"), QStringLiteral("billing"), QStringLiteral("--to"),
                      QStringLiteral("rescuer"), QStringLiteral("--from"),
                      QStringLiteral("worker-1"), QStringLiteral("--idle"), QStringLiteral("0")})
                     .exitCode,
                 0);
        const CliRun run = cli(del);
        QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
        QCOMPARE(consumers("billing"),
                 (QStringList{QStringLiteral("rescuer"), QStringLiteral("worker-2")}));
        QCOMPARE(pel("billing").size(), 2);
    }

    // Trim counts first; it refuses more than the count shown, and entries a
    // group still has pending or unread; then deletes exactly that many.
    void trimCountsFirst()
    {
        produceAndDie();
        const QStringList trim{QStringLiteral("queue"), QStringLiteral("trim"),
                               QStringLiteral("orders"), QStringLiteral("--maxlen"),
                               QStringLiteral("2")};
        const CliRun bare = cli(trim);
        QCOMPARE(bare.exitCode, 2); // neither --count-only nor --expect
        const CliRun count = cli(trim + QStringList{QStringLiteral("--count-only")});
        QVERIFY2(count.exitCode == 0, qPrintable(count.err + count.out));
        QVERIFY2(count.out.contains(QStringLiteral("3 of the 5 entries of stream \"orders\" would "
                                                   "be deleted (up to id %1).")
                                        .arg(QString::fromLatin1(m_ids.at(2)))),
                 qPrintable(count.out));
        QVERIFY2(count.out.contains(QLatin1String("pending entries among them: \"billing\"")),
                 qPrintable(count.out));
        QVERIFY2(count.out.contains(QLatin1String("not read them yet: \"audit\"")),
                 qPrintable(count.out));
        QCOMPARE(call(*m_client, {"XLEN", "orders"}).toInteger(), 5);

        const CliRun tooMany
            = cli(trim + QStringList{QStringLiteral("--expect"), QStringLiteral("2")});
        QCOMPARE(tooMany.exitCode, 3);
        QVERIFY2(tooMany.err.contains(QLatin1String("more than the 2 you were shown")),
                 qPrintable(tooMany.err));
        const CliRun losing
            = cli(trim + QStringList{QStringLiteral("--expect"), QStringLiteral("3")});
        QCOMPARE(losing.exitCode, 3);
        QVERIFY2(losing.err.contains(QLatin1String("groups \"billing\" still have entries among "
                                                   "them pending and groups \"audit\" have not "
                                                   "read them yet")),
                 qPrintable(losing.err));
        QCOMPARE(call(*m_client, {"XLEN", "orders"}).toInteger(), 5);

        // Everything read and acked: the trim goes through, exactly 3.
        call(*m_client, {"XACK", "orders", "billing", m_ids.at(1), m_ids.at(2)});
        call(*m_client, {"XGROUP", "SETID", "orders", "audit", "$"});
        const CliRun run = cli(trim + QStringList{QStringLiteral("--expect"), QStringLiteral("3")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
        QVERIFY2(run.out.contains(QLatin1String("Deleted 3 entries of stream \"orders\" (of 5).")),
                 qPrintable(run.out));
        const RedisValue left = call(*m_client, {"XRANGE", "orders", "-", "+"});
        QCOMPARE(left.size(), 2);
        QCOMPARE(left.at(0).at(0).bytes(), m_ids.at(3));

        // MINID: below an id, counted the same way.
        const CliRun byId = cli({QStringLiteral("queue"), QStringLiteral("trim"),
                                 QStringLiteral("orders"), QStringLiteral("--minid"),
                                 QString::fromLatin1(m_ids.at(4)), QStringLiteral("--count-only")});
        QVERIFY2(byId.exitCode == 0 && byId.out.contains(QLatin1String("1 of the 2 entries")),
                 qPrintable(byId.out + byId.err));
        QCOMPARE(call(*m_client, {"XLEN", "orders"}).toInteger(), 2);
    }

    // The oldest waiting entry is the earliest of the groups' next entries
    // (the first no consumer of the group was given), by the time its "*" id
    // holds: audit has been given nothing, so the stream's first entry waits;
    // once every group has been given every entry nothing waits; an id the
    // application chose says no time.
    void oldestEntryNoConsumerWasGiven()
    {
        produceAndDie();
        QJsonObject snap;
        QJsonObject q = queueJson(QStringLiteral("orders"), true, &snap);
        const qint64 serverMs
            = snap[QStringLiteral("server")][QStringLiteral("timeMs")].toInteger();
        const auto shownAge = [](const QJsonObject &q) {
            return q[QStringLiteral("latency")][QStringLiteral("oldestWaitingAgeMs")].toInteger(-2);
        };
        const auto idMs = [](const QByteArray &id) {
            return id.split('-').at(0).toLongLong();
        };
        QVERIFY2(std::abs(shownAge(q) - (serverMs - idMs(m_ids.at(0)))) <= 1000,
                 qPrintable(QStringLiteral("shown %1 ms, the first entry was added %2 ms before")
                                .arg(shownAge(q))
                                .arg(serverMs - idMs(m_ids.at(0)))));
        QVERIFY(shownAge(q) >= StuckAfterMs); // produceAndDie waited that long

        // audit takes two: its next entry is the third.
        consumer({QStringLiteral("XREADGROUP"), QStringLiteral("GROUP"), QStringLiteral("audit"),
                  QStringLiteral("a-1"), QStringLiteral("COUNT"), QStringLiteral("2"),
                  QStringLiteral("STREAMS"), QStringLiteral("orders"), QStringLiteral(">")});
        q = queueJson(QStringLiteral("orders"), true, &snap);
        const qint64 third = snap[QStringLiteral("server")][QStringLiteral("timeMs")].toInteger()
                             - idMs(m_ids.at(2));
        QVERIFY2(std::abs(shownAge(q) - third) <= 1000,
                 qPrintable(QStringLiteral("shown %1 ms, the third entry was added %2 ms before")
                                .arg(shownAge(q))
                                .arg(third)));

        // Every entry given to both groups: none waits.
        consumer({QStringLiteral("XREADGROUP"), QStringLiteral("GROUP"), QStringLiteral("audit"),
                  QStringLiteral("a-1"), QStringLiteral("COUNT"), QStringLiteral("10"),
                  QStringLiteral("STREAMS"), QStringLiteral("orders"), QStringLiteral(">")});
        QCOMPARE(shownAge(queueJson(QStringLiteral("orders"))), 0);

        // An entry whose id the application chose: no time to tell.
        QCOMPARE(call(*m_client, {"XADD", "orders-numbered", "1-1", "order", "1"}).bytes(),
                 QByteArray("1-1"));
        QCOMPARE(call(*m_client, {"XGROUP", "CREATE", "orders-numbered", "billing", "0"}),
                 RedisValue::status("OK"));
        QCOMPARE(shownAge(queueJson(QStringLiteral("orders-numbered"))), -1);
    }

    void wrongTypeIsRefused()
    {
        call(*m_client, {"RPUSH", "orders", "not-a-stream"});
        const CliRun run = cli({QStringLiteral("queue"), QStringLiteral("claim"),
                                QStringLiteral("orders"), QStringLiteral("--group"),
                                QStringLiteral("g"), QStringLiteral("--to"), QStringLiteral("c")});
        QCOMPARE(run.exitCode, 3);
        QVERIFY2(run.err.contains(QLatin1String("is a list, not a stream")), qPrintable(run.err));
        QCOMPARE(call(*m_client, {"LLEN", "orders"}).toInteger(), 1);
    }

    // Real BullMQ keeps its events in a stream without groups: its queue is
    // still BullMQ's, and the events stream is not a stream-group queue.
    void bullmqEventsStreamIsNotAQueue()
    {
        QVERIFY2(!QStandardPaths::findExecutable(QStringLiteral("node")).isEmpty(),
                 "node is not installed: run .ci/install-deps");
        QVERIFY2(QFile::exists(LibrariesDir + QStringLiteral("/node_modules/bullmq/package.json")),
                 "npm packages missing: run .ci/install-deps");
        QProcess p;
        p.start(QStringLiteral("node"),
                {LibrariesDir + QStringLiteral("/bullmq-app.js"), QStringLiteral("bullmq"),
                 m_server.url(), QStringLiteral("emails"), QStringLiteral("produce"),
                 QStringLiteral("3")});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 0);
        QCOMPARE(call(*m_client, {"TYPE", "bull:emails:events"}).bytes(), QByteArray("stream"));
        produceAndDie();
        QJsonObject snap;
        queueJson(QStringLiteral("orders"), false, &snap);
        QStringList queues;
        for (const QJsonValue &q : snap.value(QStringLiteral("queues")).toArray())
            queues << q["key"].toString() + QLatin1Char(' ') + q["pattern"].toString();
        queues.sort();
        QCOMPARE(queues, (QStringList{QStringLiteral("bull:emails bullmq"),
                                      QStringLiteral("orders stream-group")}));
    }

    // A stream read by consumer groups beside every other library's state,
    // streams among it (Symfony Messenger's, BullMQ's events stream without
    // a group): the streams with groups are stream-group queues, Symfony's
    // named as its own, and each other library's is shown as its own.
    void notTakenForOtherLibraries()
    {
        gatehouse::test::OtherLibraries libraries(m_server, *m_client);
        libraries.streams("orders");
        libraries.rest();
        QVERIFY2(libraries.failures().isEmpty(), qPrintable(libraries.failures().join(u'\n')));
        QCOMPARE(call(*m_client, {"TYPE", "bull:mail:events"}).bytes(), QByteArray("stream"));

        QJsonObject snap;
        queueJson(QStringLiteral("orders"), false, &snap);
        QCOMPARE(gatehouse::test::keysShownAs(snap, QStringLiteral("stream-group")).join(u' '),
                 QStringLiteral("messages orders"));
        QCOMPARE(gatehouse::test::notShownAsTheirs(snap, libraries.planted()).join(u'\n'),
                 QString());
    }

    void usage()
    {
        const CliRun help = cli({QStringLiteral("--help")}, false);
        QVERIFY2(help.out.contains(QLatin1String("queue trim STREAM (--maxlen N | --minid ID) "
                                                 "(--count-only | --expect N)")),
                 qPrintable(help.out));
        const CliRun noGroup
            = cli({QStringLiteral("queue"), QStringLiteral("claim"), QStringLiteral("orders"),
                   QStringLiteral("--to"), QStringLiteral("x")});
        QCOMPARE(noGroup.exitCode, 2);
    }
};

QTEST_GUILESS_MAIN(tst_StreamGroup)
#include "tst_streamgroup.moc"
