// SPDX-License-Identifier: MIT
#pragma once

#include <QHash>
#include <QJsonObject>
#include <QList>
#include <QString>

namespace gatehouse {

// One replica as its master's INFO replication lists it ("slave0:ip=...,
// port=...,state=online,offset=...,lag=..."), with how far behind it is.
struct ReplicaLink
{
    QString address; // "host:port" as announced (through the NAT map)
    QString state;   // "online", "wait_bgsave", "send_bulk", ...
    qint64 ackOffset = -1;
    qint64 lastAckS = -1; // INFO's "lag": seconds since its last REPLCONF ACK (sent every 1 s)
    // The master's replication offset minus the replica's acknowledged one,
    // when both were read in the same INFO; -1 unknown.
    qint64 behindBytes = -1;
    // How far behind in time (ms): 0 in sync (nothing unacknowledged, acked
    // within InSyncAckS); behindBytes at the master's recent write rate, and
    // at least the time since its last acknowledgement; -1 unknown.
    qint64 behindMs = -1;
    bool online() const { return state == QLatin1String("online"); }
    // Streaming, and acknowledged within InSyncAckS: a failover to it loses
    // at most the writes of that last moment.
    bool inSync() const;
};

// What a master would lose in a crash or a failover, as read now: its
// persistence (INFO persistence, CONFIG appendfsync and save), its replicas
// (INFO replication) and min-replicas-to-write. Values, copied into every
// snapshot (NodeStatus::durability).
struct Durability
{
    static constexpr int InSyncAckS = 1;

    bool known = false; // INFO persistence and replication were read
    QString error;      // why not (INFO refused, node unreachable)
    // Persistence.
    int aofEnabled = -1; // 1, 0; -1 unknown
    QString appendfsync; // "always", "everysec", "no"; "" unknown (CONFIG refused)
    bool aofLastWriteOk = true;
    bool aofRewriting = false;
    QString saveRules; // CONFIG GET save: "3600 1 300 100"; "" none; unknown when !configKnown
    qint64 rdbLastSaveS = -1;
    QString rdbLastBgsaveStatus; // "ok", "err"
    qint64 rdbChangesSinceSave = -1;
    bool configKnown = false; // CONFIG GET answered (appendfsync, save, min-replicas-*)
    // Replication.
    qint64 masterOffset = -1;
    double writeBytesPerS = -1; // replication stream rate between two reads; -1 unknown
    QList<ReplicaLink> replicas;
    int minReplicasToWrite = -1; // 0: off; -1 unknown
    int minReplicasMaxLagS = -1;
    int goodReplicas = -1; // INFO's min_slaves_good_slaves, when min-replicas-to-write is on

    int replicasInSync() const;
    // The replica a failover would most likely promote: the one behind
    // least (Sentinel and Cluster both prefer the highest offset); -1 none.
    int bestReplica() const;

    // Fills persistence and replication from INFO text (either section or
    // both, or a whole INFO); replica addresses through nat ("from" -> "to").
    void applyInfo(const QByteArray &info, const QHash<QString, QString> &nat = {});
    // CONFIG GET replies flattened: "appendfsync" -> "everysec", "save" -> ...,
    // "min-replicas-to-write" -> "1", "min-replicas-max-lag" -> "10".
    void applyConfig(const QHash<QByteArray, QByteArray> &config);
    // With the previous reading of the same master elapsedMs earlier: the
    // write rate, and each replica's lag in ms at that rate.
    void estimateLag(const Durability &previous, qint64 elapsedMs);

    // The sentence the Nodes page and the JSON give: what a failover and
    // a crash could lose now, e.g. "replica 127.0.0.1:7004 is 1.2 s behind:
    // a failover now loses up to 1.2 s of writes; AOF everysec: a crash
    // loses up to 1 s". nowS: the server's clock (RDB ages).
    QString sentence(qint64 nowS) const;
    // Of persistence alone ("AOF everysec: a crash loses up to 1 s").
    QString persistenceSummary(qint64 nowS) const;
    QJsonObject toJson(qint64 nowS) const;

private:
    void updateBehind(); // each replica's behindMs from its bytes, last ack and the rate
};

} // namespace gatehouse
