// SPDX-License-Identifier: MIT
#pragma once

#include "redisconnection.h"
#include "topology.h"

#include <QHash>
#include <QObject>
#include <QSet>
#include <QTimer>

#include <functional>
#include <memory>

namespace gatehouse {

class RedisScript;
class SentinelWatch;

// What RedisClient talks to on its worker thread: a standalone server's one
// connection, or a Cluster's masters, one pipelined connection each. Lives on,
// and must only be used from, that worker thread.
//
// With RedisEndpoint::discoverTopology, the first handshake is followed by
// CLUSTER SHARDS (CLUSTER SLOTS on servers before 7): a server with cluster
// support disabled stays standalone and every request goes straight to its
// connection, as before (no extra round trip per request). On a Cluster,
// requests are routed by the hash slot of their keys: MOVED updates the slot
// map and retries on the new owner, ASK retries once on the target after
// ASKING, TRYAGAIN and CLUSTERDOWN back off (50 ms doubling, six times).
// A command or script whose keys span slots is answered with a CROSSSLOT
// error naming the keys and slots, without being sent. The topology is read
// again every RefreshMs, after every redirection and after a lost node.
// Requests made while the topology is being read wait for it.
//
// With a Sentinel endpoint the seed connection asks the sentinels for the
// master on every (re)connect (RedisConnection); the router reads the master
// and replicas from the sentinels (SentinelWatch) and, on +switch-master,
// drops the seed connection so it reconnects to the new master: what was
// written to the old one "may or may not have run", what is sent while it
// reconnects is held until the new master is Ready.
//
// With RedisEndpoint::readFromReplicas (a Cluster or Sentinel), data reads
// (commands, batches, SCAN and DBSIZE by address) go to a replica of the
// master that holds them: on a Cluster with READONLY sent in each node's
// handshake, so the replica answers for its master's slots. Scripts, MULTI
// groups and a node's own commands (INFO, CONFIG, ROLE, CLIENT, ...) go to
// the master. A master whose replicas are all down or unreachable is read
// itself, and its TopologyNode::readsNote says why.
class RedisRouter : public QObject
{
    Q_OBJECT
public:
    using Callback = RedisConnection::Callback;
    using BatchCallback = RedisConnection::BatchCallback;
    static constexpr int RefreshMs = 10000;

    explicit RedisRouter(RedisEndpoint endpoint, QObject *parent = nullptr);
    ~RedisRouter() override;

    void setAutoReconnect(bool on);
    void open();
    void close();
    void flush();

    void send(const QList<QByteArray> &args, Callback callback);
    void sendBatch(const QList<QList<QByteArray>> &commands, BatchCallback callback);
    void sendScript(const RedisScript &script, const QList<QByteArray> &keys,
                    const QList<QByteArray> &args, Callback callback);
    // To one node by address ("host:port" as in the topology), unrouted:
    // SCAN, DBSIZE, INFO of that node. Standalone, any address is the server.
    void sendTo(const QString &address, const QList<QByteArray> &args, Callback callback);
    void refreshTopology();

    const Topology &topology() const { return m_topology; }

    // The keys of a command, by the key positions Redis documents for the
    // commands Gatehouse sends (EVAL/EVALSHA numkeys, MGET, MSET pairs,
    // LMOVE, ZUNIONSTORE numkeys, XREAD STREAMS, ...); first argument otherwise.
    static QList<QByteArray> keysOf(const QList<QByteArray> &args);
    // Empty when every key is in one slot; otherwise the sentence naming the
    // keys, their slots and the hash tag that would join them.
    static QString crossSlotProblem(const QList<QByteArray> &keys);

Q_SIGNALS:
    // The seed connection's (the address given); Ready only once the topology is known.
    void stateChanged(gatehouse::RedisConnection::State state, const QString &message,
                      qint64 nextAttemptAtMs, gatehouse::RedisConnection::ErrorKind kind);
    void ready();
    void topologyChanged(const gatehouse::Topology &topology);

private:
    struct Routed;
    void onSeedReady();
    void onTopologyReply(const RedisValue &reply, bool shards, bool first);
    // A CLUSTER SHARDS reading that leaves slots without a master: their
    // masters asked of CLUSTER SLOTS (Topology::fillUncoveredSlots).
    void completeFromSlots(Topology shards, bool first);
    void takeTopology(const std::optional<Topology> &topology, bool first);
    void applyTopology(const Topology &topology);
    void finishProbe();
    void route(const std::shared_ptr<Routed> &request, RedisConnection *target, bool asking);
    void onRoutedReply(const std::shared_ptr<Routed> &request, const RedisValue &reply);
    RedisConnection *connectionFor(const QString &address);
    RedisConnection *connectionForKeys(const QList<QByteArray> &keys);
    RedisConnection *anyReady() const;
    void scheduleRefresh();
    void onSentinelTopology(const Topology &topology);
    void onSwitchMaster(const QString &from, const QString &to);
    RedisConnection *replicaConnection(const QString &address);
    bool waiting(std::function<void()> job);
    // --read-from replicas: where reads of the master at masterAddress go
    // (a replica's connection, or the master's when none answers).
    RedisConnection *readConnection(const QString &masterAddress);
    RedisConnection *readConnectionForKeys(const QList<QByteArray> &keys);
    // Chooses each master's read replica and notes the fallbacks in
    // m_topology; true when any choice or note changed.
    bool updateReadRouting();
    void readRoutingChanged(); // updateReadRouting, announced when it changed
    // A read to target; lost (the replica went), sent again to master.
    void sendRead(RedisConnection *target, RedisConnection *master, const QList<QByteArray> &args,
                  Callback callback);
    // A server's own command (INFO, CONFIG, ROLE, ...): answered for the
    // node it is sent to, so never moved to a replica.
    static bool isNodeCommand(const QList<QByteArray> &args);

    RedisEndpoint m_endpoint;
    RedisConnection *m_seed = nullptr;             // a child
    SentinelWatch *m_sentinel = nullptr;           // a child, Sentinel endpoints only
    QHash<QString, RedisConnection *> m_byAddress; // Cluster: children, the seed among them
    Topology m_topology;
    bool m_cluster = false;
    bool m_probing = false; // the first topology read is under way
    bool m_probed = false;
    bool m_slotsOnly = false; // CLUSTER SHARDS unknown: CLUSTER SLOTS
    bool m_autoReconnect = true;
    bool m_closing = false;
    bool m_refreshInFlight = false;
    bool m_refreshAgain = false;
    QList<std::function<void()>> m_waiting; // requests made while probing
    QTimer m_refreshTimer{this};
    QTimer m_soonTimer{this}; // coalesces refreshes asked for by redirections
    // --read-from replicas: replicas whose read connection was lost (not
    // chosen again until it is Ready).
    QSet<QString> m_readFailed;
    QSet<RedisConnection *> m_readWatched; // connections whose state moves the routing
};

} // namespace gatehouse
