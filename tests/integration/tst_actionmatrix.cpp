// SPDX-License-Identifier: MIT
// The adversarial action matrix: every operator action, for every key it
// touches, with that key missing, of each other type, or of the right type
// with unexpected content, run through the real ActionEngine against a real
// redis-server. The invariant a user relies on: every job, token and lock is
// where it was or exactly where the reply says it went; nothing disappears,
// nothing doubles; a refusal writes nothing and names the key and its type.
#include <actions/actionengine.h>
#include <patterns/lock/lockunit.h>
#include <patterns/patternregistry.h>
#include <patterns/reliable-queue/reliablequeueunit.h>
#include <redis/redisclient.h>
#include <redis/serverinfo.h>

#include "commandstats.h"
#include "kit/actioncases.h"
#include "redisserver.h"

#include <QTemporaryDir>
#include <QTest>

#include <functional>

using namespace gatehouse;
using gatehouse::test::ActionCase;
using gatehouse::test::call;
using gatehouse::test::Command;
using gatehouse::test::PatternActionRows;
using gatehouse::test::RedisServer;

namespace {

using R = ActionOutcome::Result;

// The server under test (INFO, at initTestCase): token fields are issued
// only where per-field expiry exists.
ServerIdentity s_server;

// Every pattern's adversarial rows (tests/patterns/<pattern>/*actions.cpp).
QList<ActionCase> cases()
{
    QList<ActionCase> all;
    for (const PatternActionRows &rows : test::registeredActionRows(s_server))
        all.append(rows.cases);
    return all;
}

// One key laid out as another type than its pattern's (or missing).
QList<Command> variantLayout(const QString &variant, const QByteArray &key)
{
    if (variant == QLatin1String("string"))
        return {{"SET", key, "notalist"}};
    if (variant == QLatin1String("list"))
        return {{"RPUSH", key, "jobA", "other"}};
    if (variant == QLatin1String("hash"))
        return {{"HSET", key, "jobA", "1"}};
    if (variant == QLatin1String("set"))
        return {{"SADD", key, "jobA"}};
    if (variant == QLatin1String("zset"))
        return {{"ZADD", key, "1", "jobA"}};
    if (variant == QLatin1String("stream"))
        return {{"XADD", key, "*", "job", "jobA"}};
    return {}; // missing
}

// Every script call the actions of a pattern registered with a
// conventional key build (the job and lock libraries): each action with
// each way of asking it (one job, --stuck, --all, clean, pause), on the
// structure at that key.
struct LibraryCall
{
    QString name;
    ScriptCall call;
};

// refused: only the calls a pattern always refuses (no script to check:
// Redisson's limiter is read-only in Gatehouse), instead of the others.
QList<LibraryCall> libraryCalls(bool refused = false)
{
    QList<std::pair<PatternKind, QByteArray>> queues;
    const QMap<QString, PatternActionRows> registered = test::registeredActionRows(s_server);
    for (auto it = registered.cbegin(); it != registered.cend(); ++it) {
        const PatternUnit *unit = PatternRegistry::instance().find(it.key());
        if (unit && !it->conventionalKey.isEmpty())
            queues.append({unit->kind(), it->conventionalKey});
    }
    // The ways of asking; an action takes those its check accepts.
    const QList<QHash<QString, QByteArray>> asks{
        {{QStringLiteral("job"), "1700000000.5-j1"}},
        {{QStringLiteral("stuck"), {}}},
        {{QStringLiteral("all"), {}}},
        {{QStringLiteral("all"), {}}, {QStringLiteral("completed"), {}}},
        {{QStringLiteral("job"), "j1"}, {QStringLiteral("from"), "dead"}},
        {{QStringLiteral("job"), "j1"}, {QStringLiteral("from"), "schedule"}},
        {{QStringLiteral("state"), "completed"}, {QStringLiteral("older-than"), "0"}},
        {{QStringLiteral("state"), "failed"},
         {QStringLiteral("older-than"), "0"},
         {QStringLiteral("count-only"), {}}},
        // Redisson's: a lock's holder, a semaphore's expired permit.
        {{QStringLiteral("token"), "8a2f6b1e-5a5c-4c3e-9d7e-1b2c3d4e5f60:1"}},
        {{QStringLiteral("holder"), "0a1b2c3d4e5f6071"}},
        // Celery's requeue --older-than MS (refused unless forced).
        {{QStringLiteral("older-than"), "1000"}},
        // A stream's: claim (all idle, or one entry of one consumer),
        // dead-letter, delete a consumer, trim counted and trimmed.
        {{QStringLiteral("group"), "g"}, {QStringLiteral("to"), "c2"}},
        {{QStringLiteral("group"), "g"},
         {QStringLiteral("to"), "c2"},
         {QStringLiteral("from"), "c"},
         {QStringLiteral("job"), "1-1"}},
        {{QStringLiteral("group"), "g"}, {QStringLiteral("job"), "1-1"}},
        {{QStringLiteral("group"), "g"}, {QStringLiteral("consumer"), "c"}},
        {{QStringLiteral("maxlen"), "1"}, {QStringLiteral("count-only"), {}}},
        {{QStringLiteral("maxlen"), "1"}, {QStringLiteral("expect"), "1"}},
        {{QStringLiteral("minid"), "2-0"}, {QStringLiteral("expect"), "1"}},
        // Horizon's retry: a failed job and its Laravel queue.
        {{QStringLiteral("job"), "j1"}, {QStringLiteral("queue"), "queues:q"}},
        {}};
    QList<LibraryCall> out;
    for (const auto &[kind, key] : queues) {
        const PatternUnit &unit = PatternUnit::of(kind);
        for (const PatternAction &a : unit.actions()) {
            if (a.consoleOnly)
                continue; // the same calls as its CLI verb's
            QSet<QString> seen;
            for (const auto &ask : asks) {
                ActionRequest r;
                r.object = unit.conventionalObject(key);
                r.target = key;
                r.inputs = ask;
                if (a.check && !a.check(r).isEmpty())
                    continue;
                // A call refused unless forced (Celery's requeue --older-than)
                // is checked as the operator's --force sends it.
                ScriptCall call = a.build(r);
                if (!call.refusal.isEmpty() && call.isForceable())
                    call = call.forced();
                const QString shape = call.script + call.args.join(' ');
                if (!call.isValid() || seen.contains(shape)
                    || (!call.refusal.isEmpty() && !call.isForceable()) != refused)
                    continue;
                seen.insert(shape);
                QStringList given;
                for (auto it = ask.cbegin(); it != ask.cend(); ++it)
                    given << it.key();
                given.sort();
                out.append({QStringLiteral("%1 %2 %3 (%4)")
                                .arg(kind.id(), a.verb, call.script, given.join(QLatin1Char(','))),
                            call});
            }
        }
    }
    return out;
}

} // namespace

class tst_ActionMatrix : public QObject
{
    Q_OBJECT

private:
    RedisServer m_server;
    std::unique_ptr<RedisClient> m_client;
    std::unique_ptr<ActionEngine> m_engine;
    QTemporaryDir m_dir;

    void lay(const QList<Command> &commands)
    {
        for (const Command &c : commands)
            QVERIFY2(!call(*m_client, c).isError(), c.join(' ').constData());
    }

    // Everything a key holds, as DUMP serialises it, with whether it expires.
    QList<RedisValue> state(const QList<QByteArray> &keys)
    {
        QList<RedisValue> out;
        for (const QByteArray &k : keys) {
            out << call(*m_client, {"DUMP", k});
            out << RedisValue::integer(call(*m_client, {"PTTL", k}).toInteger() >= 0 ? 1 : 0);
        }
        return out;
    }

    ActionOutcome run(const ScriptCall &sc, bool dryRun = false)
    {
        ActionOutcome out;
        test::ReplyWait wait;
        m_engine->run(sc, dryRun, this, [&](const ActionOutcome &o) {
            out = o;
            wait.finish();
        });
        if (!wait.wait(10000))
            qWarning("no outcome for %s", qPrintable(sc.action));
        return out;
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QVERIFY2(m_server.start(), qPrintable(m_server.errorString()));
        m_client = test::connectedClient(m_server);
        QVERIFY(m_client);
        m_engine = std::make_unique<ActionEngine>(m_client.get());
        m_engine->setAuditLogPath(m_dir.filePath(QStringLiteral("audit.jsonl")));
        s_server = ServerIdentity::fromInfo(parseInfo(call(*m_client, {"INFO", "server"}).bytes()));
        if (!s_server.has(ServerIdentity::Capability::HashFieldExpiry))
            qInfo("%s has no per-field expiry: token.issue-field is not in the matrix "
                  "(tst_tokenhashabsent checks it is refused there)",
                  qPrintable(s_server.displayName()));
    }

    void init() { QCOMPARE(call(*m_client, {"FLUSHALL"}), RedisValue::status("OK")); }

    void cleanupTestCase()
    {
        m_engine.reset();
        m_client.reset();
        m_server.stop();
        QCOMPARE(RedisServer::runningChildren(), 0);
    }

    void matrix_data()
    {
        QTest::addColumn<int>("action");
        QTest::addColumn<int>("keyIndex");
        QTest::addColumn<QString>("variant");
        const QList<ActionCase> all = cases();
        const QStringList variants{
            QStringLiteral("right"), QStringLiteral("missing"), QStringLiteral("string"),
            QStringLiteral("list"),  QStringLiteral("hash"),    QStringLiteral("set"),
            QStringLiteral("zset"),  QStringLiteral("stream"),  QStringLiteral("unexpected")};
        for (int a = 0; a < all.size(); ++a) {
            for (int k = 0; k < all.at(a).keys.size(); ++k) {
                for (const QString &v : variants) {
                    QTest::addRow("%s %s %s", qPrintable(all.at(a).name),
                                  all.at(a).keys.at(k).constData(), qPrintable(v))
                        << a << k << v;
                }
            }
        }
    }

    void matrix()
    {
        QFETCH(int, action);
        QFETCH(int, keyIndex);
        QFETCH(QString, variant);
        const ActionCase c = cases().at(action);
        const QByteArray target = c.keys.at(keyIndex);
        for (int k = 0; k < c.keys.size(); ++k) {
            if (k != keyIndex || variant == QLatin1String("right"))
                lay(c.layout.at(k));
            else if (variant == QLatin1String("unexpected"))
                lay(c.unexpected.at(k));
            else
                lay(variantLayout(variant, target));
        }
        const QByteArray type = call(*m_client, {"TYPE", target}).bytes();
        const bool wrongType = type != "none" && !c.accepted.at(keyIndex).split('|').contains(type);

        const QList<RedisValue> before = state(c.keys);
        const QList<QByteArray> itemsBefore = test::listItems(*m_client, c.keys);
        const ScriptCall sc = c.makeCall();

        // A dry run writes nothing, and predicts the outcome's kind.
        const ActionOutcome dry = run(sc, true);
        QCOMPARE(dry.result, R::DryRun);
        QCOMPARE(state(c.keys), before);

        const ActionOutcome out = run(sc);
        QVERIFY2(out.result != R::Failed, qPrintable(out.message)); // never a raw server error
        QVERIFY2(out.message.size() < 600, qPrintable(out.message));
        QCOMPARE(dry.wouldBe, out.result);

        if (wrongType) {
            QVERIFY2(out.result == R::Refused, qPrintable(out.message));
            QVERIFY2(out.message.contains(QString::fromUtf8(target)), qPrintable(out.message));
            const QString typeWord
                = type == "zset" ? QStringLiteral("sorted set") : QString::fromLatin1(type);
            QVERIFY2(out.message.contains(QLatin1String(" a ") + typeWord),
                     qPrintable(out.message));
        }
        if (out.result != R::Done)
            QCOMPARE(state(c.keys), before); // refused or nothing to do: nothing written
        else
            QVERIFY2(!wrongType, qPrintable(out.message));
        if (c.verify) {
            c.verify({*m_client, out, c.keys, target, variant, wrongType, itemsBefore});
            return;
        }
        // Deleting actions delete exactly their keys, of the right type.
        if (out.result == R::Done) {
            for (const QByteArray &k : c.keys)
                QCOMPARE(call(*m_client, {"EXISTS", k}).toInteger(), 0);
        }
    }

    // Every job-library script against each of its keys of a wrong type
    // (the others missing): it writes nothing (a DUMP of every key the same
    // before and after) and refuses with a GHTYPE/GHSHAPE error that the
    // engine turns into a sentence naming that key and its type.
    void libraryScripts_data()
    {
        QTest::addColumn<int>("call");
        QTest::addColumn<int>("keyIndex");
        QTest::addColumn<QString>("variant");
        const QList<LibraryCall> all = libraryCalls();
        const QStringList types{QStringLiteral("string"), QStringLiteral("list"),
                                QStringLiteral("hash"),   QStringLiteral("set"),
                                QStringLiteral("zset"),   QStringLiteral("stream")};
        for (int c = 0; c < all.size(); ++c) {
            const ScriptCall &sc = all.at(c).call;
            for (int k = 0; k < sc.keys.size(); ++k) {
                const QString expected = sc.keyRoles.value(k).section(QLatin1Char(' '), -1);
                if (expected == QLatin1String("channel"))
                    continue; // a pub/sub channel (Redisson's unlock message): no key is written
                for (const QString &t : types) {
                    if (t == expected)
                        continue;
                    QTest::addRow("%s %s %s", qPrintable(all.at(c).name), sc.keys.at(k).constData(),
                                  qPrintable(t))
                        << c << k << t;
                }
            }
        }
    }

    void libraryScripts()
    {
        QFETCH(int, call);
        QFETCH(int, keyIndex);
        QFETCH(QString, variant);
        const LibraryCall c = libraryCalls().at(call);
        const QByteArray target = c.call.keys.at(keyIndex);
        const QString expected = c.call.keyRoles.value(keyIndex).section(QLatin1Char(' '), -1);
        QVERIFY2(
            QStringList({QStringLiteral("string"), QStringLiteral("list"), QStringLiteral("hash"),
                         QStringLiteral("set"), QStringLiteral("zset"), QStringLiteral("stream")})
                .contains(expected),
            qPrintable(QStringLiteral("key role \"%1\" names no type")
                           .arg(c.call.keyRoles.value(keyIndex))));
        lay(variantLayout(variant, target));
        const QList<RedisValue> before = state(c.call.keys);
        const ActionOutcome out = run(c.call);
        QVERIFY2(out.result == R::Refused, qPrintable(resultId(out.result) + ": " + out.message));
        const QString typeWord
            = variant == QLatin1String("zset") ? QStringLiteral("sorted set") : variant;
        QVERIFY2(
            out.message.startsWith(QStringLiteral("Refused: \"%1\"").arg(QString::fromUtf8(target)))
                && out.message.contains(QLatin1String(" is a ") + typeWord)
                && out.message.contains(QLatin1String("nothing was written")),
            qPrintable(out.message));
        QCOMPARE(state(c.call.keys), before);
    }

    // A call its pattern always refuses is refused with the pattern's reason
    // and sends nothing, whatever the keys hold.
    void alwaysRefusedSendNothing_data()
    {
        QTest::addColumn<int>("call");
        const QList<LibraryCall> all = libraryCalls(true);
        for (int c = 0; c < all.size(); ++c)
            QTest::newRow(qPrintable(all.at(c).name)) << c;
    }

    void alwaysRefusedSendNothing()
    {
        QFETCH(int, call);
        const LibraryCall c = libraryCalls(true).at(call);
        for (const QByteArray &k : c.call.keys)
            lay(variantLayout(QStringLiteral("hash"), k));
        const QList<RedisValue> before = state(c.call.keys);
        const qint64 scriptsBefore
            = test::commandStat(*m_client, "evalsha") + test::commandStat(*m_client, "eval");
        const ActionOutcome out = run(c.call);
        QVERIFY2(out.result == R::Refused && !out.forceable, qPrintable(out.message));
        QVERIFY2(out.message.contains(c.call.refusal), qPrintable(out.message));
        QCOMPARE(state(c.call.keys), before);
        // No script reached the server.
        QCOMPARE(test::commandStat(*m_client, "evalsha") + test::commandStat(*m_client, "eval"),
                 scriptsBefore);
    }

    // --force is the operator's way past the shape checks of deleting
    // actions: it deletes, and the audit log says it was forced.
    void forcedDeletesWhatItWasShown_data()
    {
        QTest::addColumn<int>("action");
        const QList<ActionCase> all = cases();
        for (int a = 0; a < all.size(); ++a) {
            if (all.at(a).makeCall().forceArg >= 0)
                QTest::newRow(qPrintable(all.at(a).name)) << a;
        }
    }

    void forcedDeletesWhatItWasShown()
    {
        QFETCH(int, action);
        const ActionCase c = cases().at(action);
        lay(variantLayout(QStringLiteral("list"), c.keys.first()));
        const ActionOutcome refused = run(c.makeCall());
        QCOMPARE(refused.result, R::Refused);
        QVERIFY(refused.forceable);
        QVERIFY(refused.message.contains(QLatin1String("forced")));
        const ActionOutcome forced = run(c.makeCall().forced());
        QVERIFY2(forced.result == R::Done, qPrintable(forced.message));
        QCOMPARE(call(*m_client, {"EXISTS", c.keys.first()}).toInteger(), 0);
    }

    // Every pattern whose actions an operator can run has rows in the matrix
    // (tests/patterns/<pattern>/<pattern>actions.cpp): a new pattern's
    // actions cannot go untested here by omission.
    void everyPatternWithActionsHasRows()
    {
        const QMap<QString, PatternActionRows> registered = test::registeredActionRows(s_server);
        QStringList missing;
        for (const PatternUnit *unit : PatternRegistry::instance().units()) {
            const QList<PatternAction> actions = unit->actions();
            const bool runnable
                = std::any_of(actions.cbegin(), actions.cend(),
                              [](const PatternAction &a) { return !a.consoleOnly; });
            const auto rows = registered.constFind(unit->kind().id());
            if (runnable
                && (rows == registered.cend()
                    || (rows->cases.isEmpty() && rows->conventionalKey.isEmpty())))
                missing << unit->kind().id();
        }
        QVERIFY2(missing.isEmpty(),
                 qPrintable(QStringLiteral("patterns with actions and no rows in the matrix: %1 "
                                           "(add tests/patterns/<pattern>/<pattern>actions.cpp "
                                           "with an ActionRowsRegistrar)")
                                .arg(missing.join(QLatin1String(", ")))));
        for (auto it = registered.cbegin(); it != registered.cend(); ++it)
            QVERIFY2(PatternRegistry::instance().find(it.key()),
                     qPrintable(it.key() + QLatin1String(" is registered by no unit")));
    }

    // A value a script reports back is cut: a 100 MB "lock" answers in bytes.
    void repliesAreBounded()
    {
        QByteArray big(100 * 1024 * 1024, 'x');
        QCOMPARE(call(*m_client, {"SET", "lock:big", big}), RedisValue::status("OK"));
        big.clear();
        PatternObject lock;
        lock.kind = PatternKind("lock");
        lock.key = "lock:big";
        for (const ScriptCall &sc :
             {LockUnit::forceRelease(lock, "wrong"), LockUnit::extend(lock, "wrong", 1000)}) {
            const ActionOutcome out = run(sc);
            QCOMPARE(out.result, R::NothingDone);
            QCOMPARE(out.reply.at(0).bytes().size(), qsizetype(ScriptCall::ReplyCutBytes));
            QCOMPARE(out.reply.at(1).toInteger(), 100 * 1024 * 1024);
            QVERIFY(out.message.contains(QLatin1String("104857600 bytes")));
        }
        QCOMPARE(call(*m_client, {"STRLEN", "lock:big"}).toInteger(), 100 * 1024 * 1024);

        // Requeued jobs come back cut too.
        const QByteArray job(4096, 'j');
        lay({{"RPUSH", "q:processing", job}, {"ZADD", "q:claims", "1", job}});
        PatternObject queue;
        queue.kind = PatternKind("reliable-queue");
        queue.key = "q";
        queue.related = {"q:processing", "q:claims", "q:dead"};
        const ActionOutcome out = run(ReliableQueueUnit::requeueStuck(queue, 0, 10));
        QCOMPARE(out.result, R::Done);
        QCOMPARE(out.reply.at(2).at(0).bytes().size(), qsizetype(ScriptCall::ReplyCutBytes));
        QCOMPARE(call(*m_client, {"LINDEX", "q", "0"}).bytes(), job); // the whole job moved
        QCOMPARE(call(*m_client, {"EXISTS", "q:claims"}).toInteger(), 0);
    }
};

QTEST_GUILESS_MAIN(tst_ActionMatrix)
#include "tst_actionmatrix.moc"
