// SPDX-License-Identifier: MIT
#pragma once

#include "behaviourwatch.h"
#include "eventkeyjudge.h"
#include "history.h"
#include "memorytrim.h"
#include "profile.h"
#include "refreshbudget.h"
#include "replacedlog.h"
#include "snapshot.h"
#include "snapshotpacer.h"

#include <patterns/patternunit.h>

#include <redis/redisvalue.h>

#include <QElapsedTimer>
#include <QHash>
#include <QObject>
#include <QPointF>
#include <QSet>
#include <QTimer>

#include <memory>
#include <vector>

namespace gatehouse {

class Discovery;
class RedisClient;

class DurabilityReader;
class RedisSubscriber;

// The engine of the console: finds the pattern instances (Discovery), keeps
// them live by pipelined probes every tick and by keyspace events, and hands
// out immutable Snapshots: snapshotReady at most ten times a second with the
// latest state, tickFinished with each tick's own.
// Window maths use the server's TIME; the offset to the local clock is
// measured every tick. Lives on one thread (the GUI moves it to its own);
// the RedisClient does the I/O on its worker.
class Monitor : public QObject
{
    Q_OBJECT
public:
    struct Options
    {
        std::optional<Profile> profile; // none: autodetect
        int intervalMs = 1000;
        bool useEvents = true;      // subscribe when the server publishes events
        bool singleReading = false; // one snapshot, no ticks (gatehouse-cli snapshot)
        int rescanMs = 60000;       // periodic re-scan for new instances; 0: never
        int batchObjects = 500;     // objects per pipelined round trip (<= 3 per 1000 budget)
        int historyCapacity = 900;  // samples kept per object (15 min at 1 Hz)
        int eventDelayMs = 2;       // coalescing of keyspace events before a re-probe
        // With keyspace events live, a tick reads only what may have changed:
        // objects written since (dirty), those time alone changes in a way
        // only Redis knows (past PatternUnit::validUntilMs), the detailed
        // one, and a rolling sweep that reads every object at least every
        // sweepMs. The others keep their reading, exact when projected with
        // Reading::at(). FLUSHALL, FLUSHDB and SWAPDB publish no event: the
        // tick's DBSIZE and INFO commandstats catch them (noteKeyspace).
        // Off, or events not live: every object every tick.
        bool adaptive = true;
        int sweepMs = 120000;
        // notify-keyspace-events is read again (on every master) this often
        // while subscribed: if someone turns them off, the monitor polls
        // again, and when they are back it rescans (keys written meanwhile
        // were announced to no one). A shorter gap goes unseen until the
        // sweep reads every object (sweepMs).
        int eventsCheckMs = 1000;
        // Without keyspace events (adaptive on), refreshing is planned against
        // this share of one server core, measured from the round trips the
        // monitor makes: hot objects (never read, selected or watched,
        // changed lately, needing attention, or past validUntilMs) every
        // tick; the idle ones in turn with what is left, each at least every
        // sweepMs. Their reading's age is shown (ServerStatus::ageBoundMs,
        // "ageMs" in the JSON). 0: every object every tick (so are fewer
        // than MinBudgetedObjects objects).
        double budgetPercent = 2.0;
        // Autodetected objects are watched for this many ticks after they
        // are found: what their keys do (a window trimmed, a lock deleted and
        // taken again, a value overwritten in place) is evidence
        // (PatternUnit::observeBehaviour) that can demote a shown object to a
        // candidate (or an ordinary key) or promote a candidate (the first
        // BehaviourWatch::MaxWatched single-instance candidates are read for as
        // long). Read every tick meanwhile. 0: not watched.
        int behaviourTicks = 20;
        // Each master's persistence and replicas (DurabilityReader: INFO
        // persistence and replication every 2 s, CONFIG every 30 s).
        bool readDurability = true;
    };

    // Snapshots carrying a change are published at most once per this many
    // ms (<= 10 Hz).
    static constexpr int PublishIntervalMs = 100;
    // With keyspace events live, at least one snapshot this often (a tick's
    // routine readings, the server's durability and nodes, when no write
    // brought a change to publish sooner). Routine snapshots do not count
    // against PublishIntervalMs: a write never waits behind one.
    static constexpr int RoutineIntervalMs = 1000;
    // Budgeted polling: objects per round trip. Another client's command
    // arriving meanwhile waits behind at most a fraction of a millisecond of
    // them, and each round trip is one such wait for every command then in
    // flight: what moves another client's p99 is how many round trips a
    // second, more than their size (bench figure 5, events off: 1.08x with
    // 25 objects a trip, nine trips a tick).
    static constexpr qsizetype PacedBatchObjects = 100;
    // Fewer objects are read every tick: they cost the server next to nothing.
    static constexpr qsizetype MinBudgetedObjects = 100;
    // Budgeted polling: an object that changed or needs attention is read
    // every tick for this many ticks after.
    static constexpr int HotTicks = 30;
    // A duration figure (a TTL, an age) differing from its projection by at
    // most this is the same reading, not a write.
    static constexpr double DurationSlackMs = 100;

    Monitor(RedisClient *client, Options options, QObject *parent = nullptr);
    ~Monitor() override;

    void start(); // when the client is ready: server facts, discovery, then ticks
    void stop();
    // Stops and closes its connection, which is not retried (File >
    // Disconnect): nothing is read, and what shares the connection (the
    // demo's traffic) writes nothing more.
    void close();
    // Paused: no reads (no ticks, no re-reads after keyspace events, no
    // rescans, no persistence reads) until resumed; the connections stay
    // open and idle, the readings keep their age, and what keyspace events
    // marked written is read when resumed. A discovery under way finishes,
    // and a reconnect still reads the server's facts (version, role, events).
    void setPaused(bool paused);
    void refreshNow();
    // Keys an operator's action wrote: one no object holds (the queue a
    // retry pushed into, a dead-letter stream it created) is judged at once,
    // as a keyspace event's key is, so the console shows where the job went
    // now, with or without keyspace events, and not a rescan later.
    void judgeWritten(const QList<QByteArray> &keys);
    // The operator's dismissal: objects that are gone (none of their keys
    // exists) leave the console. A key written again is found again, by its
    // keyspace event or the next scan, as a new object. Waits for the reads
    // under way, which hold the objects' indices.
    void dismissGone();
    void cancelDiscovery();
    // An operator's verdict changed the profile (the console's Unconfirmed
    // page): discovery runs again with it at once. Objects found stay; the
    // candidates and ordinary families are replaced when it finishes.
    void setProfile(const std::optional<gatehouse::Profile> &profile);
    // The selected object is read in detail (window strip, retry slots).
    void setDetailKey(const QByteArray &key);
    // The objects whose history the snapshots carry (Snapshot::history): the
    // ones selected on the console's pages.
    void setWatched(const QList<QByteArray> &keys);

    // The latest state, on the monitor's thread only (others: snapshotReady).
    Snapshot snapshot()
    {
        if (!m_snapshotFresh)
            refreshSnapshot();
        return m_snapshot;
    }
    // Local ms since the last reply to a reading arrived; -1 before the first.
    qint64 replyAgeMs() const
    {
        return m_lastReplyAtMs < 0 ? -1 : m_clock.elapsed() - m_lastReplyAtMs;
    }
    const Options &options() const { return m_options; }
    Discovery *discovery() const { return m_discovery.get(); }

    // Figures kept per tick for one object (the monitor's thread only;
    // others read Snapshot::history): name and points
    // (x = server time in ms, y = value). Names: the pattern's figures
    // (PatternUnit::figures(): limiters "inWindow", "occupancy",
    // "retryHorizonMs"; locks "pttlMs"; ...).
    static QStringList figureNames(PatternKind kind);
    // maxPoints > 0: at most that many, evenly spaced, the newest always in
    // (a sparkline needs its width in points, not 15 minutes of samples).
    QList<QPointF> history(const QByteArray &key, const QString &figure, int maxPoints = 0) const;
    qsizetype historyBytes() const; // every object's rings plus the shared tick times
    qsizetype tickTimeBytes() const;

    // Round trips and commands of the last full tick (for benchmarks).
    int lastTickRoundTrips() const { return m_lastRoundTrips; }
    qint64 lastTickCommands() const { return m_lastCommands; }
    qint64 lastTickWallMs() const { return m_lastTickMs; }
    int lastTickObjectsRead() const { return m_lastObjectsRead; }
    TickCost lastTickCost() const
    {
        return {m_lastTickMs, m_lastCommands, m_lastRoundTrips, m_lastObjectsRead, m_lastTickUs};
    }

    // The tracked objects whose published state was replaced (read again,
    // marked stale or gone) between the snapshot of the last call
    // (sinceSequence; 0 before the first) and the latest one (sequence):
    // their indices in the latest snapshot's objects, perhaps repeated.
    // Every other object has there the very state (pointer) it had then,
    // or a state read again whose figures are where the earlier one's
    // motions put them (budgeted polling's re-read of an idle object: the
    // same values, durations within DurationSlackMs, moving the same way;
    // checked only once someone has taken the list).
    // all: objects came, went or moved, or more were replaced than listed:
    // compare every one. For one consumer calling it at each tickFinished
    // (the history writer: HistoryStore::append); monitor tells monitors
    // apart (a reconnect makes a new one).
    using Replaced = ReplacedLog::Taken;
    Replaced takeReplaced();

Q_SIGNALS:
    void snapshotReady(const gatehouse::Snapshot &snapshot);
    // After every full tick (every object read), with the snapshot it made.
    // A tick whose replies did not arrive (connection lost) finishes too:
    // its objects keep their last reading and turn stale after two ticks.
    void tickFinished(const gatehouse::Snapshot &snapshot);
    // A tick came while the last one's replies are still outstanding (server
    // stopped or asleep: socket open, no reply); the snapshot marks what is
    // stale. Nothing is sent: requests never pile up behind a silent server.
    void tickOverdue(const gatehouse::Snapshot &snapshot);
    void objectsFound(const QList<gatehouse::PatternObject> &objects);
    void discoveryProgress(qint64 scanned, qint64 total);
    void discoveryFinished(bool cancelled);
    void failed(const QString &message);

private:
    struct Tracked
    {
        PatternKind kind; // the object and its reading live in m_states only
        const PatternUnit *unit = nullptr;
        TrackState track; // what the unit keeps across readings
        qint64 firstSeenMs = 0;
        HistoryRing history;
        qint64 validUntilMs = 0; // PatternUnit::validUntilMs of the last reading
        qint64 completionsAtTick = 0;
        qint64 leftAtMs = -1; // polling: server time TrackState::leftInFlight was last taken
        qint64 leftAtLast = 0;
        double throughputPerS = -1; // -1: unknown (needs keyspace events)
        qint64 freshAtMs = -1;      // m_clock ms when its reading was last known current
        qint64 readAtServerMs = -1; // server time of its last reading that arrived
        qint64 hotUntilMs = 0;      // server ms: read every tick until then (budgeted polling)
        qint64 observeUntilMs = 0;  // server ms: its behaviour is noted until then; 0: not
        // While observeUntilMs > 0 only (autodetected objects, for a few
        // ticks): most objects never have one, and a Tracked is kept per
        // object for as long as it is shown.
        std::shared_ptr<BehaviourTrack> behaviour;
        int world = 0; // ServerStatus::World::generation of its last reading
        bool dirty = false;
        bool stale = false;
    };
    // A candidate read for its behaviour (Options::behaviourTicks).
    // Figures kept per sample at most (PatternUnit::figures()).
    static constexpr int MaxFigures = HistoryRing::MaxFigures;

    // Server facts (monitortopology.cpp): version, role, clock, keyspace
    // events, read on every (re)connect; then the reading starts.
    void readServerFacts();
    void applyServerInfo(const RedisValue &server, const RedisValue &replication,
                         const RedisValue &dbSize);
    void startReading();
    // The offset of the server's clock (TIME sent at sentAt, answered by
    // receivedAt; local ms since the epoch).
    void setServerClock(qint64 serverMs, qint64 sentAt, qint64 receivedAt);
    // A Cluster: the node list from the client's topology, then each
    // node's INFO figures (one INFO per node, not per tick).
    void applyTopology(const Topology &topology);
    void applyNodes(const Topology &topology); // m_server.nodes, m_nodeAddresses
    void readNodeInfo();
    // Keyspace events (monitorevents.cpp): subscribes when the server's
    // notify-keyspace-events (CONFIG GET reply) covers the patterns, else
    // notes why the monitor polls.
    void followEventsConfig(const RedisValue &config);
    void subscribeEvents(const QByteArray &flags);
    // Subscribes again when the masters changed (failover, new master).
    void followEventMasters(const Topology &topology);
    static QStringList eventMasters(const Topology &topology); // sorted addresses
    void startDiscovery();
    void onDiscoveryFinished(bool cancelled);
    // A finished scan's candidates, ordinary families and permissions.
    void adoptScan();
    void addObjects(const QList<PatternObject> &objects, bool dirty);
    void indexKeys(int index);
    // Refresh planning (monitorrefresh.cpp).
    void tick();
    // With keyspace events live: what events or time may have changed, the
    // detailed object, and the rolling sweep's slice.
    QList<int> sweepSelection();
    void checkEventsConfig();
    void applyEventsConfig(bool covered, const QByteArray &flags);
    struct ProbeRun
    {
        QList<int> indices;
        qsizetype next = 0; // first index not sent yet
        int outstanding = 0;
        bool fullTick = false;
        bool failed = false;        // some replies did not arrive (connection lost)
        bool carriesWrites = false; // it re-reads an object a keyspace event marked
        int world = 0;              // ServerStatus::World::generation when sent
        // Budgeted polling: one batch at a time, spread over most of the
        // interval, so another client never waits behind a whole tick.
        bool paced = false;
        int batchesSent = 0;
        qint64 spacingMs = 0;
        qint64 busyNs = 0; // round-trip time of its batches (paced: one in flight)
        // Each batch's objects and round trip (us).
        QList<std::pair<qsizetype, double>> trips;
    };
    // One batch of a run in flight: what its replies answer.
    struct SentBatch
    {
        QList<int> indices; // into m_tracked
        // The states probed: their objects are what the replies answer, even
        // if a family gains members before the replies arrive.
        QList<ObjectList::Ptr> probed;
        QList<int> counts; // commands per object
        QList<ProbeContext> contexts;
        bool withTime = false; // TIME first
        // After TIME: DBSIZE and INFO commandstats (noteKeyspace), taken
        // only if no reconnect came between (m_readyEpoch).
        bool withDbSize = false;
        bool withCommandStats = false;
        int readyEpoch = 0;
        qint64 sentAt = 0; // local ms since the epoch
        qint64 sentNs = 0; // m_clock ns
    };
    // Probes (monitorprobe.cpp).
    void probe(const QList<int> &indices, bool fullTick, bool paced = false);
    // Budgeted polling (Options::budgetPercent): the objects this tick reads.
    QList<int> budgetedSelection();
    bool budgeted() const;
    void sendBatch(const std::shared_ptr<ProbeRun> &run);
    void receiveBatch(const std::shared_ptr<ProbeRun> &run, const SentBatch &sent,
                      const QList<RedisValue> &replies);
    // The replies of a batch, each object's probe's and follow-up's, read.
    void absorbBatch(const std::shared_ptr<ProbeRun> &run, const SentBatch &sent,
                     const QList<QList<RedisValue>> &parts, qint64 arrivedMs);
    // The run's next batch (paced: at its slot), or finishRun once none is left.
    void continueRun(const std::shared_ptr<ProbeRun> &run);
    void finishRun(const ProbeRun &run);
    // What one object's probes cost the server (budgeted polling), from a
    // finished full tick.
    void measureCost(const ProbeRun &run, bool failed);
    // A full tick's sample of every object's figures (monitorhistory.cpp),
    // and the throughput figures derived from them.
    void sampleHistory();
    double nextThroughput(Tracked &t, const QList<Figure> &figures);
    void absorb(int index, const PatternObject &probed, const QList<RedisValue> &replies,
                const ProbeContext &context);
    // Asks for a snapshot: the state changed. Emissions of snapshotReady
    // are coalesced to at most one per PublishIntervalMs, each with the
    // latest state (m_pacer).
    void publish();
    // A routine snapshot (a tick's readings with keyspace events live, the
    // server's figures read in the background): with the next change, or
    // after RoutineIntervalMs without any publication.
    void publishRoutine();
    // The pacer's emission: the snapshot made afresh if the state changed.
    void emitSnapshot();
    // Makes m_snapshot from the current state (a new sequence number).
    void refreshSnapshot();
    // The published history of the object keyed key (cached until the next
    // sample); nullptr when it is not tracked.
    ObjectHistoryPtr historyOf(const QByteArray &key);
    // The attention list for s (rankAttention), re-ranked at most twice a second.
    std::shared_ptr<const QList<AttentionItem>> attention(const Snapshot &s);
    // Marks objects not refreshed for two ticks stale (and back); true when
    // any changed.
    bool updateStaleness();
    // The server is a Redis Sentinel, though the endpoint names a data
    // server: failed, with the URL that reaches its master.
    void sayWrongServer();
    // The reading connection lost: every object stale at once, events not
    // live, a full pass once back.
    void distrustWhileLost();
    // The published state of tracked object i, rebuilt after it changed.
    // listed false: not in takeReplaced()'s list (a re-read that confirms
    // the last state's figures).
    void restate(int index, std::optional<Reading> reading = std::nullopt,
                 std::optional<PatternObject> object = std::nullopt, bool listed = true);
    const PatternObject &objectAt(int index) const { return m_states.at(index)->object; }
    // Behaviour (Options::behaviourTicks): the verdict of tracked object
    // index's notes into its evidence; one that falls under the threshold
    // is dropped (dropDemoted, once no reply is outstanding: runs hold
    // indices) into the candidates or the ordinary keys (m_watch).
    void applyBehaviour(int index);
    void dropDemoted();
    // Stops tracking the objects at these indices (no probe run in flight).
    void removeTracked(QList<int> indices);
    // The candidates and ordinary keys published, as the behaviour watch
    // left them (BehaviourWatch::applyVerdicts).
    void applyVerdicts();
    // The scan's candidates, watched for their behaviour.
    void watchCandidates();
    BehaviourWatch::Host behaviourHost();
    // Keyspace events live or not (m_server.eventsLive), and since when.
    void setEventsLive(bool live);
    // Events were live without a break since server time atMs (an earlier
    // reading's send): what they did not report between then and now did
    // not happen.
    bool eventsHeardSince(qint64 atMs) const;
    void onEvent(const QByteArray &pattern, const QByteArray &channel, const QByteArray &event);
    qint64 serverNow() const;

    RedisClient *m_client;
    Options m_options;
    std::unique_ptr<Discovery> m_discovery;
    std::unique_ptr<RedisSubscriber> m_subscriber;
    // A Cluster's other masters: keyspace events are published by the node
    // that holds the key, so every master has a subscriber.
    std::vector<std::unique_ptr<RedisSubscriber>> m_moreSubscribers;
    QStringList m_nodeAddresses;              // "host:port" of each m_server.nodes entry (Cluster)
    DurabilityReader *m_durability = nullptr; // a child
    QStringList m_eventMasters; // the masters subscribed to (Cluster, Sentinel), sorted
    QByteArray m_eventFlags;    // notify-keyspace-events when subscribed
    QElapsedTimer m_nodeInfoClock;
    // Re-reads after keyspace events go on their own connection, so they
    // never wait behind a full tick's pipeline.
    std::unique_ptr<RedisClient> m_eventClient;
    // Children, so moveToThread() takes them along.
    QTimer m_tickTimer{this};
    QTimer m_rescanTimer{this};
    QTimer m_eventTimer{this};
    QObject m_context{this};
    // DESIGN.md: snapshots reach the GUI at most ten times a second.
    SnapshotPacer m_pacer{&m_context, PublishIntervalMs, RoutineIntervalMs, [this] {
                              emitSnapshot();
                          }};

    QHash<PatternKind, QList<Figure>> m_figures; // per kind, built once
    QList<Tracked> m_tracked;
    QList<ObjectList::Ptr> m_states;       // the published state of each tracked object
    QHash<QByteArray, int> m_byKey;        // every key of every object -> index
    QHash<QByteArray, int> m_byPrimaryKey; // object key -> index
    QByteArray m_detailKey;
    QList<QByteArray> m_watched;
    QHash<QByteArray, ObjectHistoryPtr> m_historyCache;
    std::shared_ptr<const QList<AttentionItem>> m_attention;
    qint64 m_attentionAtMs = -1; // m_clock ms of the last ranking; -1: due
    ServerStatus m_server;
    // What the last discovery could not do for lack of permissions (Discovery).
    QStringList m_permissionNotes;
    QStringList m_missingPermissions;
    bool m_complete = true;
    // Autodetection's candidates and ordinary keys, as of the last discovery.
    std::shared_ptr<const QList<Candidate>> m_candidates;
    std::shared_ptr<const QList<OtherFamily>> m_other;
    Snapshot m_snapshot;
    const quint64 m_monitorId;
    ReplacedLog m_replaced;       // takeReplaced()
    bool m_snapshotFresh = false; // m_snapshot reflects every change so far
    quint64 m_sequence = 0;
    qint64 m_offsetMs = 0; // server clock - local clock
    // The round trip of the TIME the offset was taken from; -1 none yet.
    // A TIME answered late (a stalled server answers everything at once
    // when it wakes) puts the midpoint far from when it ran: its offset is
    // not taken while a much quicker one stands (setServerClock).
    qint64 m_clockRttMs = -1;
    static constexpr qint64 ClockRttSlackMs = 50;
    // A batch answered this much later than its tick planned (by the
    // server's own TIME, run just before its probes: a stalled server) is
    // not taken; its objects are read again at once (receiveBatch).
    static constexpr qint64 LateReplyMs = 100;
    bool m_tickInFlight = false;
    bool m_started = false;
    bool m_paused = false;
    int m_lastRoundTrips = 0;
    int m_lastObjectsRead = 0;
    bool m_fullPassDue = true; // until every object was read with events live
    qsizetype m_sweepNext = 0;
    bool m_eventsCovered = false;    // notify-keyspace-events covers the patterns
    qint64 m_eventsLiveSinceMs = -1; // server time events went live; -1: not live
    QElapsedTimer m_eventsChecked;
    qint64 m_lastCommands = 0;
    qint64 m_lastTickMs = 0;
    qint64 m_lastTickUs = 0;
    // A Cluster's nodes read every tick (the keyspace counts): when each one
    // last answered (m_clock), and since when one has not answered what it
    // was asked. A node asleep (SIGSTOP) keeps its socket open: its reading
    // age grows, and it stops counting as up; one that answered all it was
    // asked is not aged by another node's stall.
    QHash<QString, qint64> m_nodeAnsweredAtMs;
    QHash<QString, qint64> m_nodeAskedAtMs;
    QElapsedTimer m_tickClock;
    QElapsedTimer m_clock;       // local monotonic time for staleness
    qint64 m_lastReplyAtMs = -1; // m_clock ms of the last probe reply that arrived
    QList<qint64> m_tickTimes;   // server time of each full tick kept in history
    qint64 m_lastTickAtMs = 0;
    // Budgeted polling: its plan and the server time the probes cost,
    // measured from round trips (an upper bound: it includes the loopback),
    // and what the last tick spent.
    RefreshBudget m_budget;
    double m_lastSharePercent = -1;
    // Behaviour: probe runs not finished (their indices must stay valid);
    // tracked objects to drop once none is; the candidates watched and what
    // the watch decided (a rescan finds them as it left them).
    int m_runsInFlight = 0;
    bool m_dismissGone = false; // dismissGone() asked for while runs were in flight
    QSet<int> m_demote;
    BehaviourWatch m_watch;
    // When memory goes back to the OS (malloc_trim), after large passes.
    MemoryTrim m_trim{&m_context};

    // A new world (monitorworld.cpp). The server behind the connection is
    // not the one read before: a Sentinel switched master, a Cluster master
    // was replaced, or the server restarted (its run_id changed). A promoted
    // replica may lack the old master's last writes, and a restart may have
    // lost everything, so nothing read before is trusted: every object is
    // marked stale and re-read at once, the keyspace is scanned again, the
    // keyspace-event subscription is made anew and verified on the master
    // (PUBSUB NUMPAT), and ServerStatus::world says when the readings are
    // whole again.
    void noteServerIdentity(const QString &address, const QByteArray &runId, qint64 uptimeS,
                            qint64 keys);
    void beginNewWorld(const QString &reason, bool restart, qint64 keysAfter = -1,
                       qint64 uptimeS = -1);
    // What every new world does, a master switch's or a keyspace's (below):
    // its ServerStatus::World, and every object stale until read again
    // (dirty, its behaviour forgotten), a full pass and a rescan due.
    void distrustReadings(const QString &kind, const QString &reason, qint64 keysBefore,
                          qint64 keysAfter, qint64 uptimeS);
    // Sentinel: the sentinels name a new master before the connection has
    // reached it. The new world begins at once (everything stale, events not
    // live), but nothing is read until INFO on the connection shows the
    // master the sentinels name (its run_id, or a master other than the old
    // one): a read sent meanwhile may reach the demoted master.
    void awaitMaster(const QString &address, const QByteArray &runId, const QString &was);
    void checkAwaitedMaster();
    void resumeReading();
    struct AwaitedMaster
    {
        QString address;        // empty: reading
        QByteArray runId;       // as the sentinels know it; may be empty
        QByteArray runIdWas;    // of the server read before the switch
        bool subscribe = false; // events were on: subscribe once reading
        bool checking = false;  // INFO on its way
    } m_awaited;
    static constexpr int AwaitCheckMs = 500;
    void checkWorldWhole();
    // The same server, another keyspace: FLUSHALL, FLUSHDB and SWAPDB empty
    // or replace the database without one keyspace event, so with events
    // live every reading projected until PatternUnit::validUntilMs would go
    // on showing keys that are gone (the sweep finds them one by one). Every
    // full tick reads, with its TIME, the node's DBSIZE and INFO
    // commandstats (Cluster: each master's; together a few tens of us of
    // the server's time, no key touched) and begins a new world of kind
    // "flush" (every object stale, read again at once, the keyspace scanned
    // again; the subscription stays) when FLUSHALL, SWAPDB, or a FLUSHDB
    // that emptied this database ran since the tick before, or, where INFO
    // is refused and events cover every key, when the key count fell by half
    // or more (at least MinKeysForFall keys before) beyond the deletions
    // keyspace events announced. While such a world is read again, further
    // counts are only recorded (a Cluster's masters each see one FLUSHALL).
    struct KeyspaceMark
    {
        qint64 keys = -1;          // DBSIZE; -1 unknown
        qint64 deletionsHeard = 0; // m_deletionsHeard when keys was read
        // Calls since the server started (INFO commandstats); -1 unknown.
        qint64 flushAll = -1;
        qint64 flushDb = -1;
        qint64 swapDb = -1;
    };
    static constexpr qint64 MinKeysForFall = 20;
    // Read in the tick's first batch, after TIME (standalone; Sentinel
    // reading the master); else each master's (Cluster), or where its keys
    // are read (--read-from replicas), with the tick's TIME.
    bool keyspaceInTick() const;
    void readNodeKeyspaces();
    void noteKeyspace(const QString &node, const RedisValue &dbSize,
                      const RedisValue &commandStats);
    QHash<QString, KeyspaceMark> m_keyspace; // per node read; "": the connection's server
    qint64 m_deletionsHeard = 0;             // del, expired, evicted, move_from, rename_from events
    // Reconnects seen (RedisClient::ready). A count sent before the last one
    // (held while connecting, sent ahead of the server's facts) may be a
    // restarted server's: not compared, and not its keysBefore.
    int m_readyEpoch = 0;
    bool m_dbSizeRefused = false; // refused (ACL): not asked again (ACL LOG would fill)
    bool m_commandStatsRefused = false;
    // Not a new server, but a world that changed under the console: the key
    // count fell by more than half between two scans (eviction, mass
    // expiry), or most objects vanished in one tick. Announced as a world
    // (kind "keys" or "objects"), with nothing to distrust.
    void noteKeyCount(qint64 keys);
    void noteVanished();
    void announceWorld(const QString &kind, const QString &reason, qint64 keysBefore,
                       qint64 keysAfter);
    int m_goneObjects = 0; // gone after the last full tick
    void verifyEvents();
    QByteArray m_runId;           // of the server read last (INFO server)
    QString m_runAddress;         // its address
    QStringList m_knownMasters;   // the masters holding slots (Sentinel: the one) as last seen
    qint64 m_lastDbSize = -1;     // DBSIZE of the last discovery, server facts or tick
    bool m_worldRescanned = true; // the rescan of the current world finished
    bool m_tickAgain = false;     // a new world began while a tick was in flight

    // Keys written since the last scan that no object holds, judged as
    // their keyspace events arrive (autodetecting); what it finds is added.
    EventKeyJudge::Host eventKeyHost();
    EventKeyJudge m_eventKeys;
};

} // namespace gatehouse
