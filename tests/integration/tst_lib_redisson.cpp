// SPDX-License-Identifier: MIT
// Redisson's locks, semaphores, rate limiters and delayed queue, found with no profile in
// gatehouse-cli's snapshot and acted on as Redisson does. Java (and so
// Redisson) is not installable here: the layouts are built by running
// Redisson's own Lua (tests/libraries/redisson/*.lua, copied from Redisson
// 3.52.0 with the class and method each comes from) against a private
// redis-server, with the KEYS and ARGV a Redisson client passes; after each
// action Redisson's own scripts run again to show a Redisson client accepts
// the result (a lock can be taken, a permit is back, items moved once).
#include <patterns/patternregistry.h>
#include <redis/redisclient.h>

#include "redisserver.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>

using namespace gatehouse;
using gatehouse::test::call;
using gatehouse::test::CliRun;
using gatehouse::test::RedisServer;

namespace {
// A Redisson connection manager's id (RedissonBaseLock.getLockName:
// "<uuid>:<threadId>"), two of them as two JVMs.
const QByteArray s_uuidA = "1b4e28ba-2ca1-41d2-a5c6-3d3f3c7c1a5e";
const QByteArray s_uuidB = "6fa459ea-ee8a-4ca4-894e-db77e160355e";

// A plain RESP subscriber on one channel, as Redisson's waiters are.
class Subscriber
{
public:
    bool subscribe(quint16 port, const QByteArray &channel)
    {
        m_channel = channel;
        QObject::connect(&m_socket, &QTcpSocket::readyRead, &m_socket,
                         [this] { m_data += m_socket.readAll(); });
        m_socket.connectToHost(QStringLiteral("127.0.0.1"), port);
        if (!m_socket.waitForConnected(5000))
            return false;
        m_socket.write("SUBSCRIBE " + channel + "\r\n");
        return gatehouse::test::waitUntil([this] { return m_data.contains("subscribe"); }, 5000);
    }
    // The messages published on the channel so far.
    QList<QByteArray> messages() const
    {
        QList<QByteArray> out;
        const QByteArray head = "$7\r\nmessage\r\n$" + QByteArray::number(m_channel.size()) + "\r\n"
                                + m_channel + "\r\n$";
        qsizetype at = 0;
        while ((at = m_data.indexOf(head, at)) >= 0) {
            at += head.size();
            const qsizetype eol = m_data.indexOf("\r\n", at);
            const int length = m_data.mid(at, eol - at).toInt();
            out << m_data.mid(eol + 2, length);
        }
        return out;
    }

private:
    QTcpSocket m_socket;
    QByteArray m_channel;
    QByteArray m_data;
};
} // namespace

class tst_LibRedisson : public QObject
{
    Q_OBJECT

private:
    RedisServer m_server;
    std::unique_ptr<RedisClient> m_client;
    QTemporaryDir m_dir;

    CliRun cli(QStringList args)
    {
        args.prepend(m_server.url());
        args.prepend(QStringLiteral("--url"));
        QProcessEnvironment env;
        env.insert(QStringLiteral("GATEHOUSE_AUDIT_LOG"),
                   m_dir.filePath(QStringLiteral("a.jsonl")));
        return gatehouse::test::runCli(QStringLiteral(GATEHOUSE_CLI), args, env, 60000);
    }

    qint64 serverMs()
    {
        const RedisValue t = call(*m_client, {"TIME"});
        return t.at(0).toInteger() * 1000 + t.at(1).toInteger() / 1000;
    }

    // Runs Redisson's own script tests/libraries/redisson/<name>.lua.
    RedisValue redisson(const QString &name, const QList<QByteArray> &keys,
                        const QList<QByteArray> &args)
    {
        QFile f(QStringLiteral(GATEHOUSE_LIBRARIES_DIR "/redisson/%1.lua").arg(name));
        if (!f.open(QIODevice::ReadOnly))
            return RedisValue::error("ERR missing " + name.toUtf8());
        QList<QByteArray> command{"EVAL", f.readAll(), QByteArray::number(keys.size())};
        command << keys << args;
        return call(*m_client, command);
    }

    QJsonObject snapshot(const QStringList &extra = {})
    {
        const CliRun run
            = cli(extra + QStringList{QStringLiteral("snapshot"), QStringLiteral("--json")});
        if (run.exitCode != 0)
            qWarning() << run.err;
        return QJsonDocument::fromJson(run.out.toUtf8()).object();
    }

    static QJsonObject find(const QJsonObject &snap, const QString &section, const QString &key)
    {
        for (const QJsonValue &v : snap.value(section).toArray()) {
            if (v.toObject().value(QStringLiteral("key")).toString() == key)
                return v.toObject();
        }
        return {};
    }

    // Every object of the snapshot, "<pattern> <key>", across sections.
    static QStringList everything(const QJsonObject &snap)
    {
        QStringList all;
        for (const QString &section : snap.keys()) {
            if (section == QLatin1String("server") || !snap.value(section).isArray())
                continue;
            for (const QJsonValue &v : snap.value(section).toArray()) {
                const QJsonObject o = v.toObject();
                if (!o.contains(QStringLiteral("pattern")))
                    continue;
                all << o.value(QStringLiteral("pattern")).toString() + QLatin1Char(' ')
                           + o.value(QStringLiteral("key")).toString();
            }
        }
        all.sort();
        return all;
    }

    static void checkLibrary(const QJsonObject &o)
    {
        const QJsonObject library = o.value(QStringLiteral("library")).toObject();
        QCOMPARE(library.value(QStringLiteral("name")).toString(), QStringLiteral("redisson"));
        QCOMPARE(library.value(QStringLiteral("versions")).toString(), QStringLiteral("3-4"));
        QCOMPARE(o.value(QStringLiteral("status")).toString(), QStringLiteral("ok"));
        QCOMPARE(o.value(QStringLiteral("source")).toString(), QStringLiteral("autodetected"));
    }

    static int count(const QJsonObject &o, const char *state)
    {
        return o.value(QStringLiteral("counts")).toObject().value(QLatin1String(state)).toInt(-1);
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QVERIFY2(m_server.start(), qPrintable(m_server.errorString()));
        m_client = gatehouse::test::connectedClient(m_server);
        QVERIFY(m_client);
        QVERIFY2(
            QFile::exists(QStringLiteral(GATEHOUSE_LIBRARIES_DIR "/redisson/rlock_trylock.lua")),
            "Redisson's scripts are missing from tests/libraries/redisson.");
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
        for (const char *id : {"redisson-lock", "redisson-semaphore", "redisson-delayed-queue"}) {
            const PatternUnit *unit = PatternRegistry::instance().find(QLatin1String(id));
            QVERIFY2(unit, id);
            QCOMPARE(unit->library().name, QStringLiteral("redisson"));
        }
    }

    // An RLock taken twice by one thread (reentrant) and refused to another;
    // beside it an application's own lock and ordinary hashes keep their
    // pattern or none. Force release as Redisson's forceUnlock: refused for a
    // holder that does not hold it, then DEL + PUBLISH 0, after which the
    // other thread's tryLock succeeds.
    void rlockHoldersAndForceUnlock()
    {
        const QByteArray a = s_uuidA + ":41";
        const QByteArray b = s_uuidB + ":7";
        QVERIFY(redisson(QStringLiteral("rlock_trylock"), {"reports"}, {"30000", a}).isNil());
        QVERIFY(redisson(QStringLiteral("rlock_trylock"), {"reports"}, {"30000", a}).isNil());
        QVERIFY(redisson(QStringLiteral("rlock_trylock"), {"reports"}, {"30000", b}).isInteger());
        call(*m_client, {"SET", "app:job:7:lock", "3f9a1c2e-77b1-4c1d", "PX", "60000"});
        call(*m_client, {"HSET", "user:1", "name", "ada", "visits", "3"});
        call(*m_client, {"HSET", "cache:h", "abc:12", "3"});
        call(*m_client, {"PEXPIRE", "cache:h", "60000"});

        const QJsonObject snap = snapshot();
        QCOMPARE(everything(snap), (QStringList{"lock app:job:7:lock", "redisson-lock reports"}));
        const QJsonObject lock = find(snap, QStringLiteral("locks"), QStringLiteral("reports"));
        checkLibrary(lock);
        QCOMPARE(lock.value(QStringLiteral("redissonType")).toString(), QStringLiteral("RLock"));
        QCOMPARE(lock.value(QStringLiteral("redissonTypeText")).toString(),
                 QStringLiteral("RLock (or an RFairLock with no waiters)"));
        QCOMPARE(lock.value(QStringLiteral("token")).toString(), QString::fromLatin1(a));
        QCOMPARE(count(lock, "holders"), 1);
        QCOMPARE(count(lock, "holdCount"), 2);
        QCOMPARE(count(lock, "waiters"), 0);
        const QJsonArray holders = lock.value(QStringLiteral("holders")).toArray();
        QCOMPARE(holders.size(), 1);
        QCOMPARE(holders.at(0).toObject().value(QStringLiteral("holdCount")).toInt(), 2);
        const double lease = lock.value(QStringLiteral("pttlMs")).toDouble();
        QVERIFY2(lease > 20000 && lease <= 30000, qPrintable(QString::number(lease)));

        Subscriber waiter;
        QVERIFY(waiter.subscribe(m_server.port(), "redisson_lock__channel:{reports}"));
        // Not the holder shown: refused, nothing changed.
        CliRun run
            = cli({QStringLiteral("lock"), QStringLiteral("release"), QStringLiteral("reports"),
                   QStringLiteral("--token"), QString::fromLatin1(b)});
        QCOMPARE(run.exitCode, 3);
        QVERIFY2(run.err.contains(QLatin1String("no longer held")), qPrintable(run.err));
        QCOMPARE(call(*m_client, {"HGET", "reports", a}).bytes(), QByteArray("2"));
        QVERIFY(waiter.messages().isEmpty());

        run = cli({QStringLiteral("lock"), QStringLiteral("release"), QStringLiteral("reports"),
                   QStringLiteral("--token"), QString::fromLatin1(a)});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QCOMPARE(call(*m_client, {"EXISTS", "reports"}).toInteger(), 0);
        QVERIFY(gatehouse::test::waitUntil([&] { return !waiter.messages().isEmpty(); }, 5000));
        QCOMPARE(waiter.messages(), QList<QByteArray>{"0"}); // LockPubSub.UNLOCK_MESSAGE
        // Redisson's own tryLock now succeeds for the other thread.
        QVERIFY(redisson(QStringLiteral("rlock_trylock"), {"reports"}, {"30000", b}).isNil());
        // The generic lock beside it was not touched.
        QCOMPARE(call(*m_client, {"EXISTS", "app:job:7:lock"}).toInteger(), 1);
    }

    // An RFairLock with two waiters (Redisson's tryLock script queued them
    // with their timeouts): one object, its queue and timeout set part of it;
    // force release wakes the first waiter on its own channel, as
    // RedissonFairLock.forceUnlock does, and that waiter's tryLock succeeds.
    void fairLockWaiters()
    {
        const QByteArray keys[]
            = {"fair:res", "redisson_lock_queue:{fair:res}", "redisson_lock_timeout:{fair:res}"};
        const QByteArray holder = s_uuidA + ":1";
        const QByteArray w1 = s_uuidB + ":2";
        const QByteArray w2 = s_uuidB + ":3";
        const auto tryLock = [&](const QByteArray &thread) {
            return redisson(QStringLiteral("fairlock_trylock"), {keys[0], keys[1], keys[2]},
                            {"30000", thread, "60000", QByteArray::number(serverMs())});
        };
        QVERIFY(tryLock(holder).isNil());
        QVERIFY(tryLock(w1).isInteger());
        QVERIFY(tryLock(w2).isInteger());
        QCOMPARE(call(*m_client, {"LLEN", keys[1]}).toInteger(), 2);

        const QJsonObject snap = snapshot();
        QCOMPARE(everything(snap), QStringList{"redisson-lock fair:res"});
        const QJsonObject lock = find(snap, QStringLiteral("locks"), QStringLiteral("fair:res"));
        checkLibrary(lock);
        QCOMPARE(lock.value(QStringLiteral("redissonType")).toString(),
                 QStringLiteral("RFairLock"));
        QCOMPARE(lock.value(QStringLiteral("redissonTypeText")).toString(),
                 QStringLiteral("RFairLock"));
        QCOMPARE(count(lock, "holders"), 1);
        QCOMPARE(count(lock, "waiters"), 2);
        const QJsonArray waiters = lock.value(QStringLiteral("waiters")).toArray();
        QCOMPARE(waiters.size(), 2);
        QCOMPARE(waiters.at(0).toObject().value(QStringLiteral("waiter")).toString(),
                 QString::fromLatin1(w1));
        QCOMPARE(waiters.at(1).toObject().value(QStringLiteral("position")).toInt(), 2);
        for (const QJsonValue &w : waiters) {
            const double in = w.toObject().value(QStringLiteral("timeoutInMs")).toDouble();
            QVERIFY2(in > 60000 && in <= 150000, qPrintable(QString::number(in)));
            QCOMPARE(w.toObject().value(QStringLiteral("stale")).toBool(), false);
        }
        QCOMPARE(lock.value(QStringLiteral("keys")).toArray().size(), 2);

        Subscriber first;
        QVERIFY(first.subscribe(m_server.port(), "redisson_lock__channel:{fair:res}:" + w1));
        const CliRun run
            = cli({QStringLiteral("lock"), QStringLiteral("release"), QStringLiteral("fair:res"),
                   QStringLiteral("--token"), QString::fromLatin1(holder)});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QVERIFY(gatehouse::test::waitUntil([&] { return !first.messages().isEmpty(); }, 5000));
        QCOMPARE(first.messages(), QList<QByteArray>{"0"});
        QCOMPARE(call(*m_client, {"LLEN", keys[1]}).toInteger(), 2); // waiters kept their places
        QVERIFY(tryLock(w1).isNil()); // the first waiter takes it, as Redisson's would
        QCOMPARE(call(*m_client, {"LINDEX", keys[1], "0"}).bytes(), w2);
    }

    // An RFairLock held with nobody waiting: Redisson's fair tryLock pops its
    // (empty) queue and timeout set and writes the same HSET and PEXPIRE as
    // RLock's, so the keys cannot say which it is; the console says both,
    // and once a waiter queues it is an RFairLock.
    void fairLockWithoutWaiters()
    {
        const QByteArray keys[]
            = {"fair:idle", "redisson_lock_queue:{fair:idle}", "redisson_lock_timeout:{fair:idle}"};
        const auto tryLock = [&](const QByteArray &thread) {
            return redisson(QStringLiteral("fairlock_trylock"), {keys[0], keys[1], keys[2]},
                            {"30000", thread, "60000", QByteArray::number(serverMs())});
        };
        QVERIFY(tryLock(s_uuidA + ":7").isNil());
        QCOMPARE(call(*m_client, {"EXISTS", keys[1], keys[2]}).toInteger(), 0);
        QJsonObject lock = find(snapshot(), QStringLiteral("locks"), QStringLiteral("fair:idle"));
        QCOMPARE(lock.value(QStringLiteral("redissonType")).toString(), QStringLiteral("RLock"));
        QCOMPARE(lock.value(QStringLiteral("redissonTypeText")).toString(),
                 QStringLiteral("RLock (or an RFairLock with no waiters)"));
        QVERIFY(tryLock(s_uuidB + ":8").isInteger()); // queued
        lock = find(snapshot(), QStringLiteral("locks"), QStringLiteral("fair:idle"));
        QCOMPARE(lock.value(QStringLiteral("redissonTypeText")).toString(),
                 QStringLiteral("RFairLock"));
        QCOMPARE(call(*m_client, {"DEL", keys[0], keys[1], keys[2]}).toInteger(), 3);
    }

    // A fair lock whose only waiter gave up long ago (its timeout passed):
    // force release drops it as RedissonFairLock.forceUnlock's "remove stale
    // threads" does, and wakes nobody on its channel.
    void fairLockStaleWaiterDropped()
    {
        const QList<QByteArray> keys{"fair:stale", "redisson_lock_queue:{fair:stale}",
                                     "redisson_lock_timeout:{fair:stale}"};
        const QByteArray holder = s_uuidA + ":1";
        const QByteArray stale = s_uuidB + ":9";
        QVERIFY(redisson(QStringLiteral("fairlock_trylock"), keys,
                         {"30000", holder, "5000", QByteArray::number(serverMs())})
                    .isNil());
        // Queued by a client whose clock was 200 s behind: its timeout is past.
        QVERIFY(redisson(QStringLiteral("fairlock_trylock"), keys,
                         {"30000", stale, "5000", QByteArray::number(serverMs() - 200000)})
                    .isInteger());
        const QJsonObject lock
            = find(snapshot(), QStringLiteral("locks"), QStringLiteral("fair:stale"));
        const QJsonArray waiters = lock.value(QStringLiteral("waiters")).toArray();
        QCOMPARE(waiters.size(), 1);
        QCOMPARE(waiters.at(0).toObject().value(QStringLiteral("stale")).toBool(), true);

        Subscriber woken;
        QVERIFY(woken.subscribe(m_server.port(), "redisson_lock__channel:{fair:stale}:" + stale));
        const CliRun run
            = cli({QStringLiteral("lock"), QStringLiteral("release"), QStringLiteral("fair:stale"),
                   QStringLiteral("--token"), QString::fromLatin1(holder)});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QCOMPARE(call(*m_client, {"EXISTS", keys[0], keys[1], keys[2]}).toInteger(), 0);
        QVERIFY(woken.messages().isEmpty());
    }

    // An RReadWriteLock read by two threads, and another write-locked: one
    // object each, readers and writer shown, the read timeouts part of them.
    // Force release as RedissonReadLock.forceUnlock (PUBLISH 0 on
    // redisson_rwlock:{name}); a writer can then take it.
    void readWriteLock()
    {
        const QByteArray r1 = s_uuidA + ":51";
        const QByteArray r2 = s_uuidB + ":52";
        const QByteArray w = s_uuidA + ":60";
        for (const QByteArray &r : {r1, r2})
            QVERIFY(redisson(QStringLiteral("rwlock_readlock"),
                             {"rw:doc", "{rw:doc}:" + r + ":rwlock_timeout"},
                             {"30000", r, r + ":write"})
                        .isNil());
        QVERIFY(redisson(QStringLiteral("rwlock_writelock"), {"rw:cfg"}, {"30000", w + ":write"})
                    .isNil());
        QVERIFY(redisson(QStringLiteral("rwlock_writelock"), {"rw:doc"}, {"30000", w + ":write"})
                    .isInteger()); // readers hold it

        const QJsonObject snap = snapshot();
        QCOMPARE(everything(snap), (QStringList{"redisson-lock rw:cfg", "redisson-lock rw:doc"}));
        const QJsonObject doc = find(snap, QStringLiteral("locks"), QStringLiteral("rw:doc"));
        checkLibrary(doc);
        QCOMPARE(doc.value(QStringLiteral("redissonType")).toString(),
                 QStringLiteral("RReadWriteLock"));
        QCOMPARE(doc.value(QStringLiteral("mode")).toString(), QStringLiteral("read"));
        QCOMPARE(count(doc, "readers"), 2);
        QCOMPARE(count(doc, "writers"), 0);
        QCOMPARE(count(doc, "holders"), 2);
        const QJsonObject cfg = find(snap, QStringLiteral("locks"), QStringLiteral("rw:cfg"));
        QCOMPARE(cfg.value(QStringLiteral("mode")).toString(), QStringLiteral("write"));
        QCOMPARE(count(cfg, "writers"), 1);
        QCOMPARE(cfg.value(QStringLiteral("token")).toString(), QString::fromLatin1(w + ":write"));

        Subscriber waiter;
        QVERIFY(waiter.subscribe(m_server.port(), "redisson_rwlock:{rw:doc}"));
        const CliRun run
            = cli({QStringLiteral("lock"), QStringLiteral("release"), QStringLiteral("rw:doc"),
                   QStringLiteral("--token"), QString::fromLatin1(r2)});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QVERIFY(gatehouse::test::waitUntil([&] { return !waiter.messages().isEmpty(); }, 5000));
        QCOMPARE(waiter.messages(), QList<QByteArray>{"0"});
        QVERIFY(redisson(QStringLiteral("rwlock_writelock"), {"rw:doc"}, {"30000", w + ":write"})
                    .isNil());

        // The write-locked one, as RedissonWriteLock.forceUnlock: PUBLISH 1
        // (LockPubSub.READ_UNLOCK_MESSAGE, every waiting reader wakes).
        Subscriber readers;
        QVERIFY(readers.subscribe(m_server.port(), "redisson_rwlock:{rw:cfg}"));
        const CliRun write
            = cli({QStringLiteral("lock"), QStringLiteral("release"), QStringLiteral("rw:cfg"),
                   QStringLiteral("--token"), QString::fromLatin1(w + ":write")});
        QVERIFY2(write.exitCode == 0, qPrintable(write.err));
        QVERIFY(gatehouse::test::waitUntil([&] { return !readers.messages().isEmpty(); }, 5000));
        QCOMPARE(readers.messages(), QList<QByteArray>{"1"});
        QVERIFY(redisson(QStringLiteral("rwlock_readlock"),
                         {"rw:cfg", "{rw:cfg}:" + r1 + ":rwlock_timeout"},
                         {"30000", r1, r1 + ":write"})
                    .isNil());
    }

    // Plain RSemaphores, set and taken by Redisson's own scripts
    // (RedissonSemaphore.trySetPermitsAsync and tryAcquireAsync0 of 3.52.0,
    // tests/libraries/redisson/), found with no profile by their names: an
    // integer STRING named with "semaphore" (camel case too) or "permits" and
    // no TTL is shown; one with a TTL is a candidate. Counters of the same
    // shape stay ordinary: a word of ordinary data (stats, views), a date,
    // no semaphore word ("sem:plain", "semantic").
    void plainSemaphoresByName()
    {
        const auto setPermits = [&](const QByteArray &name, const QByteArray &permits) {
            return redisson(QStringLiteral("semaphore_trysetpermits"),
                            {name, "redisson_sc:{" + name + "}"}, {permits, "publish"})
                .toInteger();
        };
        QCOMPARE(setPermits("semaphore:api-calls", "3"), 1);
        QCOMPARE(redisson(QStringLiteral("semaphore_tryacquire"), {"semaphore:api-calls"}, {"1"})
                     .toInteger(),
                 1);
        QCOMPARE(setPermits("mySemaphore", "10"), 1);
        QCOMPARE(setPermits("billing:permits", "0"), 1);
        QCOMPARE(setPermits("semaphore:exports", "4"), 1);
        QCOMPARE(call(*m_client, {"PEXPIRE", "semaphore:exports", "600000"}).toInteger(), 1);
        QCOMPARE(setPermits("sem:plain", "2"), 1);
        for (const char *counter : {"stats:semaphore_waits", "views:semaphore-docs",
                                    "semaphore:2026-11-24", "semantic:index:count"})
            QCOMPARE(call(*m_client, {"INCRBY", counter, "7"}).toInteger(), 7);

        const QJsonObject snap = snapshot();
        QStringList shown = everything(snap);
        shown.sort();
        // The candidate (no "key") is "redisson-semaphore " in everything().
        QCOMPARE(shown, (QStringList{"redisson-semaphore ", "redisson-semaphore billing:permits",
                                     "redisson-semaphore mySemaphore",
                                     "redisson-semaphore semaphore:api-calls"}));
        const QJsonObject api
            = find(snap, QStringLiteral("semaphores"), QStringLiteral("semaphore:api-calls"));
        QCOMPARE(api.value(QStringLiteral("redissonType")).toString(),
                 QStringLiteral("RSemaphore"));
        QCOMPARE(count(api, "available"), 2);
        QCOMPARE(count(api, "acquired"), 0);
        QCOMPARE(api.value(QStringLiteral("source")).toString(), QStringLiteral("autodetected"));
        const QString evidence = QString::fromUtf8(
            QJsonDocument(api.value(QStringLiteral("evidence")).toArray()).toJson());
        QVERIFY2(
            evidence.contains(QLatin1String("no TTL"))
                && evidence.contains(QLatin1String("in its name argues for a Redisson semaphore")),
            qPrintable(evidence));
        QCOMPARE(count(find(snap, QStringLiteral("semaphores"), QStringLiteral("mySemaphore")),
                       "available"),
                 10);
        QCOMPARE(count(find(snap, QStringLiteral("semaphores"), QStringLiteral("billing:permits")),
                       "available"),
                 0);
        const QJsonArray candidates = snap.value(QStringLiteral("candidates")).toArray();
        QCOMPARE(candidates.size(), 1);
        const QJsonObject candidate = candidates.first().toObject();
        QCOMPARE(candidate.value(QStringLiteral("pattern")).toString(),
                 QStringLiteral("redisson-semaphore"));
        QCOMPARE(candidate.value(QStringLiteral("keys")).toArray(),
                 QJsonArray{QStringLiteral("semaphore:exports")});
        QVERIFY2(QJsonDocument(candidate.value(QStringLiteral("evidence")).toArray())
                     .toJson()
                     .contains("with a TTL"),
                 "the candidate's evidence names its TTL");
    }

    // An RPermitExpirableSemaphore of 5 with a permit whose lease ended, one
    // leased and one without a lease; a plain RSemaphore beside it is an
    // integer STRING whose name says nothing of a semaphore, which only a
    // profile names. Releasing the expired permit as
    // Redisson's reclaim does; a leased one is refused.
    void semaphores()
    {
        const QByteArray name = "perm:api";
        const QList<QByteArray> keys{name, "{perm:api}:timeout", "redisson_sc:{perm:api}"};
        QCOMPARE(redisson(QStringLiteral("pes_trysetpermits"), {name, keys[2]}, {"5", "publish"})
                     .toInteger(),
                 1);
        const QByteArray expiring = QByteArray::fromHex("00112233445566778899aabbccddeeff");
        const QByteArray leased = QByteArray::fromHex("0102030405060708090a0b0c0d0e0f10");
        const QByteArray noLease = QByteArray::fromHex("a0a1a2a3a4a5a6a7a8a9aaabacadaeaf");
        const qint64 now = serverMs();
        const auto acquire = [&](const QByteArray &id, qint64 end) {
            return redisson(QStringLiteral("pes_tryacquire"), keys,
                            {"1", QByteArray::number(end), QByteArray::number(serverMs()),
                             "922337203685477", "publish", id});
        };
        QCOMPARE(acquire(expiring, now + 150).bytes(), QByteArray("OK"));
        QCOMPARE(acquire(leased, now + 600000).bytes(), QByteArray("OK"));
        QCOMPARE(acquire(noLease, 922337203685477LL).bytes(), QByteArray("OK"));
        QVERIFY(gatehouse::test::waitUntil([&] { return serverMs() > now + 200; }, 5000));
        QCOMPARE(redisson(QStringLiteral("semaphore_trysetpermits"),
                          {"sem:plain", "redisson_sc:{sem:plain}"}, {"3", "publish"})
                     .toInteger(),
                 1);
        QCOMPARE(redisson(QStringLiteral("semaphore_tryacquire"), {"sem:plain"}, {"1"}).toInteger(),
                 1);

        const QJsonObject snap = snapshot();
        QCOMPARE(everything(snap), QStringList{"redisson-semaphore perm:api"});
        const QJsonObject sem = find(snap, QStringLiteral("semaphores"), QString::fromLatin1(name));
        checkLibrary(sem);
        QCOMPARE(sem.value(QStringLiteral("redissonType")).toString(),
                 QStringLiteral("RPermitExpirableSemaphore"));
        QCOMPARE(count(sem, "available"), 2);
        QCOMPARE(count(sem, "acquired"), 3);
        QCOMPARE(count(sem, "expired"), 1);
        const QJsonArray stuck = sem.value(QStringLiteral("stuck")).toArray();
        QCOMPARE(stuck.size(), 1);
        QCOMPARE(stuck.at(0).toObject().value(QStringLiteral("job")).toString(),
                 QString::fromLatin1(expiring.toHex()));
        const QJsonArray permits = sem.value(QStringLiteral("permits")).toArray();
        QCOMPARE(permits.size(), 3);
        QCOMPARE(permits.at(0).toObject().value(QStringLiteral("expired")).toBool(), true);
        QVERIFY(permits.at(2).toObject().value(QStringLiteral("leaseEndsAtMs")).isNull());

        // The plain RSemaphore, named by a profile rule.
        const QString profile = m_dir.filePath(QStringLiteral("redisson.json"));
        QFile f(profile);
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write(R"({"name": "r", "rules": [{"pattern": "redisson-semaphore", "match": "sem:*"}]})");
        f.close();
        const QJsonObject plain = find(snapshot({QStringLiteral("--profile"), profile}),
                                       QStringLiteral("semaphores"), QStringLiteral("sem:plain"));
        QCOMPARE(plain.value(QStringLiteral("redissonType")).toString(),
                 QStringLiteral("RSemaphore"));
        QCOMPARE(count(plain, "available"), 2);

        Subscriber waiter;
        QVERIFY(waiter.subscribe(m_server.port(), keys[2]));
        CliRun run = cli({QStringLiteral("semaphore"), QStringLiteral("release"),
                          QString::fromLatin1(name), QStringLiteral("--holder"),
                          QString::fromLatin1(leased.toHex())});
        QCOMPARE(run.exitCode, 3);
        QVERIFY2(run.err.contains(QLatin1String("still leased")), qPrintable(run.err));
        run = cli({QStringLiteral("semaphore"), QStringLiteral("release"),
                   QString::fromLatin1(name), QStringLiteral("--holder"),
                   QString::fromLatin1(expiring.toHex())});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QVERIFY(gatehouse::test::waitUntil([&] { return !waiter.messages().isEmpty(); }, 5000));
        QCOMPARE(waiter.messages(), QList<QByteArray>{"3"});
        // Redisson's own count agrees, and finds nothing more to reclaim.
        QCOMPARE(redisson(QStringLiteral("pes_availablepermits"), keys,
                          {QByteArray::number(serverMs()), "publish"})
                     .toInteger(),
                 3);
        QCOMPARE(call(*m_client, {"ZCARD", keys[1]}).toInteger(), 2);
        QVERIFY(call(*m_client, {"ZSCORE", keys[1], expiring}).isNil());
        QCOMPARE(waiter.messages().size(), 1);

        // --all: every expired permit (two now), the leased ones kept.
        const qint64 later = serverMs();
        const QByteArray e1 = QByteArray::fromHex("11111111111111111111111111111111");
        const QByteArray e2 = QByteArray::fromHex("22222222222222222222222222222222");
        QCOMPARE(acquire(e1, later + 100).bytes(), QByteArray("OK"));
        QCOMPARE(acquire(e2, later + 100).bytes(), QByteArray("OK"));
        QVERIFY(gatehouse::test::waitUntil([&] { return serverMs() > later + 150; }, 5000));
        run = cli({QStringLiteral("semaphore"), QStringLiteral("release"),
                   QString::fromLatin1(name), QStringLiteral("--all")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QVERIFY2(run.out.contains(QLatin1String("Gave 2 expired permits back")),
                 qPrintable(run.out));
        QCOMPARE(call(*m_client, {"GET", name}).bytes(), QByteArray("3"));
        QCOMPARE(call(*m_client, {"ZCARD", keys[1]}).toInteger(), 2); // leased, no lease
        run = cli({QStringLiteral("semaphore"), QStringLiteral("release"),
                   QString::fromLatin1(name), QStringLiteral("--all")});
        QCOMPARE(run.exitCode, 3);
    }

    // An RRateLimiter set and used by Redisson's own scripts
    // (RedissonRateLimiter.trySetRateAsync, tryAcquireAsync and
    // availablePermitsAsync, tests/libraries/redisson/), found with no
    // profile: grants of several permits count as many in the window as
    // Redisson counts them, and once it is full the retry horizon is when
    // Redisson itself would let the next permit through. A name with a hash
    // tag keeps it in its value and permits keys.
    void rateLimiter()
    {
        for (const QByteArray name : {QByteArray("api-limiter"), QByteArray("rl:{billing}")}) {
            const auto suffixed = [&](const QByteArray &suffix) -> QByteArray {
                if (name.contains('{'))
                    return name + ':' + suffix;
                return '{' + name + "}:" + suffix;
            };
            const QList<QByteArray> keys{name, suffixed("value"), suffixed("value:" + s_uuidA),
                                         suffixed("permits"), suffixed("permits:" + s_uuidA)};
            QCOMPARE(redisson(QStringLiteral("ratelimiter_trysetrate"), {name},
                              {"10", "60000", "0", "0"})
                         .toInteger(),
                     1);
            const auto acquire = [&](int permits) {
                QByteArray random(16, '\0');
                for (char &c : random)
                    c = char(QRandomGenerator::global()->bounded(256));
                return redisson(
                    QStringLiteral("ratelimiter_tryacquire"), keys,
                    {QByteArray::number(permits), QByteArray::number(serverMs()), random});
            };
            for (int permits : {3, 1, 4})
                QVERIFY(acquire(permits).isNil());
            QCOMPARE(redisson(QStringLiteral("ratelimiter_availablepermits"), keys,
                              {QByteArray::number(serverMs())})
                         .toInteger(),
                     2);
            QJsonObject o = find(snapshot(), QStringLiteral("limiters"), QString::fromUtf8(name));
            QCOMPARE(o.value(QStringLiteral("pattern")).toString(),
                     QStringLiteral("redisson-limiter"));
            QCOMPARE(o.value(QStringLiteral("inWindow")).toInt(), 8); // Redisson: 10 - 2
            QCOMPARE(o.value(QStringLiteral("limit")).toInt(), 10);
            QCOMPARE(o.value(QStringLiteral("windowMs")).toInt(), 60000);
            QCOMPARE(o.value(QStringLiteral("retryHorizonMs")).toInt(), 0);

            QVERIFY(acquire(2).isNil()); // full
            const RedisValue wait = acquire(1);
            QVERIFY2(wait.isInteger() && wait.toInteger() > 3, qPrintable(wait.toDebugString()));
            o = find(snapshot(), QStringLiteral("limiters"), QString::fromUtf8(name));
            QCOMPARE(o.value(QStringLiteral("inWindow")).toInt(), 10);
            QCOMPARE(
                o.value(QStringLiteral("state")).toObject().value(QStringLiteral("id")).toString(),
                QStringLiteral("over-limit"));
            // Redisson's wait is 3 ms more than the oldest grant's time left,
            // read a little earlier than the snapshot's.
            const qint64 horizon = o.value(QStringLiteral("retryHorizonMs")).toInteger();
            QVERIFY2(
                horizon <= wait.toInteger() - 3 && horizon >= wait.toInteger() - 3 - 15000,
                qPrintable(
                    QStringLiteral("%1 against Redisson's %2").arg(horizon).arg(wait.toInteger())));
        }
    }

    // An RDelayedQueue with two items due (no Redisson client ran its
    // transfer task) and one due in ten minutes: one queue, due items stuck;
    // requeue --stuck moves them as the transfer task does, once, and leaves
    // the future one; Redisson's own task then finds nothing due.
    void delayedQueue()
    {
        const QList<QByteArray> keys{"mail", "redisson_delay_queue_timeout:{mail}",
                                     "redisson_delay_queue:{mail}",
                                     "redisson_delay_queue_channel:{mail}"};
        const qint64 now = serverMs();
        const auto offer = [&](qint64 due, const QByteArray &random, const QByteArray &e) {
            return redisson(QStringLiteral("delayedqueue_offer"), keys,
                            {QByteArray::number(due), random, e});
        };
        QVERIFY(!offer(now - 20000, "rnd00001", R"({"to":"a"})").isError());
        QVERIFY(!offer(now - 10000, "rnd00002", R"({"to":"b"})").isError());
        QVERIFY(!offer(now + 600000, "rnd00003", R"({"to":"c"})").isError());
        call(*m_client, {"RPUSH", "mail", R"({"to":"first"})"});

        const QJsonObject snap = snapshot();
        QCOMPARE(everything(snap), QStringList{"redisson-delayed-queue mail"});
        const QJsonObject q = find(snap, QStringLiteral("queues"), QStringLiteral("mail"));
        checkLibrary(q);
        QCOMPARE(count(q, "delayed"), 3);
        QCOMPARE(count(q, "due"), 2);
        QCOMPARE(count(q, "queued"), 1);
        const QJsonArray stuck = q.value(QStringLiteral("stuck")).toArray();
        QCOMPARE(stuck.size(), 2);
        QCOMPARE(stuck.at(0).toObject().value(QStringLiteral("job")).toString(),
                 QStringLiteral(R"({"to":"a"})"));
        QCOMPARE(stuck.at(0).toObject().value(QStringLiteral("sinceMs")).toDouble(),
                 double(now - 20000));
        const double next = q.value(QStringLiteral("nextDueInMs")).toDouble();
        QCOMPARE(next, 0.0); // one is due now
        QVERIFY(q.value(QStringLiteral("oldestDueAgeMs")).toDouble() >= 20000);

        CliRun run = cli({QStringLiteral("queue"), QStringLiteral("requeue"),
                          QStringLiteral("mail"), QStringLiteral("--stuck")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        const QList<QByteArray> moved{R"({"to":"first"})", R"({"to":"a"})", R"({"to":"b"})"};
        const auto destination = [&] {
            QList<QByteArray> out;
            const RedisValue all = call(*m_client, {"LRANGE", "mail", "0", "-1"});
            for (const RedisValue &v : all.elements())
                out << v.bytes();
            return out;
        };
        QCOMPARE(destination(), moved);
        QCOMPARE(call(*m_client, {"ZCARD", keys[1]}).toInteger(), 1);
        QCOMPARE(call(*m_client, {"LLEN", keys[2]}).toInteger(), 1);
        // Again: nothing due, nothing moved twice.
        run = cli({QStringLiteral("queue"), QStringLiteral("requeue"), QStringLiteral("mail"),
                   QStringLiteral("--stuck")});
        QCOMPARE(run.exitCode, 3);
        QCOMPARE(destination(), moved);
        // Redisson's own transfer task finds nothing due either, and names
        // the future item's due time.
        const RedisValue task
            = redisson(QStringLiteral("delayedqueue_transfer"), {keys[0], keys[1], keys[2]},
                       {QByteArray::number(serverMs()), "100"});
        QCOMPARE(task.bytes(), QByteArray::number(now + 600000));
        QCOMPARE(destination(), moved);
        // A --job is refused with a sentence: Redisson moves due items together.
        run = cli({QStringLiteral("queue"), QStringLiteral("requeue"), QStringLiteral("mail"),
                   QStringLiteral("--job"), QStringLiteral("x")});
        QVERIFY(run.exitCode != 0);
        QVERIFY2(run.err.contains(QLatin1String("--stuck")), qPrintable(run.err));
    }
};

QTEST_GUILESS_MAIN(tst_LibRedisson)
#include "tst_lib_redisson.moc"
