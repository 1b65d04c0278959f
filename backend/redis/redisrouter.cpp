// SPDX-License-Identifier: MIT
#include "redisrouter.h"

#include "redisscript.h"
#include "sentinelwatch.h"
#include "userinput.h"

#include <algorithm>

namespace gatehouse {

namespace {

constexpr int s_maxRedirects = 5;
constexpr int s_maxRetries = 6;
constexpr int s_backoffFirstMs = 50;

QByteArray upper(const QByteArray &word)
{
    return word.toUpper();
}

// "MOVED 3999 127.0.0.1:6381" -> slot and address.
bool parseRedirect(const RedisValue &reply, quint16 *slot, QString *address)
{
    const QList<QByteArray> parts = reply.bytes().split(' ');
    if (parts.size() < 3)
        return false;
    bool ok = false;
    const int s = parts.at(1).toInt(&ok);
    if (!ok || s < 0 || s >= Topology::SlotCount)
        return false;
    *slot = quint16(s);
    *address = QString::fromUtf8(parts.at(2).trimmed());
    return true;
}

} // namespace

struct RedisRouter::Routed
{
    QList<QByteArray> args; // a command; empty for a script
    RedisScript script;
    QList<QByteArray> keys; // the script's, or the command's (routing)
    QList<QByteArray> scriptArgs;
    Callback callback;
    int redirects = 0;
    int retries = 0;
    bool read = false; // sent to a replica (--read-from replicas): on a loss, the master
};

RedisRouter::RedisRouter(RedisEndpoint endpoint, QObject *parent)
    : QObject(parent)
    , m_endpoint(std::move(endpoint))
    , m_topology(Topology::standalone(m_endpoint))
{
    // A Cluster seed may be a replica read from; READONLY is harmless on a
    // master, and refused (ignored) by a server without cluster support.
    if (m_endpoint.readFromReplicas && !m_endpoint.isSentinel())
        m_endpoint.readOnly = true;
    m_seed = new RedisConnection(m_endpoint, this);
    connect(m_seed, &RedisConnection::stateChanged, this,
            [this](RedisConnection::State state, const QString &message, qint64 next,
                   RedisConnection::ErrorKind kind) {
                // Ready is announced once the topology is known (onSeedReady).
                if (state == RedisConnection::State::Ready
                    && (m_endpoint.discoverTopology || m_endpoint.isSentinel()) && !m_probed)
                    return;
                Q_EMIT stateChanged(state, message, next, kind);
            });
    connect(m_seed, &RedisConnection::ready, this, &RedisRouter::onSeedReady);
    m_refreshTimer.setInterval(RefreshMs);
    connect(&m_refreshTimer, &QTimer::timeout, this, &RedisRouter::refreshTopology);
    m_soonTimer.setSingleShot(true);
    m_soonTimer.setInterval(20);
    connect(&m_soonTimer, &QTimer::timeout, this, &RedisRouter::refreshTopology);
    if (m_endpoint.isSentinel()) {
        m_topology.mode = Topology::Mode::Sentinel;
        m_sentinel = new SentinelWatch(m_endpoint, this);
        connect(m_sentinel, &SentinelWatch::topologyRead, this, &RedisRouter::onSentinelTopology);
        connect(m_sentinel, &SentinelWatch::readFailed, this, [this] {
            if (m_probing) {
                // The master answered though no sentinel describes it now: go
                // on with the master alone; the next refresh fills in replicas.
                Topology t = Topology::standalone(m_seed->endpoint());
                t.mode = Topology::Mode::Sentinel;
                t.nodes.first().role = QStringLiteral("master");
                m_topology = t;
                updateReadRouting();
                finishProbe();
            }
        });
        connect(m_sentinel, &SentinelWatch::switchMaster, this, &RedisRouter::onSwitchMaster);
    }
}

RedisRouter::~RedisRouter()
{
    // Connections fail what is pending as they go; the callbacks see
    // m_closing and answer without routing anything again.
    m_closing = true;
    delete m_sentinel;
    const auto connections = findChildren<RedisConnection *>(Qt::FindDirectChildrenOnly);
    for (RedisConnection *c : connections)
        delete c;
}

void RedisRouter::setAutoReconnect(bool on)
{
    m_autoReconnect = on;
    m_seed->setAutoReconnect(on);
    for (RedisConnection *c : std::as_const(m_byAddress))
        c->setAutoReconnect(on);
}

void RedisRouter::open()
{
    m_seed->open();
}

void RedisRouter::close()
{
    m_refreshTimer.stop();
    m_soonTimer.stop();
    if (m_sentinel)
        m_sentinel->stop();
    for (RedisConnection *c : std::as_const(m_byAddress)) {
        if (c != m_seed)
            c->close();
    }
    m_seed->close();
}

void RedisRouter::flush()
{
    m_seed->flush();
    for (RedisConnection *c : std::as_const(m_byAddress)) {
        if (c != m_seed)
            c->flush();
    }
}

bool RedisRouter::waiting(std::function<void()> job)
{
    if (!m_probing)
        return false;
    m_waiting.append(std::move(job));
    return true;
}

void RedisRouter::onSeedReady()
{
    if (m_sentinel) {
        if (m_probed) {
            Q_EMIT ready(); // reconnected, maybe to a new master
            m_sentinel->refresh();
            return;
        }
        m_probing = true;
        m_sentinel->start();
        m_sentinel->refresh();
        return;
    }
    if (!m_endpoint.discoverTopology || m_probed) {
        if (m_cluster)
            scheduleRefresh(); // after a reconnect the cluster may have changed
        Q_EMIT ready();
        return;
    }
    m_probing = true;
    m_seed->send({"CLUSTER", m_slotsOnly ? QByteArray("SLOTS") : QByteArray("SHARDS")},
                 [this](const RedisValue &reply) {
                     if (!m_closing)
                         onTopologyReply(reply, !m_slotsOnly, true);
                 });
    m_seed->flush();
}

void RedisRouter::finishProbe()
{
    m_probing = false;
    m_probed = true;
    Q_EMIT topologyChanged(m_topology);
    Q_EMIT stateChanged(m_seed->state(), m_seed->errorString(), -1, m_seed->errorKind());
    Q_EMIT ready();
    const auto jobs = std::exchange(m_waiting, {});
    for (const auto &job : jobs)
        job();
    flush();
}

void RedisRouter::onTopologyReply(const RedisValue &reply, bool shards, bool first)
{
    if (!first)
        m_refreshInFlight = false;
    if (reply.isFailed()) {
        // The connection went: a probe runs again on the next ready().
        if (first) {
            m_probing = false;
            const auto jobs = std::exchange(m_waiting, {});
            for (const auto &job : jobs)
                job(); // answered at once by the connection with why
        }
        return;
    }
    if (reply.isError()) {
        const QString message = reply.errorMessage();
        if (shards
            && (message.contains(QLatin1String("nknown subcommand"))
                || message.contains(QLatin1String("nknown command")))) {
            m_slotsOnly = true; // before Redis 7
            RedisConnection *c = first ? m_seed : anyReady();
            if (!c)
                return;
            if (!first)
                m_refreshInFlight = true;
            c->send({"CLUSTER", "SLOTS"}, [this, first](const RedisValue &v) {
                if (!m_closing)
                    onTopologyReply(v, false, first);
            });
            c->flush();
            return;
        }
        // Cluster support disabled, or CLUSTER not permitted: one node.
        if (first)
            finishProbe();
        return;
    }
    QString error;
    const auto topology = shards ? Topology::fromClusterShards(reply, m_endpoint.natMap, &error)
                                 : Topology::fromClusterSlots(reply, m_endpoint.natMap, &error);
    if (topology && shards && !topology->coversAllSlots()) {
        completeFromSlots(*topology, first);
        return;
    }
    takeTopology(topology, first);
}

void RedisRouter::completeFromSlots(Topology shards, bool first)
{
    RedisConnection *c = first ? m_seed : anyReady();
    if (!c) {
        takeTopology(shards, first);
        return;
    }
    if (!first)
        m_refreshInFlight = true;
    c->send({"CLUSTER", "SLOTS"}, [this, shards, first](const RedisValue &reply) mutable {
        if (m_closing)
            return;
        if (!first)
            m_refreshInFlight = false;
        // Failed or refused: the shards as read, slots unknown where they
        // said none (a MOVED reply still routes there).
        if (const auto bySlots = Topology::fromClusterSlots(reply, m_endpoint.natMap, nullptr))
            shards.fillUncoveredSlots(*bySlots);
        takeTopology(shards, first);
    });
    c->flush();
}

void RedisRouter::takeTopology(const std::optional<Topology> &topology, bool first)
{
    if (topology)
        applyTopology(*topology);
    if (first)
        finishProbe();
    else if (topology)
        Q_EMIT topologyChanged(m_topology);
    if (m_refreshAgain) {
        m_refreshAgain = false;
        scheduleRefresh();
    }
}

void RedisRouter::applyTopology(const Topology &topology)
{
    m_topology = topology;
    if (!m_cluster) {
        m_cluster = true;
        m_byAddress.insert(m_endpoint.address(), m_seed);
        m_refreshTimer.start();
    }
    // Masters get their connection now, so the first routed request does
    // not wait for a handshake; replicas only when asked for (sendTo).
    for (int i : m_topology.masters())
        connectionFor(m_topology.nodes.at(i).address());
    updateReadRouting();
}

void RedisRouter::onSentinelTopology(const Topology &topology)
{
    m_topology = topology;
    // Replicas read from that went away are tried again every refresh.
    for (const QString &address : std::as_const(m_readFailed)) {
        RedisConnection *c = m_byAddress.value(address);
        if (c
            && (c->state() == RedisConnection::State::Failed
                || c->state() == RedisConnection::State::Disconnected))
            c->open();
    }
    updateReadRouting();
    const QString master = topology.nodes.value(0).address();
    if (m_probing)
        finishProbe();
    else
        Q_EMIT topologyChanged(m_topology);
    // Connected to another address than the sentinels' master (a missed
    // +switch-master): reconnect, which asks the sentinels again.
    if (m_seed->state() == RedisConnection::State::Ready && !master.isEmpty()
        && m_seed->endpoint().address() != master)
        onSwitchMaster(m_seed->endpoint().address(), master);
}

void RedisRouter::onSwitchMaster(const QString &from, const QString &to)
{
    if (m_closing)
        return;
    if (m_seed->endpoint().address() != to)
        m_seed->reconnect(QStringLiteral("The sentinels switched master \"%1\" from %2 to %3.")
                              .arg(echoed(m_endpoint.sentinelMaster), echoed(from), echoed(to)));
    m_sentinel->refresh();
}

RedisConnection *RedisRouter::connectionFor(const QString &address)
{
    if (!m_cluster)
        return m_seed;
    RedisConnection *c = m_byAddress.value(address);
    if (!c) {
        RedisEndpoint ep = m_endpoint;
        if (!Topology::splitAddress(address, &ep.host, &ep.port))
            return m_seed;
        if (ep.sniName.isEmpty() && ep.transport == RedisEndpoint::Transport::Tls)
            ep.sniName = m_endpoint.host;
        ep.db = 0; // a Cluster has one database
        ep.readOnly = m_endpoint.readFromReplicas;
        c = new RedisConnection(ep, this);
        c->setAutoReconnect(m_autoReconnect);
        // A node lost may mean a failover: read the topology again.
        connect(c, &RedisConnection::stateChanged, this, [this](RedisConnection::State state) {
            if (state == RedisConnection::State::Reconnecting
                || state == RedisConnection::State::Failed)
                scheduleRefresh();
        });
        m_byAddress.insert(address, c);
        c->open();
    } else if (c != m_seed
               && (c->state() == RedisConnection::State::Failed
                   || c->state() == RedisConnection::State::Disconnected)) {
        c->open(); // a node back after a loss
    }
    return c;
}

RedisConnection *RedisRouter::connectionForKeys(const QList<QByteArray> &keys)
{
    if (keys.isEmpty())
        return m_seed;
    const int owner = m_topology.ownerOfKey(keys.first());
    if (owner < 0)
        return m_seed; // an unowned slot: the seed answers CLUSTERDOWN or MOVED
    return connectionFor(m_topology.nodes.at(owner).address());
}

RedisConnection *RedisRouter::anyReady() const
{
    if (m_seed->state() == RedisConnection::State::Ready)
        return m_seed;
    for (RedisConnection *c : m_byAddress) {
        if (c->state() == RedisConnection::State::Ready)
            return c;
    }
    return nullptr;
}

void RedisRouter::scheduleRefresh()
{
    if (!m_cluster || m_closing)
        return;
    if (m_refreshInFlight) {
        m_refreshAgain = true;
        return;
    }
    if (!m_soonTimer.isActive())
        m_soonTimer.start();
}

void RedisRouter::refreshTopology()
{
    if (!m_cluster || m_refreshInFlight || m_closing)
        return;
    RedisConnection *c = anyReady();
    if (!c)
        return;
    m_refreshInFlight = true;
    const bool shards = !m_slotsOnly;
    c->send({"CLUSTER", shards ? QByteArray("SHARDS") : QByteArray("SLOTS")},
            [this, shards](const RedisValue &reply) {
                if (!m_closing)
                    onTopologyReply(reply, shards, false);
            });
    c->flush();
}

void RedisRouter::send(const QList<QByteArray> &args, Callback callback)
{
    if (waiting([this, args, callback] { send(args, callback); }))
        return;
    const bool read = m_endpoint.readFromReplicas && !isNodeCommand(args);
    if (!m_cluster) {
        if (read && m_sentinel)
            sendRead(readConnection(m_topology.nodes.value(0).address()), m_seed, args,
                     std::move(callback));
        else
            m_seed->send(args, std::move(callback));
        return;
    }
    auto request = std::make_shared<Routed>();
    request->args = args;
    request->keys = keysOf(args);
    request->callback = std::move(callback);
    if (const QString problem = crossSlotProblem(request->keys); !problem.isEmpty()) {
        request->callback(RedisValue::error("CROSSSLOT " + problem.toUtf8()));
        return;
    }
    RedisConnection *target = connectionForKeys(request->keys);
    if (read) {
        RedisConnection *replica = readConnectionForKeys(request->keys);
        request->read = replica != target;
        target = replica;
    }
    route(request, target, false);
}

void RedisRouter::sendScript(const RedisScript &script, const QList<QByteArray> &keys,
                             const QList<QByteArray> &args, Callback callback)
{
    if (waiting([this, script, keys, args, callback] { sendScript(script, keys, args, callback); }))
        return;
    if (!m_cluster) {
        m_seed->sendScript(script, keys, args, std::move(callback));
        return;
    }
    auto request = std::make_shared<Routed>();
    request->script = script;
    request->keys = keys;
    request->scriptArgs = args;
    request->callback = std::move(callback);
    if (const QString problem = crossSlotProblem(keys); !problem.isEmpty()) {
        request->callback(RedisValue::error(
            "CROSSSLOT " + QStringLiteral("script %1: ").arg(script.name()).toUtf8()
            + problem.toUtf8()));
        return;
    }
    route(request, connectionForKeys(keys), false);
}

void RedisRouter::sendBatch(const QList<QList<QByteArray>> &commands, BatchCallback callback)
{
    if (waiting([this, commands, callback] { sendBatch(commands, callback); }))
        return;
    if (!m_cluster) {
        // Sentinel, --read-from replicas: a batch of data reads to the
        // replica; one with a node's own command (INFO, CONFIG) to the master.
        const bool read = m_sentinel && m_endpoint.readFromReplicas
                          && std::none_of(commands.cbegin(), commands.cend(), isNodeCommand);
        RedisConnection *target
            = read ? readConnection(m_topology.nodes.value(0).address()) : m_seed;
        if (target == m_seed) {
            m_seed->sendBatch(commands, std::move(callback));
            return;
        }
        // The replica lost: the batch again on the master (reads only).
        target->sendBatch(commands, [this, commands, callback](QList<RedisValue> replies) {
            const bool lost = std::any_of(replies.cbegin(), replies.cend(),
                                          [](const RedisValue &v) { return v.isFailed(); });
            if (!lost || m_closing) {
                callback(std::move(replies));
                return;
            }
            m_seed->sendBatch(commands, callback);
            m_seed->flush();
        });
        return;
    }
    const qsizetype n = commands.size();
    if (n == 0) {
        if (callback)
            callback({});
        return;
    }
    // The replies, gathered from every node in the order of the commands.
    struct Gather
    {
        QList<RedisValue> replies;
        qsizetype remaining = 0;
        BatchCallback callback;
        void set(qsizetype i, const RedisValue &v)
        {
            replies[i] = v;
            if (--remaining == 0 && callback)
                callback(std::move(replies));
        }
    };
    auto gather = std::make_shared<Gather>();
    gather->replies = QList<RedisValue>(n);
    gather->remaining = n;
    gather->callback = std::move(callback);
    for (qsizetype i = 0; i < n; ++i) {
        const QList<QByteArray> &cmd = commands.at(i);
        if (!cmd.isEmpty() && upper(cmd.first()) == "MULTI") {
            // A transaction runs on one node: MULTI ... EXEC go together,
            // to the owner of its first key.
            qsizetype end = i + 1;
            while (end < n && upper(commands.at(end).value(0)) != "EXEC")
                ++end;
            end = std::min(end, n - 1);
            QList<QList<QByteArray>> group = commands.mid(i, end - i + 1);
            QList<QByteArray> keys;
            for (const auto &c : std::as_const(group))
                keys << keysOf(c);
            const QString problem = crossSlotProblem(keys);
            if (!problem.isEmpty()) {
                for (qsizetype k = i; k <= end; ++k)
                    gather->set(k, RedisValue::error("CROSSSLOT transaction: " + problem.toUtf8()));
            } else {
                connectionForKeys(keys)->sendBatch(group, [gather, i](QList<RedisValue> replies) {
                    for (qsizetype k = 0; k < replies.size(); ++k)
                        gather->set(i + k, replies.at(k));
                });
            }
            i = end;
            continue;
        }
        send(cmd, [gather, i](const RedisValue &v) { gather->set(i, v); });
    }
}

void RedisRouter::sendTo(const QString &address, const QList<QByteArray> &args, Callback callback)
{
    if (waiting([this, address, args, callback] { sendTo(address, args, callback); }))
        return;
    // SCAN, DBSIZE of a master: its replica's, when reads go there.
    if (m_endpoint.readFromReplicas && (m_cluster || m_sentinel) && !isNodeCommand(args)) {
        const int i = m_topology.indexOf(address);
        if (i >= 0 && m_topology.nodes.at(i).role == QLatin1String("master")) {
            RedisConnection *master = m_cluster ? connectionFor(address) : m_seed;
            sendRead(readConnection(address), master, args, std::move(callback));
            return;
        }
    }
    if (m_sentinel && address != m_seed->endpoint().address()
        && address != m_topology.nodes.value(0).address()) {
        replicaConnection(address)->send(args, std::move(callback));
        return;
    }
    connectionFor(address)->send(args, std::move(callback));
}

void RedisRouter::route(const std::shared_ptr<Routed> &request, RedisConnection *target,
                        bool asking)
{
    if (asking)
        target->send({"ASKING"}, [](const RedisValue &) {});
    auto onReply = [this, request](const RedisValue &reply) {
        if (m_closing) {
            request->callback(reply);
            return;
        }
        onRoutedReply(request, reply);
    };
    if (request->args.isEmpty())
        target->sendScript(request->script, request->keys, request->scriptArgs, onReply);
    else
        target->send(request->args, onReply);
    if (request->redirects > 0 || request->retries > 0)
        target->flush();
}

void RedisRouter::onRoutedReply(const std::shared_ptr<Routed> &request, const RedisValue &reply)
{
    if (reply.isFailed() && request->read) {
        // A read the replica did not answer: the master answers it (a read
        // is safe to send twice); readRoutingChanged() moves the next ones.
        request->read = false;
        ++request->retries;
        route(request, connectionForKeys(request->keys), false);
        return;
    }
    if (reply.isFailed()) {
        scheduleRefresh(); // a node lost: maybe failed over
        request->callback(reply);
        return;
    }
    if (!reply.isError()) {
        request->callback(reply);
        return;
    }
    const QByteArray code = reply.errorCode();
    if (code == "MOVED" || code == "ASK") {
        quint16 slot = 0;
        QString address;
        if (!parseRedirect(reply, &slot, &address) || ++request->redirects > s_maxRedirects) {
            request->callback(reply);
            return;
        }
        address = Topology::mapAddress(address, m_endpoint.natMap);
        if (code == "MOVED") {
            m_topology.assignSlot(slot, address);
            scheduleRefresh();
            route(request, connectionFor(address), false);
        } else {
            route(request, connectionFor(address), true); // this request only
        }
        return;
    }
    if (code == "TRYAGAIN" || code == "CLUSTERDOWN") {
        if (++request->retries > s_maxRetries) {
            request->callback(reply);
            return;
        }
        if (code == "CLUSTERDOWN")
            scheduleRefresh();
        const int delay = std::min(1000, s_backoffFirstMs << (request->retries - 1));
        QTimer::singleShot(delay, this, [this, request] {
            route(request, connectionForKeys(request->keys), false);
        });
        return;
    }
    request->callback(reply);
}

} // namespace gatehouse
