// SPDX-License-Identifier: MIT
#pragma once

#include "redisendpoint.h"
#include "redisvalue.h"

#include <QHash>
#include <QList>
#include <QMetaType>
#include <QString>

#include <optional>

namespace gatehouse {

// An inclusive range of Cluster hash slots (0..16383).
struct SlotRange
{
    int first = 0;
    int last = 0;
    bool operator==(const SlotRange &o) const { return first == o.first && last == o.last; }
};

// One node of the deployment as discovered: where to reach it (after the
// NAT map), what it is, and the INFO essentials once read.
struct TopologyNode
{
    QByteArray id; // Cluster node id; empty standalone
    QString host;
    quint16 port = 0;
    QString announced;   // "host:port" as the cluster announces it, when the NAT map changed it
    QString role;        // "master" or "replica"
    QByteArray masterId; // replicas: the id of their master
    QList<SlotRange> slotRanges; // masters
    QString health;              // CLUSTER SHARDS: "online", "failed", "loading"; "" unknown
    qint64 replicationOffset = -1;
    // INFO essentials; empty / -1 until read (or when INFO is refused).
    QString version;    // the product's own (valkey_version on Valkey)
    QString serverName; // "Redis", "Valkey" (ServerIdentity)
    qint64 usedMemoryBytes = -1;
    qint64 connectedClients = -1;
    qint64 opsPerSec = -1;
    // Persistence: INFO says whether AOF is on and when RDB last saved (its
    // save rules are configuration, not INFO).
    int aofEnabled = -1; // 1, 0; -1 unknown
    qint64 rdbLastSaveS = -1;
    qint64 rdbChangesSinceSave = -1;
    // Masters, with --read-from replicas (RedisRouter): the replica serving
    // its reads, or empty and why they go to the master.
    QString readsFrom;
    QString readsNote;

    QString address() const; // "host:port"
    int slotCount() const;
    // "0-5460", "5461-10922,16000", "" for none.
    QString slotsText() const;
    // Fills the INFO fields from an INFO reply's text.
    void applyInfo(const QByteArray &info);
};

// Maps addresses a Cluster announces ("10.0.0.5:6379") to addresses this
// machine can reach ("127.0.0.1:7005"): --nat-map FROM=TO.
using NatMap = QHash<QString, QString>;

// The deployment behind one address: a standalone server (one node), a
// Cluster (its masters and replicas, and which master owns each hash slot),
// or a master with replicas under Sentinel.
// A value type, copied across threads.
class Topology
{
public:
    enum class Mode { Standalone, Cluster, Sentinel };
    static constexpr int SlotCount = 16384;

    Mode mode = Mode::Standalone;
    QList<TopologyNode> nodes;

    bool isCluster() const { return mode == Mode::Cluster; }
    // A master and its replicas as the sentinels describe them (SentinelWatch);
    // nodes.first() is the master.
    bool isSentinel() const { return mode == Mode::Sentinel; }
    QString modeId() const; // "standalone", "cluster", "sentinel"

    // Index into nodes of the master serving slot, -1 if none.
    int ownerOf(quint16 slot) const { return m_owner.isEmpty() ? -1 : m_owner.at(slot); }
    int ownerOfKey(const QByteArray &key) const;
    QList<int> masters() const; // indexes, in slot order
    int indexOf(const QString &address) const;
    // Moves slot to the node at address (a MOVED reply), adding the node as a
    // master if it is new.
    void assignSlot(quint16 slot, const QString &address);

    static Topology standalone(const RedisEndpoint &endpoint);
    // From a CLUSTER SHARDS reply (Redis 7) or a CLUSTER SLOTS reply (older),
    // announced addresses mapped through nat. Nothing, with *error set, when
    // the reply is not one.
    static std::optional<Topology> fromClusterShards(const RedisValue &reply, const NatMap &nat,
                                                     QString *error);
    static std::optional<Topology> fromClusterSlots(const RedisValue &reply, const NatMap &nat,
                                                    QString *error);
    // A Cluster's slots all have a master here.
    bool coversAllSlots() const;
    // Gives the slots no master holds here to the masters another reading
    // (CLUSTER SLOTS) names for them, matched by node id or address (added
    // when this one lists none): Redis 7.4's CLUSTER SHARDS lists the shard
    // of a failed-over master with no slots at all, while the promoted
    // replica serves them.
    void fillUncoveredSlots(const Topology &from);

    // "host:port" through the NAT map.
    static QString mapAddress(const QString &address, const NatMap &nat);
    // Splits "host:port" ("[::1]:6379" too); false if it is not one.
    static bool splitAddress(const QString &address, QString *host, quint16 *port);

private:
    void rebuildOwners();
    QList<qint16> m_owner; // slot -> node index; empty standalone
};

} // namespace gatehouse

Q_DECLARE_METATYPE(gatehouse::Topology)
