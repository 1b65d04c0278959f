// SPDX-License-Identifier: MIT
#include "sentinelwatch.h"

#include "redisconnection.h"
#include "userinput.h"

namespace gatehouse {

namespace {

QHash<QByteArray, QByteArray> fields(const RedisValue &v)
{
    QHash<QByteArray, QByteArray> map;
    for (qsizetype i = 0; i + 1 < v.size(); i += 2)
        map.insert(v.at(i).bytes(), v.at(i + 1).bytes());
    return map;
}

QString hostPort(const QByteArray &host, const QByteArray &port)
{
    const QString h = QString::fromUtf8(host);
    return h.contains(QLatin1Char(':')) ? QStringLiteral("[%1]:%2").arg(h, QString::fromUtf8(port))
                                        : QStringLiteral("%1:%2").arg(h, QString::fromUtf8(port));
}

// The sentinels' flags ("slave,s_down,disconnected") as a health word.
QString healthOf(const QByteArray &flags, const QByteArray &linkStatus)
{
    const QList<QByteArray> f = flags.split(',');
    if (f.contains("o_down") || f.contains("s_down"))
        return QStringLiteral("down");
    if (f.contains("disconnected"))
        return QStringLiteral("disconnected");
    if (f.contains("failover_in_progress") || f.contains("promoted"))
        return QStringLiteral("failing over");
    if (!linkStatus.isEmpty() && linkStatus != "ok")
        return QStringLiteral("link down");
    return QStringLiteral("online");
}

} // namespace

SentinelWatch::SentinelWatch(RedisEndpoint endpoint, QObject *parent)
    : QObject(parent)
    , m_endpoint(std::move(endpoint))
{
    m_timer.setInterval(RefreshMs);
    connect(&m_timer, &QTimer::timeout, this, &SentinelWatch::refresh);
}

SentinelWatch::~SentinelWatch()
{
    m_closing = true;
    qDeleteAll(m_commands);
    qDeleteAll(m_subscribers);
}

void SentinelWatch::start()
{
    if (!m_commands.isEmpty())
        return;
    for (qsizetype i = 0; i < m_endpoint.sentinels.size(); ++i) {
        RedisEndpoint ep = m_endpoint.sentinelEndpoint(i);
        ep.connectTimeoutMs = std::min(ep.connectTimeoutMs, 2000);
        auto *command = new RedisConnection(ep, this);
        m_commands.append(command);
        command->open();
        auto *subscriber = new RedisConnection(ep, this);
        subscriber->setMode(RedisConnection::Mode::Subscriber);
        connect(subscriber, &RedisConnection::ready, this, [subscriber] {
            subscriber->sendPush({"SUBSCRIBE", "+switch-master"});
        });
        connect(subscriber, &RedisConnection::pushReceived, this, &SentinelWatch::onPush);
        m_subscribers.append(subscriber);
        subscriber->open();
    }
    m_timer.start();
}

void SentinelWatch::stop()
{
    m_closing = true;
    m_timer.stop();
    for (RedisConnection *c : std::as_const(m_commands))
        c->close();
    for (RedisConnection *c : std::as_const(m_subscribers))
        c->close();
}

void SentinelWatch::refresh()
{
    if (m_inFlight || m_closing)
        return;
    start();
    m_inFlight = true;
    // A Ready sentinel first; the others in order after it.
    qsizetype first = 0;
    for (qsizetype i = 0; i < m_commands.size(); ++i) {
        if (m_commands.at(i)->state() == RedisConnection::State::Ready) {
            first = i;
            break;
        }
    }
    ask(first, {});
}

void SentinelWatch::ask(qsizetype i, QStringList problems)
{
    if (m_closing)
        return;
    if (problems.size() >= m_commands.size()) {
        m_inFlight = false;
        Q_EMIT readFailed(QStringLiteral("No sentinel described master \"%1\": %2")
                              .arg(echoed(m_endpoint.sentinelMaster), joinClauses(problems)));
        return;
    }
    RedisConnection *c = m_commands.at(i % m_commands.size());
    const QByteArray name = m_endpoint.sentinelMaster.toUtf8();
    c->sendBatch({{"SENTINEL", "MASTER", name}, {"SENTINEL", "REPLICAS", name}},
                 [this, i, problems, c](QList<RedisValue> replies) mutable {
                     if (m_closing)
                         return;
                     const auto topology = replies.size() == 2 && !replies.at(0).isError()
                                               ? fromSentinelReplies(replies.at(0), replies.at(1))
                                               : std::nullopt;
                     if (!topology) {
                         const RedisValue &r = replies.value(0);
                         problems << (r.isFailed()
                                          ? r.errorMessage()
                                          : QStringLiteral("sentinel %1: %2")
                                                .arg(echoed(c->endpoint().address()),
                                                     r.isError()
                                                         ? r.errorMessage()
                                                         : QStringLiteral("no such master")));
                         ask(i + 1, problems);
                         return;
                     }
                     m_inFlight = false;
                     Q_EMIT topologyRead(*topology);
                 });
    c->flush();
}

void SentinelWatch::onPush(const RedisValue &push)
{
    // ["message", "+switch-master", "<name> <old-ip> <old-port> <new-ip> <new-port>"]
    if (!push.isArray() || push.size() < 3 || push.at(0).bytes() != "message")
        return;
    const QList<QByteArray> parts = push.at(2).bytes().split(' ');
    if (parts.size() < 5 || parts.at(0) != m_endpoint.sentinelMaster.toUtf8())
        return;
    Q_EMIT switchMaster(hostPort(parts.at(1), parts.at(2)), hostPort(parts.at(3), parts.at(4)));
}

std::optional<Topology> SentinelWatch::fromSentinelReplies(const RedisValue &masterReply,
                                                           const RedisValue &replicasReply)
{
    if (!masterReply.isArray() || masterReply.size() < 4)
        return std::nullopt;
    const auto m = fields(masterReply);
    Topology t;
    t.mode = Topology::Mode::Sentinel;
    TopologyNode master;
    if (!Topology::splitAddress(hostPort(m.value("ip"), m.value("port")), &master.host,
                                &master.port))
        return std::nullopt;
    master.id = m.value("runid");
    master.role = QStringLiteral("master");
    master.health = healthOf(m.value("flags"), {});
    t.nodes.append(master);
    for (const RedisValue &r : replicasReply.elements()) {
        const auto f = fields(r);
        TopologyNode node;
        if (!Topology::splitAddress(hostPort(f.value("ip"), f.value("port")), &node.host,
                                    &node.port))
            continue;
        node.id = f.value("runid");
        node.role = QStringLiteral("replica");
        if (hostPort(f.value("master-host"), f.value("master-port")) == master.address())
            node.masterId = master.id;
        node.health = healthOf(f.value("flags"), f.value("master-link-status"));
        bool ok = false;
        if (const qint64 offset = f.value("slave-repl-offset").toLongLong(&ok); ok)
            node.replicationOffset = offset;
        t.nodes.append(node);
    }
    return t;
}

} // namespace gatehouse
