// SPDX-License-Identifier: MIT
// The monitor's lifecycle (start, stop, pause, the operator's requests) and
// what discovery hands over: the objects tracked and the keys that index
// them. Its other roles, each in its own file: monitortopology.cpp (server
// facts, nodes), monitorevents.cpp (keyspace events), monitorrefresh.cpp
// (what each tick reads, what it cost), monitorprobe.cpp (reading objects),
// monitorhistory.cpp (figures kept per tick), monitorpublish.cpp
// (snapshots), monitorbehaviour.cpp (the behaviour watch) and
// monitorworld.cpp (new worlds, keys judged on events); its plans and
// rules in classes of their own: RefreshBudget (what a budgeted tick
// reads) and MemoryTrim (when memory goes back to the OS).
#include "monitor.h"

#include "discovery.h"
#include "durabilityreader.h"

#include <redis/redisclient.h>
#include <redis/redissubscriber.h>

#include <QDateTime>

#include <algorithm>
#include <atomic>
#include <limits>
#include <numeric>

namespace gatehouse {

namespace {

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
    , m_watch(client, &m_context, behaviourHost())
    , m_eventKeys(&m_context, eventKeyHost())
{
    NodeStatus node;
    node.address = m_client->endpoint().displayUrl();
    node.connection = {m_client->state(), m_client->errorString(), m_client->nextAttemptAtMs(),
                       m_client->errorKind()};
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
    // The connection's state travels in the snapshot: the console shows it
    // from there, as a structure (never parsed out of a sentence).
    connect(m_client, &RedisClient::stateChanged, this,
            [this](RedisConnection::State state, const QString &message, qint64 nextAttemptAtMs,
                   RedisConnection::ErrorKind kind) {
                m_server.nodes[0].connection = {state, message, nextAttemptAtMs, kind};
                // A Cluster's seed is one node of many: each node's loss is
                // followed by the topology and the per-master subscriptions.
                if (state != RedisConnection::State::Ready && m_started
                    && !m_client->topology().isCluster())
                    distrustWhileLost();
                publish();
            });
    connect(m_client, &RedisClient::ready, this, [this] {
        ++m_readyEpoch;    // a key count read before may be another server's
        m_clockRttMs = -1; // and its clock: the next TIME sets the offset
        if (!m_started)
            return;
        readServerFacts(); // after a reconnect: version or role may have changed
        // A subscription that outlived the loss (a stopped server, a killed
        // client) counts once the server counts it again.
        if (m_subscriber && m_subscriber->state() == RedisConnection::State::Ready
            && !m_client->topology().isCluster())
            verifyEvents();
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

Monitor::~Monitor() = default;

void Monitor::distrustWhileLost()
{
    // The connection the readings come by is lost: nothing shown is current
    // from now on, not only two ticks later, and what the events say cannot
    // be checked (a subscription on its own connection may outlive the loss,
    // or miss what happened in it). Every object is read again once back.
    for (Tracked &t : m_tracked)
        t.freshAtMs = std::min(t.freshAtMs, std::numeric_limits<qint64>::min() / 4);
    updateStaleness();
    m_fullPassDue = true;
    if (m_server.eventsLive)
        setEventsLive(false);
}

qint64 Monitor::serverNow() const
{
    return QDateTime::currentMSecsSinceEpoch() + m_offsetMs;
}

void Monitor::setServerClock(qint64 serverMs, qint64 sentAt, qint64 receivedAt)
{
    m_server.timeMs = serverMs;
    // The server ran TIME somewhere in the round trip: the midpoint is off
    // by at most half of it. A round trip far longer than the one the
    // offset stands on (a stall, a slow link for a moment) would move the
    // clock by half a stall; it is not taken, and the bar it must meet
    // doubles, so a link that stays slow is followed within a few ticks.
    const qint64 rtt = std::max<qint64>(0, receivedAt - sentAt);
    if (m_clockRttMs >= 0 && rtt > std::max<qint64>(ClockRttSlackMs, 2 * m_clockRttMs)) {
        m_clockRttMs = std::max<qint64>(ClockRttSlackMs, 2 * m_clockRttMs);
        return;
    }
    m_clockRttMs = rtt;
    m_offsetMs = serverMs - (sentAt + receivedAt) / 2;
    m_server.clockOffsetMs = m_offsetMs;
    m_server.nodes[0].clockOffsetMs = m_offsetMs;
    m_server.timeMs = serverMs;
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
    m_eventKeys.stop();
    setEventsLive(false);
    m_fullPassDue = true;
}

void Monitor::close()
{
    stop();
    m_client->close();
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

void Monitor::dismissGone()
{
    m_dismissGone = m_runsInFlight > 0;
    if (m_dismissGone)
        return; // finishRun() comes back here
    if (!m_demote.isEmpty())
        dropDemoted();
    QList<int> gone;
    for (int i = 0; i < m_states.size(); ++i) {
        if (m_states.at(i)->gone)
            gone.append(i);
    }
    if (gone.isEmpty())
        return;
    removeTracked(std::move(gone));
    m_goneObjects = 0; // the next vanishing counts from none
    publish();
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
    connect(m_discovery.get(), &Discovery::finished, this, &Monitor::onDiscoveryFinished);
    connect(m_discovery.get(), &Discovery::failed, this, [this](const QString &message) {
        // A scan cut by a lost connection is not the operator's problem:
        // the next ready() (or the rescan timer) scans again.
        if (m_client->state() != RedisConnection::State::Ready)
            return;
        Q_EMIT failed(message);
    });
    m_discovery->start();
}

void Monitor::onDiscoveryFinished(bool cancelled)
{
    if (m_options.profile && !m_options.profile->autodetect) { // families: all members
        for (const PatternObject &o : m_discovery->objects()) {
            if (!o.members.isEmpty())
                addObjects({o}, false);
        }
    }
    if (!cancelled)
        adoptScan();
    m_discovery->releaseObjects(); // the monitor holds every object itself
    if (!cancelled && m_tracked.size() >= MemoryTrim::AfterObjects) {
        // Discovery's garbage and the unread states go back once the
        // objects were read; the behaviour watch's ticks re-read every
        // object: each may trim what the one before it replaced.
        qsizetype unread = m_tracked.size() - 1;
        while (unread >= 0 && m_tracked.at(unread).track.everRead)
            --unread;
        m_trim.armAfterDiscovery(m_tracked.size(),
                                 unread >= 0 ? m_states.at(unread) : ObjectList::Ptr(),
                                 m_options.behaviourTicks + 2);
    }
    // A scan cut by a node that did not answer (a Cluster master killed
    // before the topology says so, a connection lost) is made again soon,
    // then less often while it stays cut: 2 s, 4 s, ... up to the rescan
    // interval, to which a whole scan sets it back.
    const int full = std::max(1000, m_options.rescanMs);
    // A refusal that passes (BUSY, LOADING): scanned again in a second, even
    // by a monitor that never rescans (one snapshot waits for it).
    const bool refusedForNow = cancelled && m_discovery && !m_discovery->cutReason().isEmpty();
    if (refusedForNow && m_started && !m_paused && m_options.rescanMs <= 0)
        QTimer::singleShot(1000, this, [this] {
            if (!m_paused && (!m_discovery || !m_discovery->isRunning()))
                startDiscovery();
        });
    else if (cancelled && m_started && !m_paused && m_options.rescanMs > 0)
        m_rescanTimer.start(m_rescanTimer.interval() >= full
                                ? std::min(2000, full)
                                : std::min(full, m_rescanTimer.interval() * 2));
    else if (!cancelled && m_rescanTimer.interval() != full)
        m_rescanTimer.setInterval(full);
    Q_EMIT discoveryFinished(cancelled);
    checkWorldWhole();
    publish();
}

void Monitor::adoptScan()
{
    if (!m_options.profile || m_options.profile->autodetect) {
        QList<Candidate> candidates = m_discovery->candidates();
        QList<OtherFamily> other = m_discovery->otherFamilies();
        m_watch.applyVerdicts(candidates, other); // what behaviour showed stays so
        m_candidates = std::make_shared<const QList<Candidate>>(std::move(candidates));
        m_other = std::make_shared<const QList<OtherFamily>>(std::move(other));
        watchCandidates();
    }
    m_permissionNotes = m_discovery->permissionNotes();
    m_missingPermissions = m_discovery->missingPermissions();
    m_complete = m_discovery->complete();
    m_worldRescanned = true;
    noteKeyCount(m_snapshot.total);
    // Keys written from now on are judged afresh.
    QSet<QByteArray> ordinary;
    if (m_other) {
        for (const OtherFamily &f : *m_other)
            ordinary.insert(f.family);
    }
    m_eventKeys.scanned(std::move(ordinary));
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
        const bool autodetected = o.autodetected();
        if (autodetected && m_watch.isDemoted(o.key))
            continue; // its behaviour argued against it: a candidate now
        Tracked t;
        t.kind = o.kind;
        t.unit = &PatternUnit::of(o.kind);
        t.firstSeenMs = now;
        if (autodetected && m_options.behaviourTicks > 0 && !m_options.singleReading) {
            // Watched, and read every tick while watched (budgeted polling too).
            t.observeUntilMs = now + qint64(m_options.behaviourTicks) * m_options.intervalMs;
            t.hotUntilMs = t.observeUntilMs;
            t.behaviour = std::make_shared<BehaviourTrack>();
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

} // namespace gatehouse
