// SPDX-License-Identifier: MIT
// The adversarial action matrix: every operator action, for every key it
// touches, with that key missing, of each other type, or of the right type
// with unexpected content, run through the real ActionEngine against a real
// redis-server. The invariant a user relies on: every job, token and lock is
// where it was or exactly where the reply says it went; nothing disappears,
// nothing doubles; a refusal writes nothing and names the key and its type.
#include <actions/actionengine.h>
#include <patterns/asynq/asynqunit.h>
#include <patterns/bee-queue/beequeueunit.h>
#include <patterns/bull/bullunit.h>
#include <patterns/bullmq/bullmqunit.h>
#include <patterns/celery/celeryunit.h>
#include <patterns/dramatiq/dramatiqunit.h>
#include <patterns/laravel-horizon/laravelhorizonunit.h>
#include <patterns/laravel-queue/laravelqueueunit.h>
#include <patterns/limiters.h>
#include <patterns/lock/lockunit.h>
#include <patterns/python-limits/pythonlimitsunit.h>
#include <patterns/redis-semaphore/redissemaphoreunit.h>
#include <patterns/redisson-delayed-queue/redissondelayedqueueunit.h>
#include <patterns/redisson-lock/redissonlockunit.h>
#include <patterns/redisson-semaphore/redissonsemaphoreunit.h>
#include <patterns/reliable-queue/reliablequeueunit.h>
#include <patterns/resque/resqueunit.h>
#include <patterns/rq/rqunit.h>
#include <patterns/sidekiq/sidekiqunit.h>
#include <patterns/sorted-set-semaphore/semaphoreunit.h>
#include <patterns/stream-group/streamgroupunit.h>
#include <patterns/symfony-delayed/symfonydelayedunit.h>
#include <patterns/token-family/tokenfamilyunit.h>
#include <patterns/token-hash/tokenhashunit.h>
#include <redis/redisclient.h>
#include <redis/serverinfo.h>

#include "redisserver.h"

#include <QDateTime>
#include <QTemporaryDir>
#include <QTest>

#include <functional>

using namespace gatehouse;
using gatehouse::test::call;
using gatehouse::test::RedisServer;

namespace {

using Command = QList<QByteArray>;
using R = ActionOutcome::Result;

// One action of the matrix: the keys it touches with the commands that lay
// them out as the pattern keeps them, the call, and which types each key may
// have for the action to write (others must be refused).
struct ActionCase
{
    QString name;
    QList<QByteArray> keys;
    QList<QList<Command>> layout;     // per key: the right type, expected content
    QList<QList<Command>> unexpected; // per key: the right type, content it did not expect
    QList<QByteArray> accepted;       // per key: the type it must have (or be missing)
    std::function<ScriptCall()> makeCall;
    bool movesItems = false; // a queue action: list elements are conserved
};

// The server under test (INFO, at initTestCase): token fields are issued
// only where per-field expiry exists.
ServerIdentity s_server;

qint64 nowMs()
{
    return QDateTime::currentMSecsSinceEpoch();
}

QByteArray num(qint64 v)
{
    return QByteArray::number(v);
}

PatternObject queueObject()
{
    PatternObject o;
    o.kind = PatternKind("reliable-queue");
    o.key = "q";
    o.related = {"q:processing", "q:claims", "q:dead"};
    return o;
}

QList<ActionCase> cases()
{
    const QByteArray past = num(nowMs() - 600000);
    const QList<Command> queue{{"RPUSH", "q", "waiting-1", "waiting-2"}};
    const QList<Command> processing{{"RPUSH", "q:processing", "jobA", "jobB"}};
    const QList<Command> processingWithout{{"RPUSH", "q:processing", "jobB", "jobC"}};
    const QList<Command> claims{{"ZADD", "q:claims", past, "jobA", past, "jobB"}};
    const QList<Command> claimsOther{{"ZADD", "q:claims", "1", "someone-else"}};
    const QList<Command> dead{{"RPUSH", "q:dead", "dead-1"}};
    const QList<Command> lists{{"RPUSH", "UNUSED", "x"}};

    QList<ActionCase> all;
    all.append({QStringLiteral("queue.requeue"),
                {"q", "q:processing", "q:claims"},
                {queue, processing, claims},
                {{{"RPUSH", "q", "jobA"}}, processingWithout, claimsOther},
                {"list", "list", "zset"},
                [] { return ReliableQueueUnit::requeue(queueObject(), "jobA"); },
                true});
    all.append({QStringLiteral("queue.dead-letter"),
                {"q:processing", "q:dead", "q:claims"},
                {processing, dead, claims},
                {processingWithout, {{"RPUSH", "q:dead", "jobA"}}, claimsOther},
                {"list", "list", "zset"},
                [] { return ReliableQueueUnit::deadLetter(queueObject(), "jobA"); },
                true});
    all.append({QStringLiteral("queue.requeue-stuck"),
                {"q", "q:processing", "q:claims"},
                {queue, processing, claims},
                {{{"RPUSH", "q", "jobA"}}, processingWithout, claimsOther},
                {"list", "list", "zset"},
                [] { return ReliableQueueUnit::requeueStuck(queueObject(), 1000, 100); },
                true});

    PatternObject lock;
    lock.kind = PatternKind("lock");
    lock.key = "lock:x";
    all.append({QStringLiteral("lock.force-release"),
                {"lock:x"},
                {{{"SET", "lock:x", "tok-5f2a9c", "PX", "60000"}}},
                {{{"SET", "lock:x", "tok-someone-else", "PX", "60000"}}},
                {"string"},
                [lock] {
                    return LockUnit::forceRelease(lock, "tok-5f2a9c");
                }});
    all.append({QStringLiteral("lock.extend"),
                {"lock:x"},
                {{{"SET", "lock:x", "tok-5f2a9c", "PX", "60000"}}},
                {{{"SET", "lock:x", "tok-someone-else", "PX", "60000"}}},
                {"string"},
                [lock] {
                    return LockUnit::extend(lock, "tok-5f2a9c", 90000);
                }});
    all.append({QStringLiteral("token.revoke"),
                {"code:7f3a9b2c"},
                {{{"SET", "code:7f3a9b2c", "{\"user\":1}", "EX", "600"}}},
                {{{"HSET", "code:7f3a9b2c", "used_by", "0"}}},
                {"string"}, // or hash (seed 002): both are tokens; see below
                [] {
                    return TokenFamilyUnit::revoke("code:7f3a9b2c", {"code:"});
                }});

    all.append({QStringLiteral("token.revoke-field"),
                {"otp:pending"},
                {{{"HSET", "otp:pending", "tok-5f2a9c", "user:1"}}},
                {{{"HSET", "otp:pending", "tok-other", "user:2"}}},
                {"hash"},
                [] {
                    return TokenHashUnit::revoke("otp:pending", "tok-5f2a9c");
                }});
    if (s_server.has(ServerIdentity::Capability::HashFieldExpiry))
        all.append({QStringLiteral("token.issue-field"),
                    {"otp:pending"},
                    {{{"HSET", "otp:pending", "tok-other", "user:2"}}},
                    {{{"HSET", "otp:pending", "tok-5f2a9c", "user:1"}}}, // a collision
                    {"hash"},
                    [] {
                        return TokenHashUnit::issue("otp:pending", "tok-5f2a9c", "user:3", 90000,
                                                    s_server);
                    }});

    PatternObject window;
    window.kind = PatternKind("sliding-window");
    window.key = "rl:api";
    window.related = {"rl:api:retry"};
    const QByteArray t = num(nowMs());
    all.append({QStringLiteral("limiter.reset sliding"),
                {"rl:api", "rl:api:retry"},
                {{{"ZADD", "rl:api", t, t + "-1", t, t + "-2"}},
                 {{"ZADD", "rl:api:retry", num(nowMs() + 5000), num(nowMs() + 5000)}}},
                {{{"ZADD", "rl:api", "1", "alice", "2", "bob"}}, // a leaderboard
                 {{"ZADD", "rl:api:retry", "3", "x"}}},
                {"zset", "zset"},
                [window] {
                    return limiterReset(window);
                }});
    PatternObject counter;
    counter.kind = PatternKind("fixed-window");
    counter.key = "rl:fixed";
    all.append({QStringLiteral("limiter.reset fixed"),
                {"rl:fixed"},
                {{{"SET", "rl:fixed", "7", "PX", "60000"}}},
                {{{"SET", "rl:fixed", "<html>cached page</html>", "PX", "60000"}}},
                {"string"},
                [counter] {
                    return limiterReset(counter);
                }});

    // A semaphore holder released only if it still holds the slot shown
    // (its score); another holder is there throughout. "zset" (the holder
    // gone, the other still holding) and "missing" find nothing to do.
    PatternObject semaphore;
    semaphore.kind = PatternKind("sorted-set-semaphore");
    semaphore.key = "sem:pool";
    const qint64 acquired = nowMs() - 5000;
    all.append({QStringLiteral("semaphore.release"),
                {"sem:pool"},
                {{{"ZADD", "sem:pool", num(acquired), "worker-7", num(acquired + 10), "worker-9"}}},
                {{{"ZADD", "sem:pool", num(acquired + 3000), "worker-7", num(acquired + 10),
                   "worker-9"}}}, // worker-7 released and acquired again
                {"zset"},
                [semaphore, acquired] {
                    return SemaphoreUnit::release(semaphore, "worker-7", acquired);
                }});

    // Python limits (limits 2.8): a fixed-window counter and a moving window
    // (hit times in epoch seconds), each deleted only while it holds what
    // the library writes, with its TTL.
    PatternObject limitsCounter;
    limitsCounter.kind = PythonLimitsUnit::Kind;
    limitsCounter.key = "LIMITER/api/alice/10/1/minute";
    all.append({QStringLiteral("limiter.reset limits fixed"),
                {limitsCounter.key},
                {{{"SET", limitsCounter.key, "4", "EX", "60"}}},
                {{{"SET", limitsCounter.key, "<html>cached page</html>", "EX", "60"}}},
                {"string"},
                [limitsCounter] {
                    return PythonLimitsUnit::resetCall(limitsCounter, "string");
                }});
    PatternObject movingWindow;
    movingWindow.kind = PythonLimitsUnit::Kind;
    movingWindow.key = "LIMITER/api/bob/5/1/minute";
    const QByteArray hitAt = QByteArray::number(double(nowMs()) / 1000.0, 'f', 6);
    all.append({QStringLiteral("limiter.reset limits moving"),
                {movingWindow.key},
                {{{"LPUSH", movingWindow.key, hitAt, hitAt}, {"EXPIRE", movingWindow.key, "60"}}},
                {{{"LPUSH", movingWindow.key, "jobA", "jobB"}, {"EXPIRE", movingWindow.key, "60"}}},
                {"list"},
                [movingWindow] {
                    return PythonLimitsUnit::resetCall(movingWindow, "list");
                }});

    // A redis-semaphore MultiSemaphore holder (two permits) released only
    // while it holds both with the acquire time shown; a Semaphore holder is
    // there throughout. "unexpected": it refreshed since (a newer score).
    PatternObject libSemaphore;
    libSemaphore.kind = RedisSemaphoreUnit::Kind;
    libSemaphore.key = "semaphore:jobs";
    const QByteArray holder = "0b6c59a4-7f7e-4b5e-9d0e-3c1f2a4b5c6d";
    const QByteArray other = "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d";
    all.append({QStringLiteral("redis-semaphore.release"),
                {libSemaphore.key},
                {{{"ZADD", libSemaphore.key, num(acquired), holder + "_0", num(acquired),
                   holder + "_1", num(acquired + 10), other},
                  {"PEXPIRE", libSemaphore.key, "60000"}}},
                {{{"ZADD", libSemaphore.key, num(acquired + 3000), holder + "_0",
                   num(acquired + 3000), holder + "_1", num(acquired + 10), other},
                  {"PEXPIRE", libSemaphore.key, "60000"}}},
                {"zset"},
                [libSemaphore, holder, acquired] {
                    ActionRequest request;
                    request.object = libSemaphore;
                    request.target = libSemaphore.key;
                    request.inputs = {{QStringLiteral("holder"), holder},
                                      {QStringLiteral("score"), num(acquired)}};
                    return RedisSemaphoreUnit().actions().first().build(request);
                }});

    // A stream's pending entry dead-lettered: copied with its id, then acked,
    // only while it is pending in the group. "unexpected": the group never
    // read it (not pending); a stream without the group ("stream") or none
    // ("missing") finds nothing to do.
    PatternObject stream = StreamGroupUnit().conventionalObject("s");
    const QList<Command> pendingEntry{
        {"XADD", "s", "1-1", "job", "jobA"},
        {"XGROUP", "CREATE", "s", "g", "0"},
        {"XREADGROUP", "GROUP", "g", "c", "COUNT", "1", "STREAMS", "s", ">"}};
    all.append({QStringLiteral("queue.dead-letter stream"),
                {"s", "s:dead"},
                {pendingEntry, {{"XADD", "s:dead", "1-0", "job", "old"}}},
                {{{"XADD", "s", "1-1", "job", "jobA"}, {"XGROUP", "CREATE", "s", "g", "0"}},
                 {{"XADD", "s:dead", "1-0", "other", "x"}}},
                {"stream", "stream"},
                [stream] {
                    return StreamGroupUnit::deadLetter(stream, "g", "1-1");
                }});
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

// Every script call the job-library units' actions build (lua/bullmq, bull,
// sidekiq, celery, rq, bee-queue, resque): each action with each way of asking it (one job,
// --stuck, --all, clean, pause), on a queue named by its conventional key.
struct LibraryCall
{
    QString name;
    ScriptCall call;
};

QList<LibraryCall> libraryCalls()
{
    const QList<std::pair<PatternKind, QByteArray>> queues{
        {BullMqUnit::Kind, "bull:q"},           {BullUnit::Kind, "bull:q"},
        {SidekiqUnit::Kind, "queues"},          {CeleryUnit::Kind, "celery"},
        {RqUnit::Kind, "rq:queue:q"},           {RedissonLockUnit::Kind, "rlock"},
        {RedissonSemaphoreUnit::Kind, "rsem"},  {RedissonDelayedQueueUnit::Kind, "rdq"},
        {StreamGroupUnit::Kind, "s"},           {AsynqUnit::Kind, "asynq:{q}:pending"},
        {DramatiqUnit::Kind, "dramatiq:q"},     {BeeQueueUnit::Kind, "bq:q"},
        {ResqueUnit::Kind, "resque:queues"},    {LaravelQueueUnit::Kind, "queues:q"},
        {SymfonyDelayedUnit::Kind, "s__queue"}, {LaravelHorizonUnit::Kind, "h:"}};
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
                if (!call.isValid() || seen.contains(shape))
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

    // Every element of every list among keys, sorted: queue actions only move.
    QList<QByteArray> listItems(const QList<QByteArray> &keys)
    {
        QList<QByteArray> items;
        for (const QByteArray &k : keys) {
            if (call(*m_client, {"TYPE", k}).bytes() != "list")
                continue;
            const RedisValue range = call(*m_client, {"LRANGE", k, "0", "-1"});
            for (const RedisValue &v : range.elements())
                items << v.bytes();
        }
        std::sort(items.begin(), items.end());
        return items;
    }

    int count(const QByteArray &key, const QByteArray &item)
    {
        if (call(*m_client, {"TYPE", key}).bytes() != "list")
            return 0;
        int n = 0;
        const RedisValue range = call(*m_client, {"LRANGE", key, "0", "-1"});
        for (const RedisValue &v : range.elements())
            n += v.bytes() == item ? 1 : 0;
        return n;
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
        const bool tokenHash = c.name == QLatin1String("token.revoke") && type == "hash";
        const bool wrongType = type != "none" && type != c.accepted.at(keyIndex) && !tokenHash;

        const QList<RedisValue> before = state(c.keys);
        const QList<QByteArray> itemsBefore = listItems(c.keys);
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
        if (out.result != R::Done) {
            QCOMPARE(state(c.keys), before); // refused or nothing to do: nothing written
            if (c.name == QLatin1String("semaphore.release") && !wrongType) {
                QCOMPARE(out.result, R::NothingDone);
                QVERIFY2(out.message.contains(QLatin1String("\"sem:pool\"")),
                         qPrintable(out.message));
            }
            if (c.name == QLatin1String("semaphore.release")
                && variant == QLatin1String("unexpected"))
                QVERIFY2(out.message.contains(QLatin1String("not the one shown")),
                         qPrintable(out.message));
            return;
        }
        QVERIFY2(!wrongType, qPrintable(out.message));
        if (c.movesItems) {
            // Done: every job is where it was or where the reply says it went.
            QCOMPARE(listItems(c.keys), itemsBefore);
            const QByteArray from = "q:processing";
            const QByteArray to = c.name == QLatin1String("queue.dead-letter") ? "q:dead" : "q";
            const QList<QByteArray> moved
                = c.name == QLatin1String("queue.requeue-stuck")
                      ? [&] {
                            QList<QByteArray> jobs;
                            for (const RedisValue &j : out.reply.at(2).elements())
                                jobs << j.bytes();
                            return jobs;
                        }()
                      : QList<QByteArray>{"jobA"};
            QCOMPARE(count(from, "jobA") + count(to, "jobA"),
                     int(itemsBefore.count("jobA"))); // moved, not copied or lost
            for (const QByteArray &job : moved) {
                QVERIFY(count(to, job) >= 1);
                QVERIFY(call(*m_client, {"ZSCORE", "q:claims", job}).isNil());
            }
            if (moved.isEmpty()) // requeue-stuck dropped claims of jobs no longer in flight
                QVERIFY(out.message.contains(QLatin1String("claim")));
            return;
        }
        if (c.name == QLatin1String("token.issue-field")) {
            const RedisValue ttl = call(*m_client, {"HPTTL", target, "FIELDS", "1", "tok-5f2a9c"});
            QVERIFY2(ttl.at(0).toInteger() > 60000, qPrintable(ttl.at(0).errorMessage()));
            QCOMPARE(call(*m_client, {"HGET", target, "tok-5f2a9c"}).bytes(), QByteArray("user:3"));
            return;
        }
        if (c.name == QLatin1String("lock.extend")) {
            QVERIFY(call(*m_client, {"PTTL", target}).toInteger() > 60000);
            return;
        }
        if (c.name == QLatin1String("semaphore.release")) {
            // Exactly the holder shown is gone; the other still holds its slot.
            QCOMPARE(variant, QStringLiteral("right"));
            QVERIFY(call(*m_client, {"ZSCORE", target, "worker-7"}).isNil());
            QCOMPARE(call(*m_client, {"ZRANGE", target, "0", "-1"}),
                     RedisValue::array({RedisValue::bulk("worker-9")}));
            return;
        }
        if (c.name == QLatin1String("redis-semaphore.release")) {
            // Both permits of the holder shown are gone; the other holder stays.
            QCOMPARE(variant, QStringLiteral("right"));
            QCOMPARE(call(*m_client, {"ZRANGE", target, "0", "-1"}),
                     RedisValue::array({RedisValue::bulk("9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d")}));
            return;
        }
        if (c.name == QLatin1String("queue.dead-letter stream")) {
            // Copied once, with its id, and acked; the entry stays in the stream.
            const RedisValue dead = call(*m_client, {"XRANGE", "s:dead", "-", "+"});
            int copies = 0;
            for (const RedisValue &e : dead.elements())
                copies += e.at(1).elements().contains(RedisValue::bulk("1-1")) ? 1 : 0;
            QCOMPARE(copies, 1);
            QCOMPARE(call(*m_client, {"XPENDING", "s", "g"}).at(0).toInteger(), 0);
            QCOMPARE(call(*m_client, {"XLEN", "s"}).toInteger(), 1);
            return;
        }
        // Deleting actions delete exactly their keys, of the right type.
        for (const QByteArray &k : c.keys)
            QCOMPARE(call(*m_client, {"EXISTS", k}).toInteger(), 0);
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
        const ActionOutcome out = run(ReliableQueueUnit::requeueStuck(queueObject(), 0, 10));
        QCOMPARE(out.result, R::Done);
        QCOMPARE(out.reply.at(2).at(0).bytes().size(), qsizetype(ScriptCall::ReplyCutBytes));
        QCOMPARE(call(*m_client, {"LINDEX", "q", "0"}).bytes(), job); // the whole job moved
        QCOMPARE(call(*m_client, {"EXISTS", "q:claims"}).toInteger(), 0);
    }
};

QTEST_GUILESS_MAIN(tst_ActionMatrix)
#include "tst_actionmatrix.moc"
