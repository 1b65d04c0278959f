// SPDX-License-Identifier: MIT
#include "monitor.h"

#include "attention.h"
#include "durabilityreader.h"

#include <patterns/patternregistry.h>
#include <redis/redisrouter.h>
#include <redis/redissubscriber.h>
#include <redis/sentinelwatch.h>
#include <redis/serveridentity.h>
#include <redis/serverinfo.h>

#include <QDateTime>
#include <QSet>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <numeric>

#ifdef __GLIBC__
#include <malloc.h>
#endif

namespace gatehouse {

namespace {

QByteArray keyspacePrefix(int db)
{
    return "__keyspace@" + QByteArray::number(db) + "__:";
}

// notify-keyspace-events publishes keyspace messages for the commands the
// patterns use (K plus A, or the classes of every type involved).
bool eventsCover(const QByteArray &flags)
{
    if (!flags.contains('K'))
        return false;
    if (flags.contains('A'))
        return true;
    for (char c : {'g', '$', 'l', 'z', 'h', 'x'}) {
        if (!flags.contains(c))
            return false;
    }
    return true;
}

// A library queue's throughput (jobs finished per second) over the last
// minute of samples: the rise of the figures its throughput chart charts
// per minute (its finished and failed counts), a fall (a clean, a library
// trimming its finished jobs) counting as none, as the chart counts it.
// ring's newest sample is at nowMs; the ones before it at tickTimes' last.
// -1 when the unit charts no such figure, or the samples span under 10 s.
double finishedPerS(const PatternUnit &unit, const QList<Figure> &figures, const HistoryRing &ring,
                    const QList<qint64> &tickTimes, qint64 nowMs)
{
    constexpr qint64 SpanMs = 60000;
    constexpr qint64 MinSpanMs = 10000;
    // The figures, once per unit (a pointer lookup per object and tick: no
    // lock, no charts built on a tick of a million objects).
    thread_local QHash<const PatternUnit *, QList<int>> doneOf;
    auto it = doneOf.constFind(&unit);
    if (it == doneOf.cend()) {
        QList<int> done;
        for (const Chart &c : unit.charts()) {
            for (const Chart::Series &series : c.series) {
                if (!series.perMinute)
                    continue;
                for (int f = 0; f < figures.size(); ++f) {
                    if (figures.at(f).id == series.figure && !done.contains(f))
                        done << f;
                }
            }
        }
        it = doneOf.insert(&unit, done);
    }
    const QList<int> &done = *it;
    if (done.isEmpty() || ring.size() < 2)
        return -1;
    double rise = 0;
    qint64 from = nowMs;
    for (int k = 1; k < ring.size() && k <= tickTimes.size(); ++k) {
        const qint64 at = tickTimes.at(tickTimes.size() - k);
        if (at < nowMs - SpanMs)
            break;
        const int newer = ring.size() - k, older = newer - 1;
        // The newest sample is at nowMs, the ones before it at tickTimes' last.
        const qint64 newerAt = k == 1 ? nowMs : tickTimes.at(tickTimes.size() - k + 1);
        for (int f : done) {
            if (f >= ring.figures())
                continue;
            rise += std::max(0.0,
                             double(ring.at(f, newer, newerAt)) - double(ring.at(f, older, at)));
        }
        from = at;
    }
    return nowMs - from >= MinSpanMs ? rise * 1000.0 / double(nowMs - from) : -1;
}

// Monitor::Replaced::monitor: distinct for every monitor of the process.
quint64 nextMonitorId()
{
    static std::atomic<quint64> s_next{1};
    return s_next.fetch_add(1);
}
} // namespace

Monitor::Monitor(RedisClient *client, Options options, QObject *parent)
    : QObject(parent)
    , m_client(client)
    , m_options(std::move(options))
    , m_monitorId(nextMonitorId())
{
    NodeStatus node;
    node.address = m_client->endpoint().displayUrl();
    node.connection = {m_client->state(), m_client->errorString(), m_client->nextAttemptAtMs()};
    m_server.nodes = {node};
    m_server.intervalMs = m_options.intervalMs;
    m_server.readFrom = m_client->endpoint().readFromReplicas ? QStringLiteral("replicas")
                                                              : QStringLiteral("master");
    m_clock.start();
    m_tickTimer.setInterval(m_options.intervalMs);
    connect(&m_tickTimer, &QTimer::timeout, this, &Monitor::tick);
    m_rescanTimer.setInterval(std::max(1000, m_options.rescanMs));
    connect(&m_rescanTimer, &QTimer::timeout, this, [this] {
        if (!m_paused && (!m_discovery || !m_discovery->isRunning()))
            startDiscovery();
    });
    m_eventTimer.setSingleShot(true);
    m_eventTimer.setInterval(m_options.eventDelayMs);
    connect(&m_eventTimer, &QTimer::timeout, this, [this] {
        if (m_paused)
            return; // setPaused(false) reads what was marked meanwhile
        QList<int> dirty;
        for (int i = 0; i < m_tracked.size(); ++i) {
            if (m_tracked.at(i).dirty)
                dirty.append(i);
        }
        if (!dirty.isEmpty())
            probe(dirty, false);
    });
    m_publishTimer.setSingleShot(true);
    connect(&m_publishTimer, &QTimer::timeout, this, &Monitor::emitSnapshot);
    // The connection's state travels in the snapshot: the console shows it
    // from there, as a structure (never parsed out of a sentence).
    connect(m_client, &RedisClient::stateChanged, this,
            [this](RedisConnection::State state, const QString &message, qint64 nextAttemptAtMs) {
                m_server.nodes[0].connection = {state, message, nextAttemptAtMs};
                publish();
            });
    connect(m_client, &RedisClient::ready, this, [this] {
        if (m_started)
            readServerFacts(); // after a reconnect: version or role may have changed
    });
    connect(m_client, &RedisClient::topologyChanged, this, &Monitor::applyTopology);
    m_durability = new DurabilityReader(m_client, this);
    m_durability->setMasters({m_client->endpoint().address()});
    connect(m_durability, &DurabilityReader::read, this,
            [this](const QString &address, const Durability &d) {
                const qsizetype i = m_server.mode == QLatin1String("standalone")
                                        ? 0
                                        : m_nodeAddresses.indexOf(address);
                if (i < 0 || i >= m_server.nodes.size())
                    return;
                m_server.nodes[i].durability = d;
                publishRoutine(); // read every 2 s: never ahead of a write's snapshot
            });
    if (m_client->topology().isCluster() || m_client->topology().isSentinel())
        applyTopology(m_client->topology());
}

void Monitor::applyTopology(const Topology &topology)
{
    m_server.mode = topology.modeId();
    if (!topology.isCluster() && !topology.isSentinel())
        return;
    // Sentinel: the connection follows the master, whichever node that is now.
    const QString seedAddress = topology.isSentinel() ? topology.nodes.value(0).address()
                                                      : m_client->endpoint().address();
    QHash<QString, NodeStatus> known;
    for (qsizetype i = 1; i < m_server.nodes.size() && i < m_nodeAddresses.size(); ++i)
        known.insert(m_nodeAddresses.at(i), m_server.nodes.at(i));
    // Masters in slot order, each followed by its replicas.
    QList<int> order;
    for (int m : topology.masters()) {
        order << m;
        for (int i = 0; i < topology.nodes.size(); ++i) {
            if (topology.nodes.at(i).role != QLatin1String("master")
                && topology.nodes.at(i).masterId == topology.nodes.at(m).id)
                order << i;
        }
    }
    for (int i = 0; i < topology.nodes.size(); ++i) {
        if (!order.contains(i))
            order << i;
    }
    QList<NodeStatus> nodes{m_server.nodes.value(0)};
    QStringList addresses{seedAddress};
    for (int i : order) {
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
        if (seed) {
            nodes.first() = n;
        } else {
            nodes.append(n);
            addresses.append(t.address());
        }
    }
    m_server.nodes = nodes;
    m_nodeAddresses = addresses;
    QStringList masters;
    for (int m : topology.masters())
        masters << topology.nodes.at(m).address();
    m_durability->setMasters(masters);
    QStringList sortedMasters = masters;
    sortedMasters.sort();
    const bool switched = topology.isCluster() && m_started && !m_knownMasters.isEmpty()
                          && sortedMasters != m_knownMasters;
    const QStringList before = std::exchange(m_knownMasters, sortedMasters);
    if (switched) // a replica promoted (it may lack the last writes), a master added
        beginNewWorld(
            QStringLiteral("The Cluster's masters changed from %1 to %2.")
                .arg(before.join(QStringLiteral(", ")), sortedMasters.join(QStringLiteral(", "))),
            false);
    else
        followEventMasters(topology);
    publish();
    if (m_started)
        readNodeInfo();
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

Monitor::~Monitor() = default;

qint64 Monitor::serverNow() const
{
    return QDateTime::currentMSecsSinceEpoch() + m_offsetMs;
}

void Monitor::start()
{
    m_started = true;
    if (m_client->state() == RedisConnection::State::Ready)
        readServerFacts();
}

void Monitor::stop()
{
    m_started = false;
    m_durability->stop();
    m_tickTimer.stop();
    m_rescanTimer.stop();
    m_eventTimer.stop();
    if (m_discovery)
        m_discovery->cancel();
    m_subscriber.reset();
    m_moreSubscribers.clear();
    m_eventClient.reset();
    m_keyDiscovery.reset();
    m_unknownKeys.clear();
    m_unknownKeySet.clear();
    m_judgingKeys.clear();
    m_server.eventsLive = false;
    m_fullPassDue = true;
}

void Monitor::setPaused(bool paused)
{
    if (m_paused == paused)
        return;
    m_paused = paused;
    m_server.paused = paused;
    m_snapshotFresh = false;
    if (paused) {
        m_durability->stop();
    } else if (m_started && m_tickTimer.isActive()) {
        if (m_options.readDurability)
            m_durability->start();
        if (std::any_of(m_tracked.cbegin(), m_tracked.cend(),
                        [](const Tracked &t) { return t.dirty; }))
            m_eventTimer.start();
    }
    publish();
}

void Monitor::refreshNow()
{
    QList<int> all(m_tracked.size());
    std::iota(all.begin(), all.end(), 0);
    probe(all, true);
}

void Monitor::cancelDiscovery()
{
    if (m_discovery)
        m_discovery->cancel();
}

void Monitor::setWatched(const QList<QByteArray> &keys)
{
    if (keys == m_watched)
        return;
    m_watched = keys;
    publish(); // their history in the next snapshot
}

void Monitor::setDetailKey(const QByteArray &key)
{
    m_detailKey = key;
    const auto it = m_byKey.constFind(key);
    if (it != m_byKey.cend()) {
        m_tracked[*it].dirty = true;
        m_eventTimer.start();
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
            const qint64 receivedAt = QDateTime::currentMSecsSinceEpoch();
            m_server.notes.clear();
            if (r.at(0).isError()) {
                m_server.notes << QStringLiteral("Server version unknown: INFO is not permitted "
                                                 "(%1).")
                                      .arg(r.at(0).errorMessage());
            } else {
                const QHash<QByteArray, QByteArray> info = parseInfo(r.at(0).bytes());
                const ServerIdentity id = ServerIdentity::fromInfo(info);
                m_server.nodes[0].version = id.version;
                m_server.nodes[0].serverName = id.name;
                // Is it the server read before? (a switch, a restart)
                noteServerIdentity(m_client->endpoint().address(), info.value("run_id"),
                                   info.value("uptime_in_seconds", "-1").toLongLong(),
                                   r.value(4).isError() ? -1 : r.value(4).toInteger());
            }
            if (!r.at(1).isError())
                m_server.nodes[0].role
                    = QString::fromUtf8(parseInfo(r.at(1).bytes()).value("role"));
            if (m_client->endpoint().readFromReplicas && !m_client->topology().isCluster()
                && !m_client->topology().isSentinel())
                m_server.notes << QStringLiteral("--read-from replicas: a standalone server has no "
                                                 "replicas the console follows; reads go to it.");
            const qint64 serverMs = serverTimeMs(r.at(3));
            if (serverMs > 0) {
                m_offsetMs = serverMs - (sentAt + receivedAt) / 2;
                m_server.clockOffsetMs = m_offsetMs;
                m_server.nodes[0].clockOffsetMs = m_offsetMs;
                m_server.timeMs = serverMs;
            } else {
                m_server.notes << QStringLiteral("TIME is not permitted; window maths use the "
                                                 "local clock (%1).")
                                      .arg(r.at(3).errorMessage());
            }
            const RedisValue &config = r.at(2);
            if (config.isError()) {
                m_server.notes << (m_options.useEvents
                                       ? QStringLiteral("CONFIG is not permitted (%1): keyspace "
                                                        "events unknown; polling every %2 ms.")
                                             .arg(config.errorMessage())
                                             .arg(m_options.intervalMs)
                                       : QStringLiteral("CONFIG is not permitted (%1): keyspace "
                                                        "events unknown.")
                                             .arg(config.errorMessage()));
            } else if (m_options.singleReading) {
                m_server.notes << QStringLiteral("A single reading: keyspace events not used.");
            } else if (!m_options.useEvents) {
                m_server.notes << QStringLiteral("Keyspace events not used; polling every %1 ms.")
                                      .arg(m_options.intervalMs);
            } else {
                const QByteArray flags = config.size() == 2 ? config.at(1).bytes() : QByteArray();
                if (eventsCover(flags)) {
                    subscribeEvents(flags);
                } else {
                    m_server.notes
                        << QStringLiteral("Keyspace events are off (notify-keyspace-events is "
                                          "\"%1\"); polling every %2 ms. Enabling them is an "
                                          "operator action.")
                               .arg(QString::fromUtf8(flags))
                               .arg(m_options.intervalMs);
                }
            }
            readNodeInfo();
            if (m_options.readDurability && !m_paused)
                m_durability->start();
            if (m_tracked.isEmpty() && (!m_discovery || !m_discovery->isRunning()))
                startDiscovery();
            if (!m_tickTimer.isActive()) {
                m_tickTimer.start();
                if (m_options.rescanMs > 0)
                    m_rescanTimer.start();
            }
        });
}

QStringList Monitor::eventMasters(const Topology &topology)
{
    QStringList masters;
    if (topology.isCluster()) {
        for (int i : topology.masters())
            masters << topology.nodes.at(i).address();
    } else if (topology.isSentinel()) {
        masters << topology.nodes.value(0).address();
    }
    masters.sort();
    return masters;
}

void Monitor::followEventMasters(const Topology &topology)
{
    // Keyspace events are published by the master that runs the write: after
    // a failover (or a master added) the subscriptions move to the masters
    // there are now. What changed in between is caught by a full pass.
    if (!m_subscriber || eventMasters(topology) == m_eventMasters)
        return;
    m_subscriber.reset();
    m_moreSubscribers.clear();
    // The re-reading connection too: its own slot map may still name the
    // lost master, and a read sent there would be lost with it.
    m_eventClient.reset();
    m_server.eventsLive = false;
    m_fullPassDue = true;
    subscribeEvents(m_eventFlags);
    // Every object once now, not at the next tick: writes made on the new
    // master before the subscription published events no one heard.
    for (Tracked &t : m_tracked)
        t.dirty = true;
    if (!m_tracked.isEmpty())
        m_eventTimer.start();
}

void Monitor::subscribeEvents(const QByteArray &flags)
{
    if (m_subscriber)
        return;
    m_eventFlags = flags;
    m_eventMasters = eventMasters(m_client->topology());
    // A Cluster: one subscriber per master (events are node-local).
    QList<RedisEndpoint> masters;
    const Topology topology = m_client->topology();
    if (topology.isCluster()) {
        for (int i : topology.masters()) {
            RedisEndpoint ep = m_client->endpoint();
            ep.host = topology.nodes.at(i).host;
            ep.port = topology.nodes.at(i).port;
            ep.db = 0;
            ep.discoverTopology = false;
            masters.append(ep);
        }
    }
    m_subscriber = std::make_unique<RedisSubscriber>(masters.isEmpty() ? m_client->endpoint()
                                                                       : masters.first());
    if (!m_eventClient) {
        m_eventClient = std::make_unique<RedisClient>(m_client->endpoint());
        m_eventClient->open();
    }
    const QByteArray prefix = keyspacePrefix(m_client->endpoint().db);
    QList<QByteArray> patterns;
    if (m_options.profile && !m_options.profile->autodetect) {
        for (const QByteArray &glob : m_options.profile->eventGlobs())
            patterns.append(prefix + glob);
    } else {
        patterns.append(prefix + '*');
    }
    m_eventsCovered = true;
    m_eventsChecked.start();
    connect(m_subscriber.get(), &RedisSubscriber::subscribed, this, [this] {
        m_fullPassDue = true; // whatever changed before the subscription went unseen
        verifyEvents();       // live once the master counts the subscription
    });
    connect(m_subscriber.get(), &RedisSubscriber::stateChanged, this,
            [this](RedisConnection::State state, const QString &message) {
                if (state == RedisConnection::State::Ready)
                    return;
                m_fullPassDue = true;
                if (m_server.eventsLive) {
                    m_server.eventsLive = false;
                    m_server.notes << QStringLiteral("Keyspace events lost (%1); polling until "
                                                     "they are back.")
                                          .arg(message);
                }
            });
    connect(m_subscriber.get(), &RedisSubscriber::patternMessage, this, &Monitor::onEvent);
    m_subscriber->psubscribe(patterns);
    m_subscriber->open();
    for (qsizetype i = 1; i < masters.size(); ++i) {
        auto subscriber = std::make_unique<RedisSubscriber>(masters.at(i));
        connect(subscriber.get(), &RedisSubscriber::patternMessage, this, &Monitor::onEvent);
        connect(subscriber.get(), &RedisSubscriber::stateChanged, this,
                [this](RedisConnection::State state) {
                    if (state != RedisConnection::State::Ready)
                        m_fullPassDue = true; // events of that master missed: read everything
                });
        subscriber->psubscribe(patterns);
        subscriber->open();
        m_moreSubscribers.push_back(std::move(subscriber));
    }
}

void Monitor::onEvent(const QByteArray &, const QByteArray &channel, const QByteArray &event)
{
    const qsizetype colon = channel.indexOf("__:");
    if (colon < 0)
        return;
    const QByteArray key = channel.mid(colon + 3);
    auto it = m_byKey.constFind(key);
    if (it != m_byKey.cend()) {
        Tracked &t = m_tracked[*it];
        t.dirty = t.unit->rereadOnEvent(); // a busy token family: by the tick
        if (t.observeUntilMs > 0)
            noteEvent(t.behaviour, event);
        // A job leaves the processing list when a worker is done (LREM), or
        // when it is requeued or dead-lettered: the queue's throughput.
        if (t.unit->isCompletion(objectAt(*it), key, event))
            ++t.track.completions;
    } else if (std::optional<PatternObject> o
               = m_options.profile ? m_options.profile->objectFor(key) : std::nullopt) {
        addObjects({*o}, true);
    } else if (!m_options.profile || m_options.profile->autodetect) {
        noteUnknownKey(key, event); // judged at once, not at the next rescan
    }
    for (WatchedCandidate &w : m_watchedCandidates) {
        if (w.object.key == key || w.object.related.contains(key) || w.object.members.contains(key))
            noteEvent(w.behaviour, event);
    }
    if (!m_eventTimer.isActive())
        m_eventTimer.start();
}

void Monitor::setProfile(const std::optional<Profile> &profile)
{
    m_options.profile = profile;
    m_snapshotFresh = false; // its name is in the snapshot
    if (m_discovery && m_discovery->isRunning())
        m_discovery->cancel(); // replaced below: its replies are dropped with it
    if (m_started && m_client->state() == RedisConnection::State::Ready)
        startDiscovery();
    publish();
}

void Monitor::startDiscovery()
{
    m_discovery = std::make_unique<Discovery>(m_client, m_options.profile);
    m_discovery->setTopology(m_client->topology());
    connect(m_discovery.get(), &Discovery::objectsFound, this,
            [this](const QList<PatternObject> &objects) {
                addObjects(objects, true);
                Q_EMIT objectsFound(objects);
                if (!m_eventTimer.isActive())
                    m_eventTimer.start();
            });
    connect(m_discovery.get(), &Discovery::progress, this, [this](qint64 scanned, qint64 total) {
        m_snapshot.scanned = scanned;
        m_snapshot.total = total;
        Q_EMIT discoveryProgress(scanned, total);
    });
    connect(m_discovery.get(), &Discovery::finished, this, [this](bool cancelled) {
        if (m_options.profile && !m_options.profile->autodetect) { // families: all members
            for (const PatternObject &o : m_discovery->objects()) {
                if (!o.members.isEmpty())
                    addObjects({o}, false);
            }
        }
        if (!cancelled && (!m_options.profile || m_options.profile->autodetect)) {
            QList<Candidate> candidates = m_discovery->candidates();
            QList<OtherFamily> other = m_discovery->otherFamilies();
            applyVerdicts(candidates, other); // what behaviour showed stays so
            m_candidates = std::make_shared<const QList<Candidate>>(std::move(candidates));
            m_other = std::make_shared<const QList<OtherFamily>>(std::move(other));
            watchCandidates();
        }
        if (!cancelled) {
            m_permissionNotes = m_discovery->permissionNotes();
            m_missingPermissions = m_discovery->missingPermissions();
            m_complete = m_discovery->complete();
            m_worldRescanned = true;
            noteKeyCount(m_snapshot.total);
            // Keys written from now on are judged afresh (noteUnknownKey).
            m_judgedKeys.clear();
            m_familyTries.clear();
            m_unreadTries.clear();
            m_ordinaryFamilies.clear();
            if (m_other) {
                for (const OtherFamily &f : *m_other)
                    m_ordinaryFamilies.insert(f.family);
            }
        }
        m_discovery->releaseObjects(); // the monitor holds every object itself
        // Discovery's garbage and the unread states go back once the objects
        // were read (armTrim); a small keyspace's is not worth a trim.
        if (!cancelled && m_tracked.size() >= TrimAfterObjects) {
            qsizetype unread = m_tracked.size() - 1;
            while (unread >= 0 && m_tracked.at(unread).track.everRead)
                --unread;
            armTrim(unread >= 0 ? m_states.at(unread) : ObjectList::Ptr());
            // The behaviour watch's ticks re-read every object: each may
            // trim what the one before it replaced.
            m_trimFreeTicks = m_options.behaviourTicks + 2;
        }
        Q_EMIT discoveryFinished(cancelled);
        checkWorldWhole();
        publish();
    });
    connect(m_discovery.get(), &Discovery::failed, this, [this](const QString &message) {
        // A scan cut by a lost connection is not the operator's problem:
        // the next ready() (or the rescan timer) scans again.
        if (m_client->state() != RedisConnection::State::Ready)
            return;
        Q_EMIT failed(message);
    });
    m_discovery->start();
}

void Monitor::addObjects(const QList<PatternObject> &objects, bool dirty)
{
    const qint64 now = serverNow();
    // Discovery hands over every object at once: room for them and an eighth
    // more, not the doubling append would do (a Tracked is ~300 bytes, and
    // 30,000 objects would hold room for 60,000).
    if (const qsizetype n = m_tracked.size() + objects.size(); m_tracked.capacity() < n) {
        m_tracked.reserve(n + n / 8);
        m_states.reserve(n + n / 8);
    }
    for (const PatternObject &o : objects) {
        const auto at = m_byPrimaryKey.constFind(o.key);
        if (at != m_byPrimaryKey.cend() && m_tracked.at(*at).kind == o.kind) {
            Tracked &t = m_tracked[*at];
            PatternObject merged = objectAt(*at);
            if (t.unit->merge(merged, o)) {
                restate(*at, std::nullopt, std::move(merged));
                indexKeys(*at);
                // A family is re-read by the tick, not per member: a busy
                // family sees tens of new tokens a second, each a PTTL per
                // member.
                t.dirty |= dirty && t.unit->rereadOnEvent();
            }
            // Found again unchanged (a rescan): nothing to re-read. Marking
            // every object of a periodic rescan dirty would queue a re-read
            // of all of them ahead of the next keyspace event's.
            continue;
        }
        const bool autodetected = o.source == QLatin1String("autodetected");
        if (autodetected && m_demotedKeys.contains(o.key))
            continue; // its behaviour argued against it: a candidate now
        Tracked t;
        t.kind = o.kind;
        t.unit = &PatternUnit::of(o.kind);
        t.firstSeenMs = now;
        if (autodetected && m_options.behaviourTicks > 0 && !m_options.singleReading) {
            // Watched, and read every tick while watched (budgeted polling too).
            t.observeUntilMs = now + qint64(m_options.behaviourTicks) * m_options.intervalMs;
            t.hotUntilMs = t.observeUntilMs;
        }
        t.dirty = dirty;
        // Not read yet: stale too if no reading comes within two ticks.
        t.freshAtMs = m_clock.elapsed();
        t.readAtServerMs = now;
        if (!m_figures.contains(o.kind))
            m_figures.insert(o.kind, t.unit->figures().mid(0, MaxFigures));
        t.history = HistoryRing(int(m_figures.value(o.kind).size()), m_options.historyCapacity);
        {
            m_tracked.append(std::move(t));
            m_byPrimaryKey.insert(o.key, int(m_tracked.size() - 1));
        }
        restate(int(m_tracked.size() - 1), std::nullopt, o);
        indexKeys(int(m_tracked.size() - 1));
    }
}

void Monitor::indexKeys(int index)
{
    for (const QByteArray &k : objectAt(index).keys())
        m_byKey.insert(k, index);
}

void Monitor::tick()
{
    if (m_paused)
        return;
    if (m_tickInFlight) {
        // The server is slower than the interval, stopped or asleep: skip,
        // never pile up, but say how old the readings are.
        updateStaleness();
        refreshSnapshot();
        requestEmit();
        Q_EMIT tickOverdue(m_snapshot);
        return;
    }
    if (m_subscriber && m_eventsChecked.isValid()
        && m_eventsChecked.elapsed() >= m_options.eventsCheckMs)
        checkEventsConfig();
    probeCandidates();
    // Sentinel: a master and a few replicas, read as often as the sentinels.
    const qint64 nodeInfoMs = m_server.mode == QLatin1String("sentinel") ? SentinelWatch::RefreshMs
                                                                         : RedisRouter::RefreshMs;
    if (m_nodeInfoClock.isValid() && m_nodeInfoClock.elapsed() >= nodeInfoMs)
        readNodeInfo();
    const bool quiet = m_options.adaptive && m_server.eventsLive && !m_fullPassDue && m_subscriber
                       && m_subscriber->state() == RedisConnection::State::Ready;
    QList<int> read;
    if (!quiet && budgeted()) {
        m_fullPassDue = true;
        probe(budgetedSelection(), true, true);
        return;
    }
    if (!quiet) {
        m_fullPassDue = !m_server.eventsLive;
        m_server.budgetPercent = 0;
        m_server.ageBoundMs = -1;
        read.resize(m_tracked.size());
        std::iota(read.begin(), read.end(), 0);
        probe(read, true);
        return;
    }
    // The rolling sweep: every object is read at least every sweepMs, so a
    // lost event (or a write Redis did not announce) heals by itself.
    const qsizetype n = m_tracked.size();
    const qsizetype slice
        = n == 0 ? 0
                 : std::min<qsizetype>(n, (n * m_options.intervalMs + m_options.sweepMs - 1)
                                              / std::max(1, m_options.sweepMs));
    const qsizetype sweepFrom = m_sweepNext;
    m_sweepNext = n == 0 ? 0 : (m_sweepNext + slice) % n;
    const qint64 now = serverNow();
    const int detail = m_detailKey.isEmpty() ? -1 : m_byPrimaryKey.value(m_detailKey, -1);
    for (qsizetype i = 0; i < n; ++i) {
        const Tracked &t = m_tracked.at(i);
        const qsizetype fromSweep = (i - sweepFrom + n) % n;
        // The rest is exact as its reading projected to now (Reading::at).
        if (fromSweep < slice || t.dirty || !t.track.everRead || now >= t.validUntilMs
            || i == detail)
            read.append(int(i));
    }
    probe(read, true);
}

bool Monitor::budgeted() const
{
    // The first pass reads every object (and measures what one costs).
    return m_options.adaptive && m_options.budgetPercent > 0 && !m_server.eventsLive
           && m_costPerObjectUs > 0;
}

QList<int> Monitor::budgetedSelection()
{
    const qint64 now = serverNow();
    const int detail = m_detailKey.isEmpty() ? -1 : m_byPrimaryKey.value(m_detailKey, -1);
    QSet<int> watched;
    for (const QByteArray &key : std::as_const(m_watched)) {
        if (const auto it = m_byPrimaryKey.constFind(key); it != m_byPrimaryKey.cend())
            watched.insert(*it);
    }
    QList<int> read, hot, idle;
    for (qsizetype i = 0; i < m_tracked.size(); ++i) {
        const Tracked &t = m_tracked.at(i);
        if (!t.track.everRead || t.dirty || i == detail || watched.contains(int(i)))
            read.append(int(i)); // always
        else if (now < t.hotUntilMs || now >= t.validUntilMs)
            hot.append(int(i));
        else
            idle.append(int(i));
    }
    // More hot objects than the budget buys (a thousand queues with stuck
    // jobs): they take turns too, ahead of the idle ones.
    const double budgetObjects
        = m_options.intervalMs * 1000.0 * m_options.budgetPercent / 100.0 / m_costPerObjectUs;
    const qsizetype hotRoom = std::max<qsizetype>(1, qsizetype(budgetObjects) - read.size());
    qint64 hotBound = m_options.intervalMs;
    if (hot.size() <= hotRoom) {
        read.append(hot);
    } else {
        const auto hotFrom = std::lower_bound(hot.cbegin(), hot.cend(), int(m_hotNext));
        qsizetype h = hotFrom - hot.cbegin();
        for (qsizetype k = 0; k < hotRoom; ++k, ++h)
            read.append(hot.at(h % hot.size()));
        m_hotNext = hot.at(h % hot.size());
        hotBound = ((hot.size() + hotRoom - 1) / hotRoom) * qint64(m_options.intervalMs)
                   + m_options.intervalMs;
    }
    // What is left of the budget after the hot objects, in objects; at
    // least enough that every idle object is read within sweepMs.
    const double budgetUs = m_options.intervalMs * 1000.0 * m_options.budgetPercent / 100.0;
    const qsizetype n = idle.size();
    const qsizetype floorShare
        = (n * m_options.intervalMs + m_options.sweepMs - 1) / std::max(1, m_options.sweepMs);
    const double left = budgetUs - double(read.size()) * m_costPerObjectUs;
    const qsizetype share = std::clamp<qsizetype>(
        std::max<qsizetype>(floorShare, qsizetype(std::max(0.0, left / m_costPerObjectUs))), 0, n);
    // In turn, from where the last tick stopped (an object index, so the
    // rotation survives objects turning hot or idle).
    const auto from = std::lower_bound(idle.cbegin(), idle.cend(), int(m_sweepNext));
    qsizetype at = from - idle.cbegin();
    for (qsizetype k = 0; k < share; ++k, ++at)
        read.append(idle.at(at % n));
    if (n > 0 && share > 0)
        m_sweepNext = idle.at(at % n);
    std::sort(read.begin(), read.end());
    m_server.budgetPercent = m_options.budgetPercent;
    // An idle object waits at most ceil(n / share) ticks for its turn, and
    // its reading arrives within the tick after. The share moves with the
    // measured cost and the hot set: the bound stated is the largest of the
    // last bound's length, so a reading taken under a smaller share is
    // still within it.
    const qint64 bound = std::max(
        hotBound, n == 0 || share == 0 ? qint64(m_options.intervalMs) * 2
                                       : ((n + share - 1) / share) * qint64(m_options.intervalMs)
                                             + m_options.intervalMs);
    // Once a whole rotation at the current share has passed since an
    // earlier bound, every object has been read under the current one.
    m_bounds.removeIf([&](const std::pair<qint64, qint64> &e) { return now - e.first > bound; });
    m_bounds.append({now, bound});
    qint64 stated = 0;
    for (const auto &[at, b] : std::as_const(m_bounds))
        stated = std::max(stated, b);
    m_server.ageBoundMs = stated;
    return read;
}

void Monitor::checkEventsConfig()
{
    m_eventsChecked.start();
    // Each master's own setting: a Cluster's masters are configured one by
    // one, and one with events off announces nothing of its slots.
    const Topology &topology = m_client->topology();
    QStringList masters;
    if (topology.isCluster()) {
        for (int m : topology.masters())
            masters << topology.nodes.at(m).address();
    }
    struct Answers
    {
        qsizetype pending = 0;
        bool answered = false;
        bool covered = true;
        QByteArray flags; // of a master whose events do not cover the patterns
    };
    auto answers = std::make_shared<Answers>();
    answers->pending = std::max<qsizetype>(1, masters.size());
    const auto handler = [this, answers](const RedisValue &config) {
        if (!config.isError() && config.size() == 2) {
            answers->answered = true;
            const QByteArray flags = config.at(1).bytes();
            if (!eventsCover(flags)) {
                answers->covered = false;
                answers->flags = flags;
            }
        }
        if (--answers->pending == 0 && answers->answered && m_subscriber)
            applyEventsConfig(answers->covered, answers->flags);
    };
    if (masters.isEmpty())
        m_client->command({"CONFIG", "GET", "notify-keyspace-events"}, &m_context, handler);
    for (const QString &address : std::as_const(masters))
        m_client->commandOn(address, {"CONFIG", "GET", "notify-keyspace-events"}, &m_context,
                            handler);
}

void Monitor::applyEventsConfig(bool covered, const QByteArray &flags)
{
    if (covered == m_eventsCovered)
        return;
    m_eventsCovered = covered;
    m_fullPassDue = true;
    const bool live = covered && m_subscriber->state() == RedisConnection::State::Ready;
    m_server.notes.removeIf([](const QString &note) {
        return note.startsWith(QLatin1String("Keyspace events were "
                                             "turned off"));
    });
    if (!covered)
        m_server.notes << QStringLiteral("Keyspace events were turned off "
                                         "(notify-keyspace-events is \"%1\"); "
                                         "polling every %2 ms.")
                              .arg(QString::fromUtf8(flags))
                              .arg(m_options.intervalMs);
    // Back on: keys written while they were off were announced to no one;
    // polling re-read the objects held, a rescan finds the new ones.
    if (covered && m_started && m_client->state() == RedisConnection::State::Ready)
        startDiscovery();
    if (live != m_server.eventsLive) {
        m_server.eventsLive = live;
        publish();
    }
}

void Monitor::probe(const QList<int> &indices, bool fullTick, bool paced)
{
    if (fullTick) {
        if (m_tickInFlight)
            return; // the server is slower than the interval: skip, never pile up
        m_tickInFlight = true;
        m_tickClock.start();
        m_lastRoundTrips = 0;
        m_lastCommands = 0;
        m_lastObjectsRead = int(indices.size());
        // A large pass replaces as many states. Refreshing adaptively (the
        // ticks after it read few: keyspace events, budgeted polling, once
        // the behaviour watch is over), the memory the old ones held would
        // stay idle in the allocator: armTrim. Polling every object every
        // tick, the next pass reuses it within a tick.
        const bool fewAfter
            = m_options.adaptive && (m_server.eventsLive || m_options.budgetPercent > 0);
        const bool mayTrim = m_trimFreeTicks > 0 || !m_lastTrim.isValid()
                             || m_lastTrim.elapsed() >= TrimTickEveryMs;
        if (m_trimFreeTicks > 0)
            --m_trimFreeTicks;
        if (fewAfter && mayTrim && indices.size() >= TrimAfterObjects)
            armTrim(m_states.at(indices.first()));
    }
    ++m_runsInFlight; // until finishRun: the run holds indices into m_tracked
    auto run = std::make_shared<ProbeRun>();
    run->indices = indices;
    run->fullTick = fullTick;
    run->paced = paced;
    run->world = m_server.world.generation;
    if (paced) {
        // Spread over 70 % of the interval, so the tick is done before the next.
        const qsizetype batches = (indices.size() + PacedBatchObjects - 1) / PacedBatchObjects;
        run->spacingMs = batches <= 1 ? 0 : m_options.intervalMs * 7 / 10 / batches;
    }
    // A few batches in flight keep the pipe full without queueing a whole
    // tick on the server (other clients interleave) or in memory; paced,
    // one at a time.
    const int window = fullTick && !paced ? 2 : 1;
    for (int i = 0; i < window && (run->next < run->indices.size() || (fullTick && i == 0)); ++i)
        sendBatch(run);
}

void Monitor::sendBatch(const std::shared_ptr<ProbeRun> &run)
{
    const qsizetype chunk
        = run->paced ? std::min<qsizetype>(PacedBatchObjects, std::max(1, m_options.batchObjects))
                     : std::max(1, m_options.batchObjects);
    const QList<int> batch = run->indices.mid(run->next, chunk);
    ++run->batchesSent;
    const qint64 sentNs = m_clock.nsecsElapsed();
    const bool withTime = run->fullTick && run->next == 0;
    run->next += chunk;
    const qint64 sentAt = QDateTime::currentMSecsSinceEpoch();
    const qint64 now = sentAt + m_offsetMs;
    QList<RedisClient::Command> commands;
    QList<int> counts;
    QList<ProbeContext> contexts;
    // The states probed: their objects are what the replies answer, even if
    // a family gains members before the replies arrive.
    QList<ObjectList::Ptr> probed;
    probed.reserve(batch.size());
    if (withTime)
        commands.append({"TIME"});
    for (int i : batch) {
        Tracked &t = m_tracked[i];
        run->carriesWrites |= t.dirty; // a keyspace event said it was written
        t.dirty = false;
        const PatternObject &object = objectAt(i);
        ProbeContext ctx;
        ctx.nowMs = now;
        ctx.detail = !m_detailKey.isEmpty() && object.key == m_detailKey;
        ctx.firstSeenMs = [this, i](const QByteArray &item) {
            return m_tracked.at(i).track.itemFirstSeen.value(item, -1);
        };
        const auto cmds = t.unit->probe(object, ctx);
        probed.append(m_states.at(i));
        commands.append(cmds);
        counts.append(int(cmds.size()));
        contexts.append(ctx);
    }
    if (run->fullTick) {
        ++m_lastRoundTrips;
        m_lastCommands += commands.size();
    }
    ++run->outstanding;
    RedisClient *client = m_client;
    if (!run->fullTick && m_eventClient && m_eventClient->state() == RedisConnection::State::Ready)
        client = m_eventClient.get();
    client->pipeline(
        commands, &m_context,
        [this, run, batch, probed, counts, contexts, withTime, sentAt,
         sentNs](const QList<RedisValue> &replies) {
            qsizetype at = 0;
            const qint64 arrived = m_clock.elapsed();
            if (run->paced) {
                const qint64 rttNs = m_clock.nsecsElapsed() - sentNs;
                run->busyNs += rttNs;
                // A round trip of a few objects is mostly the
                // loopback, not the server's work.
                if (batch.size() >= MinTimedObjects)
                    run->timedUsPerObject.append(double(rttNs) / 1000.0 / double(batch.size()));
            }
            if (withTime) {
                if (replies.value(0).isFailed())
                    run->failed = true;
                const qint64 serverMs = serverTimeMs(replies.value(0));
                if (serverMs > 0) {
                    const qint64 receivedAt = QDateTime::currentMSecsSinceEpoch();
                    m_offsetMs = serverMs - (sentAt + receivedAt) / 2;
                    m_server.clockOffsetMs = m_offsetMs;
                    m_server.nodes[0].clockOffsetMs = m_offsetMs;
                    m_server.timeMs = serverMs;
                }
                at = 1;
            }
            for (qsizetype b = 0; b < batch.size(); ++b) {
                const QList<RedisValue> part = replies.mid(at, counts.at(b));
                at += counts.at(b);
                // No reply (connection lost): the last reading stays. Sent
                // before a new world began: it may be the old server's.
                if (run->world != m_server.world.generation
                    || std::any_of(part.cbegin(), part.cend(),
                                   [](const RedisValue &v) { return v.isFailed(); })) {
                    run->failed = true;
                    continue;
                }
                Tracked &t = m_tracked[batch.at(b)];
                t.freshAtMs = arrived;
                t.readAtServerMs = contexts.at(b).nowMs;
                m_lastReplyAtMs = arrived;
                absorb(batch.at(b), probed.at(b)->object, part, contexts.at(b));
            }
            --run->outstanding;
            if (run->next < run->indices.size() && run->paced) {
                // The next batch at its slot; stopped meanwhile:
                // the rest of the tick is not sent.
                const qint64 due = run->batchesSent * run->spacingMs - m_tickClock.elapsed();
                QTimer::singleShot(std::max<qint64>(0, due), &m_context, [this, run] {
                    if (m_started && !m_paused) {
                        sendBatch(run);
                        return;
                    }
                    run->next = run->indices.size();
                    run->failed = true;
                    if (run->outstanding == 0)
                        finishRun(*run);
                });
                return;
            }
            if (run->next < run->indices.size()) {
                sendBatch(run);
                return;
            }
            if (run->outstanding == 0)
                finishRun(*run);
        });
}

void Monitor::finishRun(const ProbeRun &run)
{
    if (--m_runsInFlight == 0 && !m_demote.isEmpty())
        dropDemoted();
    // A run sent before a new world began proves nothing about this one.
    const bool failed = run.failed || run.world != m_server.world.generation;
    if (run.fullTick && !failed) {
        // Objects not re-read this tick are exact as projected (events live).
        const qint64 now = m_clock.elapsed();
        m_lastReplyAtMs = now;
        for (Tracked &t : m_tracked) {
            if (t.track.everRead) {
                t.freshAtMs = now;
                t.readAtServerMs = m_server.timeMs;
            }
        }
        // Objects never read keep the time they were found: they turn stale
        // if no reading comes within two ticks.
    }
    const bool staleChanged = run.fullTick && updateStaleness();
    if (run.fullTick) {
        m_tickInFlight = false;
        m_lastTickMs = m_tickClock.elapsed();
        // What one object's probes cost the server: a paced tick's round
        // trips (one batch in flight), or an unpaced tick's wall time (the
        // pipe kept full). Upper bounds, so the budget errs on the quiet side.
        // Paced: the median batch's, so that a few replies held up by this
        // process's own work (a history write, a paint, a page fault) do not
        // shrink the budget; they say nothing of the server. An unpaced pass
        // (the first, the one after a restart or a re-scan) measures how fast
        // a full pipe drains, not what a paced batch costs: it seeds the
        // estimate, never moves a paced one.
        double sample = -1;
        double spentUs = -1;
        if (run.paced) {
            spentUs = double(run.busyNs) / 1000.0;
            if (!run.timedUsPerObject.isEmpty()) {
                QList<double> perObject = run.timedUsPerObject;
                const auto mid = perObject.begin() + perObject.size() / 2;
                std::nth_element(perObject.begin(), mid, perObject.end());
                sample = *mid;
            }
        } else if (run.indices.size() >= MinBudgetedObjects) {
            // A tick of a few objects is mostly its round trips: a handful
            // of objects cost the server nothing worth budgeting.
            spentUs = double(m_tickClock.nsecsElapsed()) / 1000.0;
            if (!m_costPaced)
                sample = spentUs / double(run.indices.size());
        }
        if (!failed && sample > 0) {
            // The first paced sample replaces the pass's seed outright.
            m_costPerObjectUs = m_costPerObjectUs <= 0 || (run.paced && !m_costPaced)
                                    ? sample
                                    : 0.7 * m_costPerObjectUs + 0.3 * sample;
            m_costPaced = m_costPaced || run.paced;
        }
        if (!failed && spentUs >= 0)
            m_lastSharePercent = spentUs / (10.0 * m_options.intervalMs);
        m_server.objectsRead = int(run.indices.size());
        m_server.sharePercent = run.paced ? m_lastSharePercent : -1;
    }
    if (run.fullTick && !failed) { // history holds readings, not gaps
        for (qsizetype i = 0; i < m_tracked.size(); ++i) {
            Tracked &t = m_tracked[i];
            // Readings not re-read this tick are projected to its time.
            const Reading &r = m_states.at(i)->reading;
            const qint64 at = m_server.timeMs;
            const QList<Figure> &figures = m_figures.value(t.kind);
            double v[MaxFigures] = {};
            for (qsizetype f = 0; f < figures.size() && f < MaxFigures; ++f)
                v[f] = figures.at(f).value(r, at);
            t.history.append(v, at);
            if (t.unit->hasThroughput() && m_server.eventsLive && m_lastTickAtMs > 0
                && m_server.timeMs > m_lastTickAtMs) {
                const double throughput = double(t.track.completions - t.completionsAtTick) * 1000.0
                                          / double(m_server.timeMs - m_lastTickAtMs);
                t.completionsAtTick = t.track.completions;
                if (throughput != t.throughputPerS) { // a new state only for a new figure
                    t.throughputPerS = throughput;
                    restate(int(i));
                }
            } else if (t.unit->hasThroughput() && !m_server.eventsLive) {
                // Polling: the jobs that left the list between readings,
                // over at least 10 s (a reading is not every tick's).
                if (t.leftAtMs < 0) {
                    t.leftAtMs = m_server.timeMs;
                    t.leftAtLast = t.track.leftInFlight;
                } else if (m_server.timeMs - t.leftAtMs >= 10000) {
                    const double throughput = double(t.track.leftInFlight - t.leftAtLast) * 1000.0
                                              / double(m_server.timeMs - t.leftAtMs);
                    t.leftAtMs = m_server.timeMs;
                    t.leftAtLast = t.track.leftInFlight;
                    if (throughput != t.throughputPerS) {
                        t.throughputPerS = throughput;
                        restate(int(i));
                    }
                }
            } else if (!t.unit->hasThroughput()) {
                const double throughput
                    = finishedPerS(*t.unit, figures, t.history, m_tickTimes, m_server.timeMs);
                if (throughput != t.throughputPerS) {
                    t.throughputPerS = throughput;
                    restate(int(i));
                }
            }
        }
        m_lastTickAtMs = m_server.timeMs;
        m_historyCache.clear(); // a new sample: published histories are rebuilt
        m_attentionAtMs = -1;
        m_tickTimes.append(m_server.timeMs);
        if (m_tickTimes.size() > m_options.historyCapacity)
            m_tickTimes.removeFirst();
    }
    if (run.fullTick) {
        refreshSnapshot(); // the tick's own, for tickFinished at once
        // With keyspace events live a tick only re-reads what time alone may
        // have changed (and a sweep): routine. It goes out with the next
        // change a write brings, or as a heartbeat once a second, so it never
        // takes the publication slot a write would need next.
        if (m_server.eventsLive && m_options.adaptive && !staleChanged && !failed
            && !run.carriesWrites)
            requestRoutineEmit();
        else
            requestEmit();
    } else {
        publish();
    }
    if (run.fullTick)
        trimWhenReleased(TrimChecks);
    if (run.fullTick && !failed)
        noteVanished();
    if (run.fullTick)
        Q_EMIT tickFinished(m_snapshot);
    checkWorldWhole();
    if (run.fullTick && m_tickAgain && m_started) {
        m_tickAgain = false; // a new world began during this tick: read it now
        QTimer::singleShot(0, &m_context, [this] { tick(); });
    }
}

void Monitor::armTrim(const ObjectList::Ptr &replaced)
{
    m_trimPending = true;
    m_trimWatch = replaced;
}

void Monitor::trimWhenReleased(int checksLeft)
{
    if (!m_trimPending)
        return;
    if (std::any_of(m_tracked.cbegin(), m_tracked.cend(),
                    [](const Tracked &t) { return !t.track.everRead; }))
        return; // the next full tick reads them
    if (m_trimWatch.expired()) {
        m_trimPending = false;
        m_trimWatch.reset();
#ifdef __GLIBC__
        malloc_trim(0);
#endif
        m_lastTrim.start();
        return;
    }
    // The console still shows the snapshot before: it swaps it within a
    // few ms, or by the next full tick.
    if (m_trimCheckScheduled || checksLeft <= 0)
        return;
    m_trimCheckScheduled = true;
    QTimer::singleShot(TrimCheckMs, &m_context, [this, checksLeft] {
        m_trimCheckScheduled = false;
        trimWhenReleased(checksLeft - 1);
    });
}

void Monitor::absorb(int index, const PatternObject &object, const QList<RedisValue> &replies,
                     const ProbeContext &ctx)
{
    Tracked &t = m_tracked[index];
    Reading reading = t.unit->read(object, replies, ctx);
    // Behaviour: what the keys did since the last reading.
    // Not across a new world: the reading before is another server's.
    const bool observed
        = t.observeUntilMs > 0 && t.track.everRead && t.world == m_server.world.generation;
    t.world = m_server.world.generation;
    if (observed) {
        t.behaviour.eventsLive = m_server.eventsLive;
        t.unit->observeBehaviour(t.behaviour, object, m_states.at(index)->reading, reading,
                                 replies);
        ++t.behaviour.steps;
    }
    t.behaviour.deletedSinceRead = false;
    t.behaviour.expiredSinceRead = false;
    t.behaviour.writtenSinceRead = false;
    const PatternObject &current = objectAt(index);
    std::optional<PatternObject> changed = t.unit->afterRead(object, current, replies);
    if (changed) {
        // Forget the keys it no longer has (a family's used, revoked and
        // expired tokens): a family sees a stream of new keys, and the index
        // must not grow with it.
        const QList<QByteArray> kept = changed->keys();
        const QSet<QByteArray> keep(kept.cbegin(), kept.cend());
        for (const QByteArray &k : current.keys()) {
            if (!keep.contains(k))
                m_byKey.remove(k);
        }
    }
    // Budgeted polling reads hot objects every tick: one whose reading is
    // not what its last one projects to now (something wrote it) stays hot
    // for HotTicks ticks.
    const bool budgetOn = m_options.adaptive && m_options.budgetPercent > 0 && !m_server.eventsLive;
    bool hot = false;
    if (budgetOn && t.track.everRead) {
        const Reading &last = m_states.at(index)->reading;
        const Reading projected = last.at(reading.atMs);
        const QList<Figure> &figures = m_figures.value(t.kind);
        hot = projected.status != reading.status
              || std::any_of(figures.cbegin(), figures.cend(), [&](const Figure &f) {
                     const double a = f.value(projected, reading.atMs);
                     const double b = f.value(reading, reading.atMs);
                     // A TTL read again differs from its projection by the
                     // ms between the probe's send and Redis' clock.
                     const double slack = f.isDuration ? DurationSlackMs : 0.0;
                     return std::abs(a - b) > slack && !(std::isnan(a) && std::isnan(b));
                 });
    }
    t.unit->track(t.track, reading, ctx.nowMs);
    t.track.everRead = true;
    t.validUntilMs = t.unit->validUntilMs(object, reading);
    restate(index, std::move(reading), std::move(changed));
    if (observed)
        applyBehaviour(index);
    if (t.observeUntilMs > 0 && ctx.nowMs > t.observeUntilMs) {
        t.observeUntilMs = 0; // watched long enough: its verdict stays in its evidence
        t.behaviour = BehaviourTrack();
    }
    // ... and so does one needing an operator (near its limit, work stuck).
    // A lock held is routine (its attention is how long): a new holder or a
    // moved TTL is a change, caught above.
    if (!hot && budgetOn) {
        const auto attention = t.unit->attention(*m_states.at(index), ctx.nowMs);
        hot = attention && attention->figure != QLatin1String("pttlMs");
    }
    if (hot)
        t.hotUntilMs = ctx.nowMs + qint64(HotTicks) * m_options.intervalMs;
}

void Monitor::restate(int index, std::optional<Reading> reading,
                      std::optional<PatternObject> object)
{
    const Tracked &t = m_tracked.at(index);
    auto o = std::make_shared<ObjectState>();
    o->object = object ? std::move(*object) : m_states.at(index)->object;
    if (reading)
        o->reading = std::move(*reading);
    else if (index < m_states.size())
        o->reading = m_states.at(index)->reading;
    o->firstSeenMs = t.firstSeenMs;
    o->heldSinceMs = t.track.heldSinceMs;
    o->throughputPerS = t.throughputPerS;
    o->stale = t.stale;
    o->staleSinceMs = t.stale ? t.readAtServerMs : -1;
    o->gone = o->reading.status == Reading::Status::Missing && t.unit->goneWhenMissing()
              && t.track.everRead;
    if (o->gone) // since the first reading that found it so
        o->goneSinceMs = index < m_states.size() && m_states.at(index)->gone
                             ? m_states.at(index)->goneSinceMs
                             : o->reading.atMs;
    if (index < m_states.size()) {
        m_states[index] = std::move(o);
        // Bounded whether or not anyone takes it (takeReplaced()).
        if (!m_replacedPendingAll && m_replacedPending.size() < m_states.size())
            m_replacedPending.append(index);
        else
            m_replacedPendingAll = true;
    } else {
        m_states.append(std::move(o));
        m_replacedPendingAll = true;
    }
}

Monitor::Replaced Monitor::takeReplaced()
{
    Replaced r;
    r.monitor = m_monitorId;
    r.sinceSequence = m_replacedSince;
    r.sequence = m_snapshot.sequence;
    r.all = m_replacedMadeAll;
    r.indices = std::exchange(m_replacedMade, {});
    m_replacedMadeAll = false;
    m_replacedSince = m_snapshot.sequence;
    return r;
}

void Monitor::publish()
{
    m_snapshotFresh = false;
    requestEmit();
}

void Monitor::publishRoutine()
{
    m_snapshotFresh = false;
    requestRoutineEmit();
}

void Monitor::requestEmit()
{
    m_emitPending = true;
    m_emitCarriesChange = true;
    // Only emissions carrying a change count: a routine one just before
    // (a heartbeat, the server's figures) does not delay a write's.
    const qint64 since
        = m_lastChangeEmit.isValid() ? m_lastChangeEmit.elapsed() : PublishIntervalMs;
    const qint64 wait = std::max<qint64>(0, PublishIntervalMs - since);
    if (m_publishTimer.isActive() && m_publishTimer.remainingTime() <= wait)
        return; // the timer's emission will carry this change
    if (wait == 0) {
        m_publishTimer.stop();
        emitSnapshot();
    } else {
        m_publishTimer.start(int(wait)); // sooner than a routine heartbeat's
    }
}

void Monitor::requestRoutineEmit()
{
    m_emitPending = true;
    if (m_publishTimer.isActive())
        return; // an emission already due carries it
    const qint64 since = m_lastEmit.isValid() ? m_lastEmit.elapsed() : RoutineIntervalMs;
    if (since >= RoutineIntervalMs)
        emitSnapshot();
    else
        m_publishTimer.start(int(RoutineIntervalMs - since));
}

void Monitor::emitSnapshot()
{
    if (!m_emitPending)
        return;
    m_emitPending = false;
    if (!m_snapshotFresh)
        refreshSnapshot();
    m_lastEmit.start();
    if (m_emitCarriesChange)
        m_lastChangeEmit.start();
    m_emitCarriesChange = false;
    Q_EMIT snapshotReady(m_snapshot);
}

void Monitor::refreshSnapshot()
{
    Snapshot s;
    s.sequence = ++m_sequence;
    // What this snapshot replaced joins what the ones since the last
    // takeReplaced() did.
    m_replacedMadeAll = m_replacedMadeAll || m_replacedPendingAll
                        || m_replacedMade.size() + m_replacedPending.size() > m_states.size();
    if (m_replacedMadeAll)
        m_replacedMade.clear();
    else
        m_replacedMade.append(m_replacedPending);
    m_replacedPending.clear();
    m_replacedPendingAll = false;
    s.server = m_server;
    s.server.lastReadingAgeMs = replyAgeMs();
    s.server.nodes[0].lastReadingAgeMs = s.server.lastReadingAgeMs;
    s.server.notes << m_permissionNotes;
    s.server.permissions = m_missingPermissions;
    s.server.complete = m_complete;
    s.profile = m_options.profile ? m_options.profile->name : QStringLiteral("autodetected");
    s.discovering = m_discovery && m_discovery->isRunning();
    s.scanned = m_snapshot.scanned;
    s.total = m_snapshot.total;
    s.candidates = m_candidates;
    s.other = m_other;
    s.objects.reserve(m_states.size());
    qsizetype refused = 0; // a profile finds keys by name; key patterns show at the read
    for (const ObjectList::Ptr &state : std::as_const(m_states)) {
        s.objects.append(state); // shared: unchanged objects cost a pointer copy
        refused += state->reading.status == Reading::Status::Error
                   && state->reading.message.contains(QLatin1String("NOPERM"));
    }
    if (refused > 0 && !s.server.permissions.contains(QLatin1String("keys"))) {
        const QString user = m_client->endpoint().user;
        s.server.notes << QStringLiteral("This Redis user may not read %1 of the %2 objects found "
                                         "(NOPERM: its key patterns leave them out); grant them "
                                         "with ACL SETUSER %3 ~<pattern> (%R~<pattern> to read "
                                         "only).")
                              .arg(refused)
                              .arg(s.objects.size())
                              .arg(user.isEmpty() ? QStringLiteral("default") : user);
        s.server.permissions << QStringLiteral("keys");
        s.server.complete = false;
    }
    // One-way data: the history the console charts and the objects it lists
    // first travel in the snapshot, never read across threads.
    for (const QByteArray &key : std::as_const(m_watched)) {
        if (ObjectHistoryPtr h = historyOf(key))
            s.history.insert(key, std::move(h));
    }
    s.attention = attention(s);
    m_snapshot = s;
    m_snapshotFresh = true;
}

ObjectHistoryPtr Monitor::historyOf(const QByteArray &key)
{
    if (const auto it = m_historyCache.constFind(key); it != m_historyCache.cend())
        return *it;
    const int index = m_byPrimaryKey.value(key, -1);
    if (index < 0)
        return nullptr;
    auto h = std::make_shared<ObjectHistory>();
    for (const Figure &f : m_figures.value(m_tracked.at(index).kind)) {
        h->figures.append(f.id);
        h->series.append(history(key, f.id));
    }
    // Bounded: the watched objects (a page's selection each) and their last
    // sample's worth; the cache is dropped with every new sample.
    if (m_historyCache.size() >= 64)
        m_historyCache.clear();
    m_historyCache.insert(key, h);
    return h;
}

std::shared_ptr<const QList<AttentionItem>> Monitor::attention(const Snapshot &s)
{
    // Ranked at most twice a second (a pass over every object) and after
    // every full tick; the Overview redraws at that pace.
    if (m_attention && m_attentionAtMs >= 0 && m_clock.elapsed() - m_attentionAtMs < 500)
        return m_attention;
    m_attentionAtMs = m_clock.elapsed();
    QList<AttentionItem> items = rankAttention(s.objects, s.server.timeMs);
    for (AttentionItem &item : items)
        item.sparkline = history(item.key, item.figure, AttentionSparkPoints);
    m_attention = std::make_shared<const QList<AttentionItem>>(std::move(items));
    return m_attention;
}

bool Monitor::updateStaleness()
{
    // Two ticks without a reply: the tick that should have refreshed it and
    // the one after. 1.5 intervals, since a reading arrives some time after
    // its tick started.
    const qint64 limit = m_options.intervalMs * 3 / 2;
    const qint64 now = m_clock.elapsed();
    bool changed = false;
    for (qsizetype i = 0; i < m_tracked.size(); ++i) {
        Tracked &t = m_tracked[i];
        const bool stale = now - t.freshAtMs > limit;
        if (stale == t.stale)
            continue;
        t.stale = stale;
        restate(int(i));
        changed = true;
    }
    return changed;
}

QStringList Monitor::figureNames(PatternKind kind)
{
    QStringList names;
    for (const Figure &f : PatternUnit::of(kind).figures())
        names << f.id;
    return names;
}

QList<QPointF> Monitor::history(const QByteArray &key, const QString &figure, int maxPoints) const
{
    QList<QPointF> points;
    const int index = m_byPrimaryKey.value(key, -1);
    if (index < 0)
        return points;
    const Tracked &t = m_tracked.at(index);
    const int f = int(figureNames(t.kind).indexOf(figure));
    if (f < 0)
        return points;
    const int n = t.history.size();
    const qsizetype offset = m_tickTimes.size() - n; // objects found later have fewer samples
    // Evenly spaced samples ending at the newest: step >= 1.
    const double step = maxPoints > 1 && n > maxPoints ? double(n - 1) / (maxPoints - 1) : 1.0;
    points.reserve(qsizetype(std::min(n, maxPoints > 0 ? maxPoints : n)));
    for (double x = 0; qRound(x) < n; x += step) {
        const int i = std::min(n - 1, qRound(x));
        const qsizetype ti = offset + i;
        if (ti >= 0 && ti < m_tickTimes.size())
            points.append(QPointF(double(m_tickTimes.at(ti)),
                                  double(t.history.at(f, i, m_tickTimes.at(ti)))));
        if (i == n - 1)
            break;
    }
    return points;
}

qsizetype Monitor::tickTimeBytes() const
{
    return m_tickTimes.capacity() * qsizetype(sizeof(qint64));
}

qsizetype Monitor::historyBytes() const
{
    qsizetype bytes = m_tickTimes.capacity() * qsizetype(sizeof(qint64));
    for (const Tracked &t : m_tracked)
        bytes += t.history.bytes();
    return bytes;
}

} // namespace gatehouse
