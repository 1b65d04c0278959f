// SPDX-License-Identifier: MIT
#pragma once

#include "autodetector.h"
#include "durability.h"

#include <patterns/objectstate.h>
#include <redis/connectionstate.h>
#include <redis/topology.h>

#include <QHash>
#include <QIODevice>
#include <QJsonObject>
#include <QList>
#include <QMetaType>
#include <QPointF>
#include <QStringList>

#include <memory>

namespace gatehouse {

// A connection as the console shows it, structured (no one parses the
// sentence): its state, the sentence for the operator, while reconnecting
// when the next attempt starts (local epoch ms; -1 otherwise), and what the
// sentence is about (authentication, TLS, the network...).
struct ConnectionStatus
{
    ConnectionState state = ConnectionState::Disconnected;
    QString message;
    qint64 nextAttemptAtMs = -1;
    ConnectionErrorKind errorKind = ConnectionErrorKind::None;

    bool operator==(const ConnectionStatus &o) const
    {
        return state == o.state && message == o.message && nextAttemptAtMs == o.nextAttemptAtMs
               && errorKind == o.errorKind;
    }
    bool operator!=(const ConnectionStatus &o) const { return !(*this == o); }
};

// One Redis node the monitor reads (a standalone server is one; a Cluster's
// masters and replicas are filled in from the topology).
struct NodeStatus
{
    QString address;
    QString version;    // the product's own; empty when INFO is not permitted
    QString serverName; // "Redis", "Valkey" (ServerIdentity)
    QString role;       // "master", "slave"/"replica"; empty when unknown
    // A Cluster's (Topology): node id, slot ranges ("0-5460,16000"), the
    // address of a replica's master, health ("online", "failed", "loading").
    QByteArray id;
    QString slotRanges;
    QList<SlotRange> ownedSlots; // slotRanges as ranges (which node holds a key)
    int slotCount = 0;
    QString masterAddress;
    QString health;
    // INFO figures; -1 unknown.
    qint64 replicationOffset = -1;
    qint64 usedMemoryBytes = -1;
    qint64 connectedClients = -1;
    qint64 opsPerSec = -1;
    int aofEnabled = -1;
    qint64 rdbLastSaveS = -1;
    qint64 clockOffsetMs = 0; // this node's clock - local clock
    // Local ms since the last reply from this node arrived; -1 before the first.
    qint64 lastReadingAgeMs = -1;
    ConnectionStatus connection;
    // Masters: what a crash or a failover would lose now (DurabilityReader).
    Durability durability;
    // Masters, with --read-from replicas: the replica its reads go to; empty
    // when they go to the master (readsNote says why, when asked for replicas).
    QString readsFrom;
    QString readsNote;
};

// The deployment as read: its nodes, and what holds for all of them.
struct ServerStatus
{
    QString mode = QStringLiteral("standalone"); // or "cluster"
    // Never empty once the monitor exists; the first is the node connected
    // to (the address given), a Cluster's other nodes follow.
    QList<NodeStatus> nodes;
    // The node actions and discovery start from (the standalone server).
    const NodeStatus &primary() const;
    // The index in nodes of the master holding key: by hash slot on a
    // Cluster, the master otherwise; -1 when no node is known to.
    int nodeOfKey(const QByteArray &key) const;
    // "held by 127.0.0.1:7002 (master, slots 5461-10922)"; empty standalone.
    QString heldBy(const QByteArray &key) const;
    QString readFrom = QStringLiteral("master"); // or "replicas" (--read-from)
    qint64 timeMs = 0;        // the server's clock at the last reading (the snapshot's now)
    qint64 clockOffsetMs = 0; // server clock - local clock
    bool eventsLive = false;  // keyspace events subscribed; otherwise polling
    bool paused = false;      // Monitor::setPaused: nothing is read meanwhile
    qint64 intervalMs = 1000;
    // Local ms since the last reply to a probe arrived (the oldest over the
    // nodes); -1 before the first. Grows while a server is stopped, asleep
    // or unreachable.
    qint64 lastReadingAgeMs = -1;
    // Budgeted polling (Monitor::Options::budgetPercent; keyspace events
    // off): the share of one server core refreshing may use and used in the
    // last tick, the objects it read, and how old an idle object's reading
    // may get. budgetPercent 0: not budgeted (events live, or every object
    // every tick).
    double budgetPercent = 0;
    double sharePercent = -1;
    int objectsRead = 0;
    qint64 ageBoundMs = -1;
    // The world the readings belong to (Monitor::beginNewWorld): 0 until the
    // server behind the connection changed (a master switch, a restart) or
    // its keyspace did (FLUSHALL, SWAPDB: Monitor::noteKeyspace);
    // then what happened, when (server ms), and when every object had been
    // read again and the keyspace scanned again (-1 while not yet: until
    // then objects read before are marked stale).
    struct World
    {
        int generation = 0;
        // "restart" (the same address, another run_id), "master" (another
        // server is the master now), "flush" (FLUSHALL, FLUSHDB or SWAPDB
        // ran, or the key count fell by half or more in one tick beyond the
        // deletions keyspace events announced), "keys" (the key count fell
        // by more than half between two scans), "objects" (most objects
        // vanished at once).
        QString kind;
        QString reason;
        bool restart = false; // kind == "restart"
        // The readings before are not trusted ("restart", "master",
        // "flush"): wholeAtMs -1 until every object was read again. The
        // others are the server's readings: whole at once.
        bool reread = false;
        qint64 sinceMs = -1;
        qint64 wholeAtMs = -1;
        qint64 keysBefore = -1; // DBSIZE before and after (a restart: what was lost)
        qint64 keysAfter = -1;
        qint64 uptimeS = -1; // a restart: the server's uptime when it was seen
    };
    World world;
    QStringList notes; // what is unavailable, and why
    // False when keys exist that this Redis user may not list or read (the
    // objects are then only what could be read); permissions names what is
    // missing: "scan", "type", "keys", "evalsha", "eval" (Discovery).
    bool complete = true;
    QStringList permissions;
};

// The history of one object's figures as published: a copy, never changed
// once made, shared by every snapshot until the next tick's sample.
struct ObjectHistory
{
    QStringList figures;          // PatternUnit::figures() ids, in order
    QList<QList<QPointF>> series; // per figure: x = server time in ms, y = value
    // One figure's points; maxPoints > 1: at most that many, evenly spaced,
    // the newest always in (a sparkline needs its width in points).
    QList<QPointF> points(const QString &figure, int maxPoints = 0) const;
};
using ObjectHistoryPtr = std::shared_ptr<const ObjectHistory>;

// An object the Overview lists first (backend/monitor/attention.h ranks them).
struct AttentionItem
{
    double score = 0;
    QString text;    // "Limiter rl:api at 93 % (retry horizon 1.2 s)"
    QString section; // the page it opens
    QByteArray key;
    QString figure;           // the figure its sparkline draws
    QList<QPointF> sparkline; // at most AttentionSparkPoints points of it
    // Server ms when data is lost for good (a countdown figure of its
    // pattern, CountdownFigures); -1: no deadline. Shown in red.
    qint64 deadlineAtMs = -1;
};

// The instances of a snapshot. Each ObjectState is shared, never changed
// once published: a new snapshot shares every unchanged state with the last
// one, so publishing costs a pointer copy per object, not a deep copy.
// Iterates and indexes as const ObjectState &.
class ObjectList
{
public:
    using Ptr = std::shared_ptr<const ObjectState>;

    class const_iterator
    {
    public:
        using iterator_category = std::random_access_iterator_tag;
        using value_type = ObjectState;
        using difference_type = qsizetype;
        using pointer = const ObjectState *;
        using reference = const ObjectState &;
        explicit const_iterator(QList<Ptr>::const_iterator it)
            : m_it(it)
        {}
        reference operator*() const { return **m_it; }
        pointer operator->() const { return m_it->get(); }
        const_iterator &operator++()
        {
            ++m_it;
            return *this;
        }
        bool operator!=(const const_iterator &o) const { return m_it != o.m_it; }
        bool operator==(const const_iterator &o) const { return m_it == o.m_it; }

    private:
        QList<Ptr>::const_iterator m_it;
    };

    ObjectList() = default;
    ObjectList(std::initializer_list<ObjectState> states)
    {
        for (const ObjectState &s : states)
            append(s);
    }

    qsizetype size() const { return m_items.size(); }
    bool isEmpty() const { return m_items.isEmpty(); }
    const ObjectState &at(qsizetype i) const { return *m_items.at(i); }
    const ObjectState &first() const { return *m_items.first(); }
    const ObjectState &last() const { return *m_items.last(); }
    const Ptr &ptr(qsizetype i) const { return m_items.at(i); }
    const_iterator begin() const { return const_iterator(m_items.cbegin()); }
    const_iterator end() const { return const_iterator(m_items.cend()); }
    void reserve(qsizetype n) { m_items.reserve(n); }
    void append(const ObjectState &state) { m_items.append(std::make_shared<ObjectState>(state)); }
    void append(Ptr state) { m_items.append(std::move(state)); }

private:
    QList<Ptr> m_items;
};

// One consistent reading of everything found: a value, shared implicitly;
// the monitor makes a new one per tick and never changes one it gave out.
// With keyspace events live a tick re-reads only what may have changed, so
// each reading is as of its own atMs: reading.at(server.timeMs) gives its
// figures at the snapshot's time, exact (PatternUnit::validUntilMs).
// What the monitor's last full tick cost (Monitor::lastTickCost() as
// tickFinished leaves it); -1 before the first tick.
struct TickCost
{
    qint64 wallMs = -1; // from sending the first probe to the last reply
    qint64 commands = -1;
    int roundTrips = -1;
    int objectsRead = -1;
    qint64 wallUs = -1; // wallMs in µs (a tick of a few objects takes less than 1 ms)
};

struct Snapshot
{
    quint64 sequence = 0;
    ServerStatus server;
    QString profile; // the profile's name, or "autodetected"
    bool discovering = false;
    qint64 scanned = 0; // keys scanned so far / DBSIZE
    qint64 total = 0;
    ObjectList objects;
    // The history of the objects the console watches (Monitor::setWatched:
    // the ones selected on its pages), by key.
    QHash<QByteArray, ObjectHistoryPtr> history;
    // The objects that most need an operator, highest score first (at most
    // Attention::MaxItems), each with a sparkline.
    std::shared_ptr<const QList<AttentionItem>> attention;
    // Autodetection (no profile): instances below the evidence threshold and
    // the ordinary keys by family; null with a profile or before discovery.
    std::shared_ptr<const QList<Candidate>> candidates;
    std::shared_ptr<const QList<OtherFamily>> other;

    // The version of the snapshot --json document (docs/json-schema.md): raised
    // when a field is renamed, removed or changes meaning, or a consumer must
    // know of new fields. 2: server.world, nodes[].serverName, goneSinceMs.
    static constexpr int SchemaVersion = 3;

    // The snapshot --json contract (docs/json-schema.md).
    QJsonObject toJson() const;
    // The same document written piece by piece (an object, a family at a
    // time) to out, each section cut to limit elements (-1: all), with
    // "totals" counting them all; false when a write failed.
    bool writeJson(QIODevice *out, qsizetype limit = -1) const;

    // The pieces of the document.
    QJsonObject headerJson() const; // schemaVersion, server, profile, sequence
    QJsonObject objectJson(const ObjectState &state) const;
    static QJsonObject candidateJson(const Candidate &candidate);
    static QJsonObject otherJson(const OtherFamily &family);
};

} // namespace gatehouse

Q_DECLARE_METATYPE(gatehouse::Snapshot)
Q_DECLARE_METATYPE(gatehouse::TickCost)
