// SPDX-License-Identifier: MIT
#include "simulator.h"

#include <patterns/patternregistry.h>
#include <redis/redisscript.h>

#include <QDateTime>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cmath>
#include <utility>

namespace gatehouse {

namespace {

// Windows and TTLs are long enough that what the simulator made is still
// there for a while after it stops (tests discover it then).
constexpr int s_windowLimit = 20;
constexpr qint64 s_windowMs = 10000;
constexpr double s_windowRates[] = {1.0, 1.8, 4.0, 12.0}; // per s: below, near, above, far above
constexpr int s_resourceLimit = 30;
constexpr int s_consumerLimit = 12;
constexpr double s_consumerRates[] = {0.5, 1.5, 3.0};
constexpr int s_counterLimit = 50;
constexpr qint64 s_counterWindowMs = 30000;
constexpr double s_counterRates[] = {1.0, 2.5};
constexpr int s_redissonRate = 10;
constexpr qint64 s_redissonIntervalMs = 20000;
constexpr qint64 s_lockTtlMs = 20000;
constexpr qint64 s_tokenTtlS = 120;
const char *const s_queueNames[] = {"mail", "thumbnails", "billing", "search", "webhooks"};

const RedisScript &script(const QString &name)
{
    static QHash<QString, RedisScript> s_cache;
    auto it = s_cache.find(name);
    if (it == s_cache.end())
        it = s_cache.insert(name, RedisScript::fromResource(name));
    return *it;
}

QByteArray num(qint64 v)
{
    return QByteArray::number(v);
}

// A pattern's own random stream: the run's seed mixed with its id (FNV-1a).
quint32 seedFor(quint32 seed, const QString &pattern)
{
    quint32 h = 2166136261u;
    for (const char c : pattern.toUtf8())
        h = (h ^ quint8(c)) * 16777619u;
    return seed ^ h;
}

} // namespace

QByteArray SimulatorCensus::toJson() const
{
    QJsonObject patterns;
    for (auto it = objects.cbegin(); it != objects.cend(); ++it) {
        QJsonArray keys;
        for (const QByteArray &k : it.value())
            keys.append(QString::fromUtf8(k));
        patterns.insert(it.key(), QJsonObject{{QStringLiteral("count"), it.value().size()},
                                              {QStringLiteral("keys"), keys}});
    }
    QJsonObject failures{{QStringLiteral("count"), failedCommands}};
    if (!firstError.isEmpty())
        failures.insert(QStringLiteral("first"), firstError);
    QJsonObject tokens;
    for (auto it = tokenCounts.cbegin(); it != tokenCounts.cend(); ++it)
        tokens.insert(it.key(), it.value());
    return QJsonDocument(QJsonObject{{QStringLiteral("patterns"), patterns},
                                     {QStringLiteral("liveTokens"), tokens},
                                     {QStringLiteral("commands"), commands},
                                     {QStringLiteral("failed"), failures}})
        .toJson(QJsonDocument::Indented);
}

Simulator::Simulator(RedisClient *client, Options options, QObject *parent)
    : QObject(parent)
    , m_client(client)
    , m_options(std::move(options))
    , m_limiterRng(m_options.seed)
    , m_lockRng(m_options.seed ^ 0x10c4u)
    , m_tokenRng(m_options.seed ^ 0x70c3u)
    , m_queueRng(m_options.seed ^ 0x9e7eu)
{
    for (const PatternUnit *unit : PatternRegistry::instance().units()) {
        const QString id = unit->kind().id();
        if (std::unique_ptr<DemoTraffic> demo = unit->demoTraffic(seedFor(m_options.seed, id)))
            m_demos.emplace_back(id, std::move(demo));
    }
    m_options.scale = std::max(1, m_options.scale);
    m_timer.setInterval(m_options.tickMs);
    connect(&m_timer, &QTimer::timeout, this, &Simulator::onTick);
    m_locks.resize(3 * m_options.scale);
    m_firstClaimCrashes = QList<bool>(m_options.scale, true);
}

Simulator::~Simulator() = default;

QList<QByteArray> Simulator::slidingWindowKeys() const
{
    QList<QByteArray> keys;
    for (int i = 0; i < 4 * m_options.scale; ++i)
        keys.append(tagged(m_options.prefix + "rl:api:", num(i)));
    return keys;
}

QByteArray Simulator::tagged(const QByteArray &base, const QByteArray &id) const
{
    return m_options.hashTags ? QByteArray(base + '{' + id + '}') : QByteArray(base + id);
}

void Simulator::noteReply(const RedisValue &v)
{
    if (!v.isError())
        return;
    if (++m_failedCommands == 1)
        m_firstError = v.errorMessage();
}

void Simulator::start()
{
    const Topology &topology = m_client->topology();
    m_scanNodes.clear();
    if (topology.isCluster()) {
        m_options.hashTags = true;
        for (int i : topology.masters())
            m_scanNodes << topology.nodes.at(i).address();
    }
    m_stopping = false;
    m_timer.start();
    if (m_options.seconds > 0) {
        QTimer::singleShot(m_options.seconds * 1000, this, [this] {
            if (!m_stopping)
                stop();
        });
    }
}

void Simulator::stop()
{
    if (m_stopping)
        return;
    m_stopping = true;
    m_timer.stop();
    m_events.clear();
    const QByteArray &p = m_options.prefix;
    // Holders that did not crash release their locks on the way out.
    for (int i = 0; i < m_locks.size(); ++i) {
        LockState &lock = m_locks[i];
        if (lock.held && !lock.crashed) {
            send(QStringLiteral("lock_release"), {p + "lock:" + num(i)}, {lock.token});
            lock.held = false;
        }
    }
    for (auto &[id, demo] : m_demos)
        demo->stop(*this);
    census();
}

void Simulator::send(const QString &name, QList<QByteArray> keys, QList<QByteArray> args,
                     std::function<void(const RedisValue &)> onReply)
{
    ++m_outstanding;
    ++m_commands;
    m_client->script(script(name), std::move(keys), std::move(args), this,
                     [this, onReply = std::move(onReply)](const RedisValue &v) {
                         --m_outstanding;
                         noteReply(v);
                         // A Cluster with a node down still runs on the others:
                         // the failures are counted and reported at the end.
                         if (v.isFailed() && !m_stopping && m_scanNodes.isEmpty())
                             Q_EMIT failed(v.errorMessage());
                         if (onReply)
                             onReply(v);
                     });
}

void Simulator::sendCommands(QList<QList<QByteArray>> commands)
{
    ++m_outstanding;
    m_commands += commands.size();
    m_client->pipeline(std::move(commands), this, [this](const QList<RedisValue> &replies) {
        --m_outstanding;
        for (const RedisValue &v : replies)
            noteReply(v);
    });
}

void Simulator::schedule(qint64 afterTicks, std::function<void()> action)
{
    m_events.emplace(m_tick + std::max<qint64>(1, afterTicks), std::move(action));
}

void Simulator::onTick()
{
    if (m_client->state() != RedisConnection::State::Ready)
        return;
    // Backpressure: never pile bursts onto a server that has not answered.
    if (m_outstanding > 2000 * qint64(m_options.scale))
        return;
    ++m_tick;
    while (!m_events.empty() && m_events.begin()->first <= m_tick) {
        auto action = std::move(m_events.begin()->second);
        m_events.erase(m_events.begin());
        action();
    }
    tickLimiters();
    tickLocks();
    tickTokens();
    tickQueues();
    for (auto &[id, demo] : m_demos)
        demo->tick(*this);
}

void Simulator::tickLimiters()
{
    const int k = m_options.scale;
    const QByteArray &p = m_options.prefix;
    const double dt = m_options.tickMs / 1000.0;
    int slot = 0;
    // Requests due this tick for a client of the given rate (fractions carry).
    auto due = [&](double rate) {
        if (m_accumulators.size() <= slot)
            m_accumulators.resize(slot + 1, 0.0);
        double &acc = m_accumulators[slot++];
        acc += rate * m_options.rate * dt * (0.5 + uniform(m_limiterRng));
        // Every instance sees one request on the first tick, so each exists.
        const int n = m_tick == 1 ? std::max(1, int(acc)) : int(acc);
        acc = std::max(0.0, acc - n);
        return n;
    };

    for (int i = 0; i < 4 * k; ++i) {
        const QByteArray key = tagged(p + "rl:api:", num(i));
        for (int n = due(s_windowRates[i % 4]); n > 0; --n)
            send(QStringLiteral("sliding_window"), {key, key + ":retry"},
                 {num(s_windowLimit), num(s_windowMs), QByteArray(), "100"});
    }
    for (int r = 0; r < k; ++r) {
        const QByteArray resource = p + "z:rl:resource:" + num(r) + '{' + num(r) + '}';
        for (int c = 0; c < 3; ++c) {
            for (int n = due(s_consumerRates[c]); n > 0; --n)
                send(QStringLiteral("resource_consumer_window"),
                     {resource, resource + ":consumer:" + num(c)},
                     {num(s_resourceLimit), num(s_consumerLimit), num(s_windowMs), QByteArray()});
        }
    }
    for (int i = 0; i < 2 * k; ++i) {
        for (int n = due(s_counterRates[i % 2]); n > 0; --n)
            send(QStringLiteral("fixed_window"), {p + "throttle:user:" + num(i)},
                 {num(s_counterLimit), num(s_counterWindowMs)});
    }
    for (int i = 0; i < k; ++i) {
        const QByteArray name = p + "redisson:" + num(i);
        for (int n = due(0.8); n > 0; --n)
            send(QStringLiteral("sim_redisson_acquire"),
                 {name, '{' + name + "}:value", '{' + name + "}:permits"},
                 {num(s_redissonRate), num(s_redissonIntervalMs), "1",
                  QByteArray::number(uniform(m_limiterRng), 'f', 6)});
    }
}

void Simulator::tickLocks()
{
    const QByteArray &p = m_options.prefix;
    for (int i = 0; i < m_locks.size(); ++i) {
        // Decisions are drawn every tick for every lock, held or not.
        const bool attempt = uniform(m_lockRng) < 0.1 * m_options.rate || m_tick == 1;
        const QByteArray token = randomId(m_lockRng);
        // Lock 0's first holder always crashes, so a run always leaves one.
        const bool crash = uniform(m_lockRng) < 0.15 || (i == 0 && m_tick == 1);
        const qint64 hold = 3 + m_lockRng.bounded(18);
        if (m_locks.at(i).held || !attempt)
            continue;
        const QByteArray key = p + "lock:" + num(i);
        m_locks[i] = {token, true, crash};
        send(QStringLiteral("lock_acquire"), {key}, {token, num(s_lockTtlMs)},
             [this, i, key, token, crash, hold](const RedisValue &v) {
                 if (m_stopping)
                     return;
                 if (v.toInteger() != 1) { // someone (a crashed holder) still has it
                     m_locks[i].held = false;
                     return;
                 }
                 if (crash) { // never released: free again when the TTL runs out
                     schedule(ticksFor(s_lockTtlMs) + 1, [this, i] { m_locks[i].held = false; });
                     return;
                 }
                 schedule(hold, [this, i, key, token] {
                     m_locks[i].held = false;
                     send(QStringLiteral("lock_release"), {key}, {token});
                 });
             });
    }

    // Seed 004's SETNX locks: the value is the expiry in Unix seconds. The
    // first one's holder crashed long ago; the others renew every 5 s.
    if (m_tick == 1 || m_tick % ticksFor(5000) == 0) {
        const qint64 nowS = QDateTime::currentSecsSinceEpoch();
        QList<QList<QByteArray>> cmds;
        for (int i = 0; i < m_options.scale; ++i) {
            const QByteArray key = p + "lock.legacy:" + num(i);
            if (i == 0)
                cmds.append({"SETNX", key, num(nowS - 30)});
            else
                cmds.append({"SET", key, num(nowS + 30)});
        }
        sendCommands(cmds);
    }
}

void Simulator::tickTokens()
{
    const QByteArray &p = m_options.prefix;
    const int k = m_options.scale;
    for (int i = 0; i < k; ++i) {
        if (uniform(m_tokenRng) < 0.1 * m_options.rate || m_tick == 1) { // ~1/s per scale
            const QByteArray key = p + "code:" + randomId(m_tokenRng);
            const QByteArray value
                = "{\"user\":" + num(m_tokenRng.bounded(10000)) + ",\"scope\":\"login\"}";
            send(QStringLiteral("token_issue"), {key}, {value, num(s_tokenTtlS)});
            if (uniform(m_tokenRng) < 0.7) {
                schedule(10 + m_tokenRng.bounded(90),
                         [this, key] { send(QStringLiteral("token_consume"), {key}, {}); });
            }
        }
        if (uniform(m_tokenRng) < 0.05 * m_options.rate || m_tick == 1) {
            const QByteArray key = p + "user_token:" + randomId(m_tokenRng);
            sendCommands({{"MULTI"},
                          {"HSET", key, "used_by", "0", "user", num(m_tokenRng.bounded(10000))},
                          {"EXPIRE", key, num(s_tokenTtlS)},
                          {"EXEC"}});
            if (uniform(m_tokenRng) < 0.6) {
                const int uses = uniform(m_tokenRng) < 0.2 ? 2 : 1; // some try a second use
                schedule(10 + m_tokenRng.bounded(90), [this, key, uses] {
                    for (int u = 0; u < uses; ++u)
                        send(QStringLiteral("token_consume_counted"), {key}, {"used_by", "1"});
                });
            }
        }
    }
}

void Simulator::tickQueues()
{
    const QByteArray &p = m_options.prefix;
    const int k = m_options.scale;
    const double t = m_tick * m_options.tickMs / 1000.0;
    for (int i = 0; i < k; ++i) {
        const QByteArray name
            = tagged(p + "jobs:", s_queueNames[i % 5] + (i >= 5 ? num(i) : QByteArray()));
        const QByteArray processing = name + ":processing";
        const QByteArray claims = name + ":claims";
        // Producers: 2 jobs/s on average, in waves, so the length moves.
        const double rate = 2.0 + 1.5 * std::sin(t / 20.0 + i);
        const int produced
            = m_tick == 1 ? 5 : (uniform(m_queueRng) < rate * m_options.rate * 0.1 ? 1 : 0);
        for (int j = 0; j < produced; ++j) {
            const QByteArray job
                = "{\"id\":\"" + randomId(m_queueRng) + "\",\"q\":\"" + name + "\"}";
            sendCommands({{"LPUSH", name, job}});
        }
        // Two workers; each claims about once a second while idle.
        for (int w = 0; w < 2; ++w) {
            const bool claim = uniform(m_queueRng) < 0.1 * m_options.rate || m_tick == 2;
            const bool crash = uniform(m_queueRng) < 0.1;
            const qint64 work = 2 + m_queueRng.bounded(28);
            if (!claim)
                continue;
            send(QStringLiteral("queue_claim"), {name, processing, claims}, {QByteArray()},
                 [this, i, processing, claims, crash, work](const RedisValue &job) {
                     if (!job.isBulk() || m_stopping)
                         return; // empty queue
                     if (crash || std::exchange(m_firstClaimCrashes[i], false))
                         return; // the worker died holding the job: it stays stuck
                     schedule(work, [this, processing, claims, j = job.bytes()] {
                         send(QStringLiteral("queue_ack"), {processing, claims}, {j});
                     });
                 });
        }
    }
    // Queues written the old way: RPOPLPUSH, no claims set.
    for (int i = 0; i < (k + 1) / 2; ++i) {
        const QByteArray name = tagged(p + "legacyq:", num(i));
        const QByteArray processing = name + ":processing";
        if (uniform(m_queueRng) < 0.15 * m_options.rate || m_tick == 1)
            sendCommands({{"LPUSH", name, "job-" + randomId(m_queueRng)}});
        const bool claim = uniform(m_queueRng) < 0.12 * m_options.rate || m_tick == 2;
        const bool crash = uniform(m_queueRng) < 0.1 || m_tick == 2;
        const qint64 work = 2 + m_queueRng.bounded(20);
        if (claim) {
            ++m_outstanding;
            ++m_commands;
            m_client->command({"RPOPLPUSH", name, processing}, this,
                              [this, processing, crash, work](const RedisValue &job) {
                                  --m_outstanding;
                                  noteReply(job);
                                  if (!job.isBulk() || crash || m_stopping)
                                      return;
                                  schedule(work, [this, processing, j = job.bytes()] {
                                      sendCommands({{"LREM", processing, "1", j}});
                                  });
                              });
        }
    }
}

void Simulator::census()
{
    const QByteArray &p = m_options.prefix;
    const int k = m_options.scale;
    // Every object the run may have made, with the keys whose existence means
    // it is there; one pipelined EXISTS each.
    struct Candidate
    {
        QString pattern;
        QByteArray key;
        QList<QByteArray> keys;
    };
    QList<Candidate> candidates;
    for (int i = 0; i < 4 * k; ++i) {
        const QByteArray key = tagged(p + "rl:api:", num(i));
        candidates.append({QStringLiteral("sliding-window"), key, {key, key + ":retry"}});
    }
    for (int r = 0; r < k; ++r) {
        const QByteArray resource = p + "z:rl:resource:" + num(r) + '{' + num(r) + '}';
        candidates.append({QStringLiteral("resource-consumer"), resource, {resource}});
        for (int c = 0; c < 3; ++c) {
            const QByteArray consumer = resource + ":consumer:" + num(c);
            candidates.append({QStringLiteral("resource-consumer"), consumer, {consumer}});
        }
    }
    for (int i = 0; i < 2 * k; ++i) {
        const QByteArray key = p + "throttle:user:" + num(i);
        candidates.append({QStringLiteral("fixed-window"), key, {key}});
    }
    for (int i = 0; i < k; ++i) {
        const QByteArray key = p + "redisson:" + num(i);
        candidates.append({QStringLiteral("redisson-limiter"), key, {key}});
    }
    for (int i = 0; i < m_locks.size(); ++i) {
        const QByteArray key = p + "lock:" + num(i);
        candidates.append({QStringLiteral("lock"), key, {key}});
    }
    for (int i = 0; i < k; ++i) {
        const QByteArray key = p + "lock.legacy:" + num(i);
        candidates.append({QStringLiteral("legacy-lock"), key, {key}});
    }
    for (int i = 0; i < k; ++i) {
        const QByteArray name
            = tagged(p + "jobs:", s_queueNames[i % 5] + (i >= 5 ? num(i) : QByteArray()));
        candidates.append(
            {QStringLiteral("reliable-queue"), name, {name, name + ":processing", name + ":dead"}});
    }
    for (int i = 0; i < (k + 1) / 2; ++i) {
        const QByteArray name = tagged(p + "legacyq:", num(i));
        candidates.append({QStringLiteral("reliable-queue"), name, {name, name + ":processing"}});
    }
    for (const auto &[id, demo] : m_demos) {
        for (const DemoTraffic::Instance &instance : demo->instances(*this))
            candidates.append({id, instance.key, instance.keys});
    }
    QList<QList<QByteArray>> cmds;
    for (const Candidate &c : std::as_const(candidates)) {
        QList<QByteArray> cmd{"EXISTS"};
        cmd.append(c.keys);
        cmds.append(cmd);
    }
    auto result = std::make_shared<SimulatorCensus>();
    result->commands = m_commands;
    m_client->pipeline(cmds, this, [this, candidates, result](const QList<RedisValue> &replies) {
        for (qsizetype i = 0; i < replies.size() && i < candidates.size(); ++i) {
            noteReply(replies.at(i));
            if (replies.at(i).toInteger() > 0)
                result->objects[candidates.at(i).pattern].append(candidates.at(i).key);
        }
        countTokens(0, 0, "0", result);
    });
}

void Simulator::countTokens(int family, int node, const QByteArray &cursor,
                            std::shared_ptr<SimulatorCensus> result)
{
    result->failedCommands = m_failedCommands;
    result->firstError = m_firstError;
    // Token families: live members counted with a cursor-bounded SCAN each.
    const QList<QByteArray> families{m_options.prefix + "code:", m_options.prefix + "user_token:"};
    if (family >= families.size()) {
        for (const QByteArray &f : families) {
            if (result->tokenCounts.value(QString::fromUtf8(f)) > 0)
                result->objects[QStringLiteral("token-family")].append(f);
        }
        Q_EMIT finished(*result);
        return;
    }
    const QByteArray match = families.at(family) + '*';
    // A Cluster: SCAN is per node, so the census scans every master in turn.
    const auto onPage = [this, family, node, result, f = families.at(family)](const RedisValue &v) {
        const bool lastNode = node + 1 >= m_scanNodes.size();
        if (v.isError() || v.size() != 2) {
            if (m_scanNodes.isEmpty()) {
                Q_EMIT failed(v.errorMessage());
                Q_EMIT finished(*result);
                return;
            }
            noteReply(v.isError() ? v : RedisValue::error("ERR SCAN gave no page"));
            if (lastNode)
                countTokens(family + 1, 0, "0", result);
            else
                countTokens(family, node + 1, "0", result);
            return;
        }
        result->tokenCounts[QString::fromUtf8(f)] += v.at(1).size();
        const QByteArray next = v.at(0).bytes();
        if (next != "0")
            countTokens(family, node, next, result);
        else if (!lastNode)
            countTokens(family, node + 1, "0", result);
        else
            countTokens(family + 1, 0, "0", result);
    };
    const QList<QByteArray> scan{"SCAN", cursor, "MATCH", match, "COUNT", "1000"};
    if (m_scanNodes.isEmpty())
        m_client->command(scan, this, onPage);
    else
        m_client->commandOn(m_scanNodes.at(node), scan, this, onPage);
}

} // namespace gatehouse
