// SPDX-License-Identifier: MIT
#include "simulator.h"

#include <patterns/patternregistry.h>
#include <redis/redisclient.h>
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

const RedisScript &script(const QString &name)
{
    static QHash<QString, RedisScript> s_cache;
    auto it = s_cache.find(name);
    if (it == s_cache.end())
        it = s_cache.insert(name, RedisScript::fromResource(name));
    return *it;
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
{
    for (const PatternUnit *unit : PatternRegistry::instance().units()) {
        const QString id = unit->kind().id();
        if (std::unique_ptr<DemoTraffic> demo = unit->demoTraffic(seedFor(m_options.seed, id)))
            m_demos.emplace_back(id, std::move(demo));
    }
    m_options.scale = std::max(1, m_options.scale);
    m_timer.setInterval(m_options.tickMs);
    connect(&m_timer, &QTimer::timeout, this, &Simulator::onTick);
}

Simulator::~Simulator() = default;

QList<QByteArray> Simulator::instanceKeys(const QString &pattern) const
{
    QList<QByteArray> keys;
    for (const auto &[id, demo] : m_demos) {
        if (id != pattern)
            continue;
        for (const DemoTraffic::Instance &instance : demo->instances(*this))
            keys.append(instance.key);
    }
    return keys;
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

void Simulator::sendCommand(QList<QByteArray> command,
                            std::function<void(const RedisValue &)> onReply)
{
    ++m_outstanding;
    ++m_commands;
    m_client->command(std::move(command), this,
                      [this, onReply = std::move(onReply)](const RedisValue &v) {
                          --m_outstanding;
                          noteReply(v);
                          if (onReply)
                              onReply(v);
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
    for (auto &[id, demo] : m_demos)
        demo->tick(*this);
}

void Simulator::census()
{
    // Every object the run may have made, with the keys whose existence means
    // it is there; one pipelined EXISTS each.
    struct Candidate
    {
        QString pattern;
        QByteArray key;
        QList<QByteArray> keys;
    };
    QList<Candidate> candidates;
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
    auto families = std::make_shared<QList<std::pair<QString, QByteArray>>>();
    for (const auto &[id, demo] : m_demos) {
        for (const QByteArray &f : demo->families(*this))
            families->append({id, f});
    }
    auto result = std::make_shared<SimulatorCensus>();
    result->commands = m_commands;
    m_client->pipeline(
        cmds, this,
        [this, candidates, result,
         families = Families(std::move(families))](const QList<RedisValue> &replies) {
            for (qsizetype i = 0; i < replies.size() && i < candidates.size(); ++i) {
                noteReply(replies.at(i));
                if (replies.at(i).toInteger() > 0)
                    result->objects[candidates.at(i).pattern].append(candidates.at(i).key);
            }
            countFamilies(families, 0, 0, "0", result);
        });
}

void Simulator::countFamilies(const Families &families, int family, int node,
                              const QByteArray &cursor, std::shared_ptr<SimulatorCensus> result)
{
    result->failedCommands = m_failedCommands;
    result->firstError = m_firstError;
    // Families (token prefixes): live members counted with a cursor-bounded
    // SCAN each; one with members is an object of its pattern.
    if (family >= families->size()) {
        for (const auto &[id, f] : *families) {
            if (result->tokenCounts.value(QString::fromUtf8(f)) > 0)
                result->objects[id].append(f);
        }
        Q_EMIT finished(*result);
        return;
    }
    const QByteArray f = families->at(family).second;
    const QByteArray match = f + '*';
    // A Cluster: SCAN is per node, so the census scans every master in turn.
    const auto onPage = [this, families, family, node, result, f](const RedisValue &v) {
        const bool lastNode = node + 1 >= m_scanNodes.size();
        if (v.isError() || v.size() != 2) {
            if (m_scanNodes.isEmpty()) {
                Q_EMIT failed(v.errorMessage());
                Q_EMIT finished(*result);
                return;
            }
            noteReply(v.isError() ? v : RedisValue::error("ERR SCAN gave no page"));
            if (lastNode)
                countFamilies(families, family + 1, 0, "0", result);
            else
                countFamilies(families, family, node + 1, "0", result);
            return;
        }
        result->tokenCounts[QString::fromUtf8(f)] += v.at(1).size();
        const QByteArray next = v.at(0).bytes();
        if (next != "0")
            countFamilies(families, family, node, next, result);
        else if (!lastNode)
            countFamilies(families, family, node + 1, "0", result);
        else
            countFamilies(families, family + 1, 0, "0", result);
    };
    const QList<QByteArray> scan{"SCAN", cursor, "MATCH", match, "COUNT", "1000"};
    if (m_scanNodes.isEmpty())
        m_client->command(scan, this, onPage);
    else
        m_client->commandOn(m_scanNodes.at(node), scan, this, onPage);
}

} // namespace gatehouse
