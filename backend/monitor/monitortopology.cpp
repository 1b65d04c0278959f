// SPDX-License-Identifier: MIT
// The monitor's account of the deployment: the server's facts (version,
// role, clock, keyspace events) on every (re)connect, a Cluster's or
// Sentinel set's nodes from the client's topology and each node's INFO.
#include "monitor.h"
#include "transientreply.h"

#include "discovery.h"
#include "durabilityreader.h"

#include <redis/nodeorder.h>
#include <redis/redisclient.h>
#include <redis/sentinelhint.h>
#include <redis/serveridentity.h>
#include <redis/serverinfo.h>

#include <QDateTime>

namespace gatehouse {

namespace {

// What the topology says of node t: role, slots, replication, health.
void describeNode(NodeStatus &n, const TopologyNode &t, const Topology &topology)
{
    n.id = t.id;
    n.role = t.role;
    n.slotRanges = t.slotsText();
    n.ownedSlots = t.slotRanges;
    n.slotCount = t.slotCount();
    if (t.role != QLatin1String("master"))
        n.durability = {}; // a master before a failover: its figures are gone with it
    n.readsFrom = t.readsFrom;
    n.readsNote = t.readsNote;
    n.health = t.health;
    n.masterAddress.clear();
    for (const TopologyNode &m : topology.nodes) {
        if (!t.masterId.isEmpty() && m.id == t.masterId)
            n.masterAddress = m.address();
    }
    if (t.replicationOffset >= 0)
        n.replicationOffset = t.replicationOffset;
}

} // namespace

void Monitor::applyTopology(const Topology &topology)
{
    m_server.mode = topology.modeId();
    if (!topology.isCluster() && !topology.isSentinel())
        return;
    applyNodes(topology);
    QStringList masters;
    for (int m : topology.masters())
        masters << topology.nodes.at(m).address();
    m_durability->setMasters(masters);
    // The masters that hold slots: a master with none (an old master on its
    // way to becoming a replica, a node just added) serves no key, and its
    // coming or going changes nothing any object is read from.
    QStringList sortedMasters;
    for (int m : topology.masters()) {
        if (topology.nodes.at(m).slotCount() > 0)
            sortedMasters << topology.nodes.at(m).address();
    }
    sortedMasters.sort();
    if (topology.isSentinel()) {
        sortedMasters.clear(); // the master the sentinels name, if they name one
        if (!topology.nodes.isEmpty() && !topology.nodes.first().host.isEmpty())
            sortedMasters << topology.nodes.first().address();
    }
    const bool switched = m_started && !m_knownMasters.isEmpty() && !sortedMasters.isEmpty()
                          && sortedMasters != m_knownMasters;
    const QStringList before = m_knownMasters;
    if (!sortedMasters.isEmpty())
        m_knownMasters = sortedMasters; // none: a topology read half-way, not a change
    if (switched && topology.isCluster()) {
        // A replica promoted (it may lack the last writes), a master added.
        beginNewWorld(
            QStringLiteral("The Cluster's masters changed from %1 to %2.")
                .arg(before.join(QStringLiteral(", ")), sortedMasters.join(QStringLiteral(", "))),
            false);
    } else if (switched && sortedMasters.first() != m_runAddress) {
        // Sentinel: unless the connection's INFO already showed that master.
        awaitMaster(sortedMasters.first(), topology.nodes.first().id, before.first());
    } else {
        if (topology.isSentinel() && !m_awaited.address.isEmpty() && !topology.nodes.isEmpty()
            && !topology.nodes.first().id.isEmpty())
            m_awaited.runId = topology.nodes.first().id; // the sentinels read it again
        followEventMasters(topology);
    }
    publish();
    if (m_started)
        readNodeInfo();
}

void Monitor::applyNodes(const Topology &topology)
{
    // Sentinel: the connection follows the master, whichever node that is now.
    const QString seedAddress = topology.isSentinel() ? topology.nodes.value(0).address()
                                                      : m_client->endpoint().address();
    QHash<QString, NodeStatus> known;
    for (qsizetype i = 1; i < m_server.nodes.size() && i < m_nodeAddresses.size(); ++i)
        known.insert(m_nodeAddresses.at(i), m_server.nodes.at(i));
    QList<NodeStatus> nodes{m_server.nodes.value(0)};
    QStringList addresses{seedAddress};
    for (int i : nodeOrder(topology)) {
        const TopologyNode &t = topology.nodes.at(i);
        const bool seed = t.address() == seedAddress;
        NodeStatus n = seed ? nodes.first() : known.value(t.address());
        if (!seed) {
            n.address = t.address();
            n.connection = {RedisConnection::State::Ready, QString(), -1};
        } else {
            // Its "host:port" as the others' (Sentinel: the master now, after
            // a failover too), not the URL given.
            n.address = t.address();
        }
        describeNode(n, t, topology);
        if (seed) {
            nodes.first() = n;
        } else {
            nodes.append(n);
            addresses.append(t.address());
        }
    }
    m_server.nodes = nodes;
    m_nodeAddresses = addresses;
}

void Monitor::readNodeInfo()
{
    if (m_server.mode != QLatin1String("cluster") && m_server.mode != QLatin1String("sentinel"))
        return;
    m_nodeInfoClock.start();
    for (const QString &address : std::as_const(m_nodeAddresses)) {
        m_client->commandOn(address, {"INFO"}, &m_context, [this, address](const RedisValue &v) {
            const qsizetype i = m_nodeAddresses.indexOf(address);
            if (i < 0 || i >= m_server.nodes.size())
                return;
            NodeStatus &n = m_server.nodes[i];
            if (v.isError()) {
                if (v.isFailed() && i > 0)
                    n.connection = {RedisConnection::State::Failed, v.errorMessage(), -1};
                return;
            }
            TopologyNode t;
            t.applyInfo(v.bytes());
            if (i > 0)
                n.connection = {RedisConnection::State::Ready, QString(), -1};
            n.version = t.version;
            n.serverName = t.serverName;
            n.usedMemoryBytes = t.usedMemoryBytes;
            n.connectedClients = t.connectedClients;
            n.opsPerSec = t.opsPerSec;
            n.aofEnabled = t.aofEnabled;
            n.rdbLastSaveS = t.rdbLastSaveS;
            if (t.replicationOffset >= 0)
                n.replicationOffset = t.replicationOffset;
            publishRoutine();
        });
    }
}

void Monitor::readServerFacts()
{
    const qint64 sentAt = QDateTime::currentMSecsSinceEpoch();
    m_client->pipeline(
        {{"INFO", "server"},
         {"INFO", "replication"},
         {"CONFIG", "GET", "notify-keyspace-events"},
         {"TIME"},
         {"DBSIZE"}},
        &m_context, [this, sentAt](const QList<RedisValue> &r) {
            if (!m_started)
                return;
            const qint64 receivedAt = QDateTime::currentMSecsSinceEpoch();
            if (!r.at(0).isError() && !m_client->endpoint().isSentinel()
                && ServerIdentity::fromInfo(parseInfo(r.at(0).bytes())).mode
                       == QLatin1String("sentinel")) {
                sayWrongServer();
                return;
            }
            m_server.notes.clear();
            // Refused for now (BUSY: a script running long;
            // LOADING): not a permission the user lacks. What
            // answered is applied; the rest asked again.
            const bool later = isTransientRefusal(r.at(0)) || isTransientRefusal(r.at(2))
                               || isTransientRefusal(r.at(3));
            if (!isTransientRefusal(r.at(0)))
                applyServerInfo(r.at(0), r.at(1), r.value(4));
            const qint64 serverMs = serverTimeMs(r.at(3));
            if (serverMs > 0) {
                setServerClock(serverMs, sentAt, receivedAt);
            } else {
                m_server.timeMs = serverNow();
                if (!isTransientRefusal(r.at(3)))
                    m_server.notes << QStringLiteral("TIME is not permitted; window maths "
                                                     "use the local clock (%1).")
                                          .arg(r.at(3).errorMessage());
            }
            if (!isTransientRefusal(r.at(2)))
                followEventsConfig(r.at(2));
            if (later) {
                m_server.notes << QStringLiteral("The server refuses for now (%1): its facts "
                                                 "are asked again each second, and reading "
                                                 "waits for them.")
                                      .arg(std::find_if(r.cbegin(), r.cend(), isTransientRefusal)
                                               ->errorMessage());
                const int epoch = m_readyEpoch;
                QTimer::singleShot(1000, &m_context, [this, epoch] {
                    // Not after a reconnect (its ready reads
                    // them) nor on a connection not ready.
                    if (m_started && epoch == m_readyEpoch
                        && m_client->state() == RedisConnection::State::Ready)
                        readServerFacts();
                });
                // Reading begins (or goes on) once the server answers: with
                // its clock and identity. Ticks meanwhile meet the same
                // refusal and keep their last readings, ageing.
                publish();
                return;
            }
            startReading();
        });
}

void Monitor::sayWrongServer()
{
    // A sentinel holds no keys: its DBSIZE and SCAN are unknown commands.
    // Said once, with the URL that reaches its master; nothing is read.
    m_client->command({"ROLE"}, &m_context, [this](const RedisValue &role) {
        const QString why
            = SentinelHint::sentence(m_client->endpoint(), SentinelHint::monitoredMasters(role));
        m_server.notes = {why};
        stop();
        publish();
        Q_EMIT failed(why);
    });
}

void Monitor::applyServerInfo(const RedisValue &server, const RedisValue &replication,
                              const RedisValue &dbSize)
{
    QHash<QByteArray, QByteArray> info;
    if (server.isError()) {
        m_server.notes << QStringLiteral("Server version unknown: INFO is not permitted "
                                         "(%1).")
                              .arg(server.errorMessage());
    } else {
        info = parseInfo(server.bytes());
        const ServerIdentity id = ServerIdentity::fromInfo(info);
        m_server.nodes[0].version = id.version;
        m_server.nodes[0].serverName = id.name;
    }
    if (!replication.isError()) {
        // INFO says "slave"; the snapshot, metrics and topology say "replica".
        const QByteArray role = parseInfo(replication.bytes()).value("role");
        m_server.nodes[0].role
            = role == "slave" ? QStringLiteral("replica") : QString::fromUtf8(role);
    }
    // Is it the server read before? (a switch, a restart)
    noteServerIdentity(m_client->endpoint().address(), info.value("run_id"),
                       info.value("uptime_in_seconds", "-1").toLongLong(),
                       dbSize.isError() ? -1 : dbSize.toInteger());
    if (m_client->endpoint().readFromReplicas && !m_client->topology().isCluster()
        && !m_client->topology().isSentinel())
        m_server.notes << QStringLiteral("--read-from replicas: a standalone server has no "
                                         "replicas the console follows; reads go to it.");
}

void Monitor::startReading()
{
    readNodeInfo();
    if (m_options.readDurability && !m_paused)
        m_durability->start();
    if (m_tracked.isEmpty() && (!m_discovery || !m_discovery->isRunning())
        && m_awaited.address.isEmpty())
        startDiscovery();
    if (!m_tickTimer.isActive()) {
        m_tickTimer.start();
        if (m_options.rescanMs > 0)
            m_rescanTimer.start();
    }
}

} // namespace gatehouse
