// SPDX-License-Identifier: MIT
#pragma once

#include "autodetector.h"
#include "profile.h"

#include <redis/redisclient.h>
#include <redis/serveridentity.h>

#include <QElapsedTimer>
#include <QHash>
#include <QObject>
#include <QStringList>

namespace gatehouse {

// Finds the pattern instances in one database of a set of nodes (a standalone
// server is one node; a Cluster's masters each hold their share of the keys):
// SCAN with MATCH and COUNT (never KEYS), one cursor step in flight per node so
// no server is ever flooded: standalone nodes one after another, a Cluster's
// masters all at once (setTopology). With a profile, keys are matched by name only (the
// readings report wrong types later); without one, TYPE, PTTL and a bounded shape read are
// pipelined per SCAN page and AutoDetector groups the keys at the end.
//
// Results stream out: objectsFound for every page with new instances (profile
// mode), progress against DBSIZE; cancel() stops after the step in flight.
class Discovery : public QObject
{
    Q_OBJECT
public:
    // nodes: never empty; the first answers the permission probes (EVALSHA,
    // EVAL), every one is scanned and counted (DBSIZE).
    Discovery(QList<RedisClient *> nodes, std::optional<Profile> profile,
              QObject *parent = nullptr);
    Discovery(RedisClient *client, std::optional<Profile> profile, QObject *parent = nullptr)
        : Discovery(QList<RedisClient *>{client}, std::move(profile), parent)
    {}

    void setScanCount(int count) { m_count = count; }
    // Instead of a SCAN, judge just these keys, as one page (autodetecting:
    // the keys keyspace events named that no object holds). Before start().
    void setKeys(QList<QByteArray> keys)
    {
        m_fixedKeys = std::move(keys);
        m_keysOnly = true;
    }
    // setKeys(): the keys that did not exist when judged (deleted or expired
    // since their event) or whose TYPE failed (a slot moving); they say
    // nothing about their family.
    const QList<QByteArray> &missingKeys() const { return m_missingKeys; }
    // Of those, the keys whose TYPE failed (a slot moving, a node failing
    // over): they may well exist, and are worth asking about again.
    const QList<QByteArray> &unreadKeys() const { return m_unreadKeys; }
    // A Cluster (before start()): every master of topology is scanned, all at once,
    // through the one client (RedisClient::commandOn), and a key is kept
    // only from the master that owns its slot, so a key met on two nodes
    // during a slot migration is found once.
    void setTopology(const Topology &topology);
    void start();
    void cancel();
    bool isRunning() const { return m_running; }
    // After finished(true): the server's refusal that cut the scan and passes
    // by itself (BUSY: a script running long; LOADING; TRYAGAIN;
    // CLUSTERDOWN; MASTERDOWN), as it said it; empty when a node did not
    // answer at all.
    QString cutReason() const { return m_cutReason; }

    // After finished(): every instance found; token families carry all members.
    QList<PatternObject> objects() const;
    // Frees what the scan kept (the objects and, autodetecting, the shapes
    // of the keys): the monitor keeps its own copy; objects() is then empty.
    void releaseObjects();
    // After finished() in autodetect mode: the instances whose evidence was
    // not enough to show them, and the ordinary keys by family.
    QList<Candidate> candidates() const { return m_candidates; }
    QList<OtherFamily> otherFamilies() const { return m_other; }
    // After finished() in autodetect mode: the profile that would find the same.
    Profile suggestedProfile() const;
    qint64 scannedKeys() const { return m_scanned; }

    // After finished(): what this Redis user may not do that discovery needed
    // (NOPERM on SCAN, TYPE, the keys themselves, EVALSHA, EVAL), each as a
    // sentence saying what is missing and what to grant, and as an id
    // ("scan", "type", "keys", "evalsha", "eval"). complete() is false when
    // keys exist that Gatehouse could not list or read: the objects are then
    // what could be read, not everything there is.
    QStringList permissionNotes() const { return m_permissionNotes; }
    QStringList missingPermissions() const { return m_missing; }
    bool complete() const { return m_complete; }

Q_SIGNALS:
    void objectsFound(const QList<gatehouse::PatternObject> &objects);
    void progress(qint64 scanned, qint64 total);
    void finished(bool cancelled);
    void failed(const QString &message);

private:
    // node: a Cluster master's index in m_addresses (scanned in parallel),
    // -1 for the sequential scan of standalone nodes.
    void step(int node = -1);
    void scan(int node);
    void onPage(const QList<QByteArray> &keys, int node);
    // readWhole: TYPE, PTTL and shape for every key, settled family or not.
    void detect(const QList<QByteArray> &keys, int node, bool readWhole = false);
    // The scan met every key (of this standalone node, or of the Cluster):
    // the keys a settled family kept as possible partners and a claimed
    // key's name extends are read whole (AutoDetector::takeDeferred). True
    // when they are being read: the scan goes on once they are in.
    bool readDeferred();
    static constexpr int DeferredNode = -2; // detect()'s node for readDeferred()
    // The shapes of a page read, their hashes' sampled fields' TTLs are read
    // (servers with per-field expiry), then every shape not refused is judged.
    void readFieldTtls(QList<KeyShape> shapes, const QList<QByteArray> &families,
                       const QList<bool> &refused, int node);
    // A page's keys are all read (autodetecting): the scan goes on.
    void pageDone(int node);
    // Standalone nodes, autodetecting: SCAN pages whose keys are being read.
    static constexpr int MaxPagesInFlight = 8;
    void finish(bool cancelled);
    void refused(const QString &id, const QString &note, bool incomplete);
    // TYPE said "none" (expired since SCAN listed it) or failed (CLUSTERDOWN):
    // noted, and true: the key is not judged.
    bool notThere(const RedisValue &type, const QByteArray &key);
    void noteUnreadableKeys();
    QString userName() const;
    // The client of the node being scanned (standalone nodes), or the one
    // routing client of a Cluster.
    RedisClient *client() const { return m_nodes.at(m_addresses.isEmpty() ? m_node : 0); }
    qsizetype nodeCount() const
    {
        return m_addresses.isEmpty() ? m_nodes.size() : m_addresses.size();
    }

    QList<RedisClient *> m_nodes;
    qsizetype m_node = 0;
    Topology m_topology;              // Cluster: who owns which slot
    QStringList m_addresses;          // Cluster: the masters scanned, in order
    QList<int> m_owners;              // Cluster: their index in m_topology
    QList<QByteArray> m_cursors;      // Cluster: each master's SCAN cursor
    int m_nodesLeft = 0;              // Cluster: masters whose scan has not ended
    std::optional<Profile> m_profile; // profile mode: keys matched by name only
    std::optional<Profile> m_hints;   // autodetect mode: an operator's accept/reject
    AutoDetector m_detector;
    QByteArray m_cursor = "0";
    QList<QByteArray> m_fixedKeys; // setKeys()
    bool m_keysOnly = false;
    QList<QByteArray> m_missingKeys; // setKeys(): TYPE none, or TYPE failed
    QList<QByteArray> m_unreadKeys;  // setKeys(): TYPE failed
    QByteArray m_match = "*";
    int m_count = 1000;
    qint64 m_total = 0;
    qint64 m_scanned = 0;
    qint64 m_serverNowMs = 0;
    ServerIdentity m_server; // INFO server at start(): which commands shape reads may use
    bool m_running = false;
    QString m_cutReason;
    bool m_cancelled = false;
    bool m_firstStep = true;
    int m_pagesInFlight = 0;
    bool m_scanWaiting = false; // MaxPagesInFlight reached: the next SCAN waits
    bool m_complete = true;
    bool m_typeRefused = false;
    qint64 m_keysRefused = 0; // keys whose TYPE or shape read hit NOPERM on the key
    // Keys whose TYPE answered another error (CLUSTERDOWN, LOADING): not
    // judged, so the pass is not whole; the first such error, said.
    qint64 m_keysUnread = 0;
    QString m_unreadError;
    QStringList m_permissionNotes;
    QStringList m_missing;
    QList<Candidate> m_candidates; // autodetect mode, after finished()
    QList<OtherFamily> m_other;
    bool m_memorySamples = true;                              // MEMORY USAGE allowed (so far)
    QList<PatternObject> m_objects;                           // profile mode, in discovery order
    QHash<QPair<PatternKind, QByteArray>, qsizetype> m_index; // (kind, key) -> m_objects index
    QObject m_context{this};                                  // a child: moves with the discovery
};

} // namespace gatehouse
