// SPDX-License-Identifier: MIT
#include "topology.h"

#include "serveridentity.h"

#include "hashslot.h"
#include "serverinfo.h"

#include <QStringList>

#include <algorithm>

namespace gatehouse {

namespace {

// A RESP2 map (flat key, value array) as a lookup.
QHash<QByteArray, RedisValue> asMap(const RedisValue &v)
{
    QHash<QByteArray, RedisValue> map;
    for (qsizetype i = 0; i + 1 < v.size(); i += 2)
        map.insert(v.at(i).bytes(), v.at(i + 1));
    return map;
}

QString hostPort(const QString &host, quint16 port)
{
    return host.contains(QLatin1Char(':')) ? QStringLiteral("[%1]:%2").arg(host).arg(port)
                                           : QStringLiteral("%1:%2").arg(host).arg(port);
}

void setAddress(TopologyNode &node, const QString &host, quint16 port, const NatMap &nat)
{
    const QString announced = hostPort(host, port);
    const QString mapped = Topology::mapAddress(announced, nat);
    if (mapped != announced)
        node.announced = announced;
    if (!Topology::splitAddress(mapped, &node.host, &node.port)) {
        node.host = host;
        node.port = port;
    }
}

} // namespace

QString TopologyNode::address() const
{
    return hostPort(host, port);
}

int TopologyNode::slotCount() const
{
    int n = 0;
    for (const SlotRange &r : slotRanges)
        n += r.last - r.first + 1;
    return n;
}

QString TopologyNode::slotsText() const
{
    QStringList parts;
    for (const SlotRange &r : slotRanges)
        parts << (r.first == r.last ? QString::number(r.first)
                                    : QStringLiteral("%1-%2").arg(r.first).arg(r.last));
    return parts.join(QLatin1Char(','));
}

void TopologyNode::applyInfo(const QByteArray &info)
{
    const auto f = parseInfo(info);
    bool ok = false;
    if (f.contains("redis_version")) {
        const ServerIdentity id = ServerIdentity::fromInfo(f);
        version = id.version;
        serverName = id.name;
    }
    if (const qint64 v = f.value("used_memory").toLongLong(&ok); ok)
        usedMemoryBytes = v;
    if (const qint64 v = f.value("connected_clients").toLongLong(&ok); ok)
        connectedClients = v;
    if (const qint64 v = f.value("instantaneous_ops_per_sec").toLongLong(&ok); ok)
        opsPerSec = v;
    if (f.contains("role") && role.isEmpty())
        role = f.value("role") == "slave" ? QStringLiteral("replica") : QStringLiteral("master");
    if (f.contains("aof_enabled"))
        aofEnabled = f.value("aof_enabled") == "1" ? 1 : 0;
    if (const qint64 v = f.value("rdb_last_save_time").toLongLong(&ok); ok)
        rdbLastSaveS = v;
    if (const qint64 v = f.value("rdb_changes_since_last_save").toLongLong(&ok); ok)
        rdbChangesSinceSave = v;
    if (const qint64 v = f.value("master_repl_offset").toLongLong(&ok); ok && replicationOffset < 0)
        replicationOffset = v;
}

QString Topology::modeId() const
{
    switch (mode) {
    case Mode::Cluster:
        return QStringLiteral("cluster");
    case Mode::Sentinel:
        return QStringLiteral("sentinel");
    case Mode::Standalone:
        break;
    }
    return QStringLiteral("standalone");
}

int Topology::ownerOfKey(const QByteArray &key) const
{
    return ownerOf(keyHashSlot(key));
}

QList<int> Topology::masters() const
{
    QList<int> result;
    for (int i = 0; i < nodes.size(); ++i) {
        if (nodes.at(i).role == QLatin1String("master"))
            result.append(i);
    }
    std::sort(result.begin(), result.end(), [this](int a, int b) {
        const auto first = [this](int i) {
            return nodes.at(i).slotRanges.isEmpty() ? SlotCount
                                                    : nodes.at(i).slotRanges.first().first;
        };
        return first(a) < first(b);
    });
    return result;
}

int Topology::indexOf(const QString &address) const
{
    for (int i = 0; i < nodes.size(); ++i) {
        if (nodes.at(i).address() == address)
            return i;
    }
    return -1;
}

void Topology::assignSlot(quint16 slot, const QString &address)
{
    int to = indexOf(address);
    if (to < 0) {
        TopologyNode node;
        if (!splitAddress(address, &node.host, &node.port))
            return;
        node.role = QStringLiteral("master");
        nodes.append(node);
        to = int(nodes.size() - 1);
    }
    for (TopologyNode &n : nodes) {
        for (qsizetype r = 0; r < n.slotRanges.size(); ++r) {
            SlotRange range = n.slotRanges.at(r);
            if (slot < range.first || slot > range.last)
                continue;
            n.slotRanges.removeAt(r);
            if (range.first < slot)
                n.slotRanges.insert(r++, {range.first, slot - 1});
            if (slot < range.last)
                n.slotRanges.insert(r, {slot + 1, range.last});
            break;
        }
    }
    nodes[to].slotRanges.append({slot, slot});
    nodes[to].role = QStringLiteral("master");
    std::sort(nodes[to].slotRanges.begin(), nodes[to].slotRanges.end(),
              [](const SlotRange &a, const SlotRange &b) { return a.first < b.first; });
    if (m_owner.size() == SlotCount)
        m_owner[slot] = qint16(to);
    else
        rebuildOwners();
}

Topology Topology::standalone(const RedisEndpoint &endpoint)
{
    Topology t;
    TopologyNode node;
    if (endpoint.transport == RedisEndpoint::Transport::Unix) {
        node.host = endpoint.socketPath;
    } else {
        node.host = endpoint.host;
        node.port = endpoint.port;
    }
    t.nodes = {node};
    return t;
}

QString Topology::mapAddress(const QString &address, const NatMap &nat)
{
    return nat.value(address, address);
}

bool Topology::splitAddress(const QString &address, QString *host, quint16 *port)
{
    const qsizetype colon = address.lastIndexOf(QLatin1Char(':'));
    if (colon <= 0)
        return false;
    bool ok = false;
    const uint p = address.mid(colon + 1).toUInt(&ok);
    if (!ok || p == 0 || p > 65535)
        return false;
    QString h = address.left(colon);
    if (h.startsWith(QLatin1Char('[')) && h.endsWith(QLatin1Char(']')))
        h = h.mid(1, h.size() - 2);
    if (h.isEmpty())
        return false;
    *host = h;
    *port = quint16(p);
    return true;
}

void Topology::rebuildOwners()
{
    if (mode != Mode::Cluster) {
        m_owner.clear();
        return;
    }
    m_owner = QList<qint16>(SlotCount, qint16(-1));
    for (int i = 0; i < nodes.size(); ++i) {
        if (nodes.at(i).role != QLatin1String("master"))
            continue;
        for (const SlotRange &r : nodes.at(i).slotRanges) {
            for (int s = std::max(0, r.first); s <= std::min(SlotCount - 1, r.last); ++s)
                m_owner[s] = qint16(i);
        }
    }
}

bool Topology::coversAllSlots() const
{
    if (mode != Mode::Cluster)
        return true;
    return m_owner.size() == SlotCount
           && std::none_of(m_owner.cbegin(), m_owner.cend(), [](qint16 o) { return o < 0; });
}

void Topology::fillUncoveredSlots(const Topology &from)
{
    if (mode != Mode::Cluster || !from.isCluster())
        return;
    bool changed = false;
    for (const TopologyNode &source : from.nodes) {
        if (source.role != QLatin1String("master"))
            continue;
        // The runs of source's slots that no master holds here.
        QList<SlotRange> free;
        for (const SlotRange &r : source.slotRanges) {
            for (int s = std::max(0, r.first); s <= std::min(SlotCount - 1, r.last); ++s) {
                if (ownerOf(quint16(s)) >= 0)
                    continue;
                if (!free.isEmpty() && free.last().last == s - 1)
                    free.last().last = s;
                else
                    free.append({s, s});
            }
        }
        if (free.isEmpty())
            continue;
        int to = -1;
        for (int i = 0; i < nodes.size() && to < 0; ++i) {
            if (!source.id.isEmpty() ? nodes.at(i).id == source.id
                                     : nodes.at(i).address() == source.address())
                to = i;
        }
        if (to < 0) {
            nodes.append(source);
            nodes.last().slotRanges.clear();
            to = int(nodes.size() - 1);
        }
        TopologyNode &node = nodes[to];
        node.role = QStringLiteral("master");
        node.slotRanges += free;
        std::sort(node.slotRanges.begin(), node.slotRanges.end(),
                  [](const SlotRange &a, const SlotRange &b) { return a.first < b.first; });
        changed = true;
    }
    if (changed)
        rebuildOwners();
}

namespace {

// CLUSTER SHARDS' health of a node that is down: "fail" (Valkey, Redis 7.x)
// or "failed" (as Redis documents it).
bool failed(const TopologyNode &node)
{
    return node.health.startsWith(QLatin1String("fail"));
}

} // namespace

std::optional<Topology> Topology::fromClusterShards(const RedisValue &reply, const NatMap &nat,
                                                    QString *error)
{
    if (!reply.isArray()) {
        if (error)
            *error = QStringLiteral("CLUSTER SHARDS gave no list of shards (%1)")
                         .arg(reply.isError() ? reply.errorMessage() : reply.toDebugString());
        return std::nullopt;
    }
    Topology t;
    t.mode = Mode::Cluster;
    for (const RedisValue &shardValue : reply.elements()) {
        const auto shard = asMap(shardValue);
        QList<SlotRange> ranges;
        const RedisValue bounds = shard.value("slots");
        for (qsizetype i = 0; i + 1 < bounds.size(); i += 2)
            ranges.append({int(bounds.at(i).toInteger()), int(bounds.at(i + 1).toInteger())});
        QList<TopologyNode> members;
        const RedisValue nodeList = shard.value("nodes");
        for (const RedisValue &nodeValue : nodeList.elements()) {
            const auto n = asMap(nodeValue);
            TopologyNode node;
            node.id = n.value("id").bytes();
            QString host = QString::fromUtf8(n.value("endpoint").bytes());
            if (host.isEmpty() || host == QLatin1String("?"))
                host = QString::fromUtf8(n.value("ip").bytes());
            const qint64 port = n.contains("port") ? n.value("port").toInteger()
                                                   : n.value("tls-port").toInteger();
            setAddress(node, host, quint16(port), nat);
            node.role = n.value("role").bytes() == "master" ? QStringLiteral("master")
                                                            : QStringLiteral("replica");
            node.health = QString::fromUtf8(n.value("health").bytes());
            node.replicationOffset = n.value("replication-offset").toInteger();
            members.append(node);
        }
        // The shard's slots are its master's. A shard keeps its failed
        // master beside the replica promoted in its place (Valkey 8 lists
        // both as "master"): the one not failed holds the slots.
        qsizetype owner = -1;
        for (qsizetype i = 0; i < members.size(); ++i) {
            if (members.at(i).role != QLatin1String("master"))
                continue;
            if (owner < 0 || (failed(members.at(owner)) && !failed(members.at(i))))
                owner = i;
        }
        const QByteArray masterId = owner >= 0 ? members.at(owner).id : QByteArray();
        for (qsizetype i = 0; i < members.size(); ++i) {
            TopologyNode &node = members[i];
            if (i == owner)
                node.slotRanges = ranges;
            else if (node.role != QLatin1String("master"))
                node.masterId = masterId;
            t.nodes.append(node);
        }
    }
    if (t.nodes.isEmpty()) {
        if (error)
            *error = QStringLiteral("CLUSTER SHARDS listed no nodes");
        return std::nullopt;
    }
    t.rebuildOwners();
    return t;
}

std::optional<Topology> Topology::fromClusterSlots(const RedisValue &reply, const NatMap &nat,
                                                   QString *error)
{
    if (!reply.isArray()) {
        if (error)
            *error = QStringLiteral("CLUSTER SLOTS gave no list of slot ranges (%1)")
                         .arg(reply.isError() ? reply.errorMessage() : reply.toDebugString());
        return std::nullopt;
    }
    Topology t;
    t.mode = Mode::Cluster;
    QHash<QString, int> byAddress;
    const auto nodeAt = [&](const RedisValue &v, const QString &role) -> int {
        TopologyNode node;
        setAddress(node, QString::fromUtf8(v.at(0).bytes()), quint16(v.at(1).toInteger()), nat);
        node.id = v.size() > 2 ? v.at(2).bytes() : QByteArray();
        node.role = role;
        const QString address = node.address();
        const auto it = byAddress.constFind(address);
        if (it != byAddress.cend())
            return *it;
        t.nodes.append(node);
        byAddress.insert(address, int(t.nodes.size() - 1));
        return int(t.nodes.size() - 1);
    };
    for (const RedisValue &range : reply.elements()) {
        if (range.size() < 3 || range.at(2).size() < 2)
            continue;
        const int master = nodeAt(range.at(2), QStringLiteral("master"));
        t.nodes[master].slotRanges.append(
            {int(range.at(0).toInteger()), int(range.at(1).toInteger())});
        for (qsizetype r = 3; r < range.size(); ++r) {
            if (range.at(r).size() < 2)
                continue;
            const int replica = nodeAt(range.at(r), QStringLiteral("replica"));
            t.nodes[replica].masterId = t.nodes.at(master).id;
        }
    }
    if (t.nodes.isEmpty()) {
        if (error)
            *error = QStringLiteral("CLUSTER SLOTS listed no nodes");
        return std::nullopt;
    }
    for (TopologyNode &n : t.nodes)
        std::sort(n.slotRanges.begin(), n.slotRanges.end(),
                  [](const SlotRange &a, const SlotRange &b) { return a.first < b.first; });
    t.rebuildOwners();
    return t;
}

} // namespace gatehouse
