// SPDX-License-Identifier: MIT
// The monitor's account of which server it reads: a master switch or a
// restart begins a new world (nothing read before is trusted), and keys
// written since the last scan are judged as their keyspace events arrive.
#include "discovery.h"
#include "monitor.h"

#include <patterns/familyof.h>
#include <redis/redisclient.h>
#include <redis/redissubscriber.h>
#include <redis/serverinfo.h>

#include <limits>

namespace gatehouse {

void Monitor::noteServerIdentity(const QString &address, const QByteArray &runId, qint64 uptimeS,
                                 qint64 keys)
{
    if (!m_awaited.address.isEmpty()) {
        // Sentinel, a switch announced: is the connection on that master yet?
        // (INFO refused: no way to tell; read.)
        const bool there = runId.isEmpty()
                           || (!m_awaited.runId.isEmpty()
                                   ? runId == m_awaited.runId
                                   : runId != m_awaited.runIdWas
                                         && m_server.nodes.at(0).role == QLatin1String("master"));
        if (!there) {
            QTimer::singleShot(AwaitCheckMs, &m_context, [this] { checkAwaitedMaster(); });
            return;
        }
        m_runId = runId;
        m_runAddress = m_awaited.address;
        if (keys >= 0) {
            m_server.world.keysAfter = keys;
            m_lastDbSize = keys;
        }
        resumeReading();
        return;
    }
    if (runId.isEmpty())
        return; // INFO refused: no way to tell servers apart
    // Sentinel: the endpoint names the sentinels; the server is the node with
    // that run_id (a replica being promoted while the sentinels' account is
    // read again), else the master they name.
    const Topology &topology = m_client->topology();
    QString where = address;
    if (topology.isSentinel() && !topology.nodes.isEmpty()) {
        where = topology.nodes.first().address();
        for (const TopologyNode &n : topology.nodes) {
            if (n.id == runId)
                where = n.address();
        }
    }
    const QByteArray before = std::exchange(m_runId, runId);
    const QString beforeAddress = std::exchange(m_runAddress, where);
    if (before.isEmpty() || before == runId) {
        if (keys >= 0)
            m_lastDbSize = keys;
        return;
    }
    if (where == beforeAddress) {
        QString reason = QStringLiteral("The server at %1 restarted %2 s ago (a new run_id)")
                             .arg(where)
                             .arg(uptimeS);
        if (m_lastDbSize >= 0 && keys >= 0)
            reason += QStringLiteral(": %1 keys before, %2 now").arg(m_lastDbSize).arg(keys);
        if (m_lastDbSize > 0 && keys >= 0 && keys < m_lastDbSize / 2)
            reason += QStringLiteral(" (what it had was not persisted, or it was flushed)");
        beginNewWorld(reason + QLatin1Char('.'), true, keys, uptimeS);
    } else {
        beginNewWorld(QStringLiteral("The master is now %1 (was %2): a promoted replica may lack "
                                     "the old master's last writes, so everything is read again.")
                          .arg(where, beforeAddress),
                      false, keys);
    }
    if (keys >= 0)
        m_lastDbSize = keys;
}

void Monitor::awaitMaster(const QString &address, const QByteArray &runId, const QString &was)
{
    const bool awaiting = !m_awaited.address.isEmpty();
    m_awaited.address = address;
    m_awaited.runId = runId;
    if (!awaiting) {
        m_awaited.runIdWas = m_runId;
        beginNewWorld(QStringLiteral("The master is now %1 (was %2): a promoted replica may lack "
                                     "the old master's last writes, so everything is read again.")
                          .arg(address, was),
                      false);
    }
    checkAwaitedMaster();
}

void Monitor::checkAwaitedMaster()
{
    if (m_awaited.address.isEmpty() || m_awaited.checking || !m_started
        || m_client->state() != RedisConnection::State::Ready)
        return; // not connected: the reconnect reads the server's facts
    m_awaited.checking = true;
    m_client->pipeline({{"INFO", "server"}, {"INFO", "replication"}, {"DBSIZE"}}, &m_context,
                       [this](const QList<RedisValue> &r) {
                           m_awaited.checking = false;
                           if (m_awaited.address.isEmpty() || r.at(0).isFailed())
                               return; // lost: the reconnect reads the server's facts
                           if (!r.at(1).isError())
                               m_server.nodes[0].role
                                   = QString::fromUtf8(parseInfo(r.at(1).bytes()).value("role"));
                           const QHash<QByteArray, QByteArray> info
                               = r.at(0).isError() ? QHash<QByteArray, QByteArray>()
                                                   : parseInfo(r.at(0).bytes());
                           noteServerIdentity(m_client->endpoint().address(), info.value("run_id"),
                                              info.value("uptime_in_seconds", "-1").toLongLong(),
                                              r.at(2).isError() ? -1 : r.at(2).toInteger());
                       });
}

void Monitor::distrustReadings(const QString &kind, const QString &reason, qint64 keysBefore,
                               qint64 keysAfter, qint64 uptimeS)
{
    ServerStatus::World &w = m_server.world;
    ++w.generation;
    w.kind = kind;
    w.reason = reason;
    w.restart = kind == QLatin1String("restart");
    w.reread = true;
    w.sinceMs = serverNow();
    w.wholeAtMs = -1;
    w.keysBefore = keysBefore;
    w.keysAfter = keysAfter;
    w.uptimeS = uptimeS;
    // Nothing read before is current: stale until read again (a run sent
    // before now is not counted: ProbeRun::world).
    for (Tracked &t : m_tracked) {
        t.freshAtMs = std::numeric_limits<qint64>::min() / 4;
        t.dirty = true;
        // What a key did before is no evidence of what it does now: a value
        // that differs from the old master's was not overwritten in place.
        if (t.behaviour)
            *t.behaviour = {};
    }
    m_watch.newWorld();
    updateStaleness();
    m_fullPassDue = true;
    // Keys that exist only now, and the candidates: the keyspace again.
    m_worldRescanned = false;
    m_eventKeys.newWorld();
}

void Monitor::beginNewWorld(const QString &reason, bool restart, qint64 keysAfter, qint64 uptimeS)
{
    distrustReadings(restart ? QStringLiteral("restart") : QStringLiteral("master"), reason,
                     m_lastDbSize, keysAfter, uptimeS);
    // Another server: its key count and command counts are its own.
    m_keyspace.clear();
    // Events come from the master there is now: a new subscription, live
    // once that master counts it (verifyEvents); polling until then.
    if (m_subscriber) {
        m_subscriber.reset();
        m_moreSubscribers.clear();
        m_eventClient.reset();
        setEventsLive(false);
        m_awaited.subscribe = true;
    }
    if (m_awaited.address.isEmpty()) {
        resumeReading();
    } else {
        if (m_discovery)
            m_discovery->cancel(); // it scans the old master
        publish();
    }
}

void Monitor::resumeReading()
{
    const bool subscribe = m_awaited.subscribe;
    m_awaited = {};
    if (subscribe && !m_subscriber)
        subscribeEvents(m_eventFlags);
    m_worldRescanned = false;
    if (m_started && m_client->state() == RedisConnection::State::Ready)
        startDiscovery(); // replaces one under way
    // Every object now, not at the next tick.
    if (m_tickInFlight)
        m_tickAgain = true;
    else
        QTimer::singleShot(0, &m_context, [this] {
            if (m_started)
                tick();
        });
    publish();
}

void Monitor::announceWorld(const QString &kind, const QString &reason, qint64 keysBefore,
                            qint64 keysAfter)
{
    ServerStatus::World &w = m_server.world;
    ++w.generation;
    w.kind = kind;
    w.reason = reason;
    w.restart = false;
    w.reread = false;
    w.sinceMs = serverNow();
    w.wholeAtMs = w.sinceMs; // the readings are the server's: nothing to read again
    w.keysBefore = keysBefore;
    w.keysAfter = keysAfter;
    w.uptimeS = -1;
    m_snapshotFresh = false;
    publish();
}

bool Monitor::keyspaceInTick() const
{
    // In the tick's first batch, ahead of its probes on their connection;
    // not where that batch goes to a replica (Sentinel, --read-from
    // replicas: INFO in it would send it to the master instead) nor in a
    // Cluster (the batch reaches one node): there readNodeKeyspaces().
    const Topology &topology = m_client->topology();
    return !topology.isCluster()
           && !(topology.isSentinel() && m_client->endpoint().readFromReplicas);
}

void Monitor::readNodeKeyspaces()
{
    if (m_dbSizeRefused && m_commandStatsRefused)
        return;
    struct Replies
    {
        RedisValue dbSize;
        RedisValue commandStats;
        int pending = 0;
    };
    // Each master's counts where its keys are read: its replica's with
    // --read-from replicas (a replica counts the FLUSHALL it replays once
    // its data is flushed), keyed by that node (another replica's counts
    // are its own).
    const Topology &topology = m_client->topology();
    const bool replicas = m_client->endpoint().readFromReplicas;
    QSet<QString> nodes;
    for (const QString &master : std::as_const(m_knownMasters)) {
        const int i = topology.indexOf(master);
        nodes.insert(replicas && i >= 0 && !topology.nodes.at(i).readsFrom.isEmpty()
                         ? topology.nodes.at(i).readsFrom
                         : master);
    }
    m_keyspace.removeIf([&nodes](const QHash<QString, KeyspaceMark>::iterator &it) {
        return !nodes.contains(it.key());
    });
    const int world = m_server.world.generation;
    const int epoch = m_readyEpoch;
    // Only the nodes read now are aged: one no longer read (failed over, it
    // left) is up or down by its connection and its Cluster's verdict.
    for (QHash<QString, qint64> *times : {&m_nodeAnsweredAtMs, &m_nodeAskedAtMs}) {
        times->removeIf([&nodes](const QHash<QString, qint64>::iterator &it) {
            return !nodes.contains(it.key());
        });
    }
    const qint64 asked = m_clock.elapsed();
    for (const QString &node : std::as_const(nodes)) {
        if (!m_nodeAskedAtMs.contains(node))
            m_nodeAskedAtMs.insert(node, asked); // the oldest ask not answered
        auto replies = std::make_shared<Replies>();
        replies->pending = (m_dbSizeRefused ? 0 : 1) + (m_commandStatsRefused ? 0 : 1);
        const auto done = [this, node, world, epoch, replies] {
            // Read before a reconnect or a master switch: that server's
            // counts are not this one's. A flush world begun meanwhile
            // (another master's reply to the same FLUSHALL) has the same
            // servers: recorded.
            if (--replies->pending == 0 && epoch == m_readyEpoch
                && (world == m_server.world.generation
                    || m_server.world.kind == QLatin1String("flush")))
                noteKeyspace(node, replies->dbSize, replies->commandStats);
        };
        const auto answered = [this, node](const RedisValue &v) {
            if (v.isFailed())
                return;
            // Any reply, a refusal too: the node answers.
            m_nodeAnsweredAtMs.insert(node, m_clock.elapsed());
            m_nodeAskedAtMs.remove(node);
        };
        if (!m_dbSizeRefused)
            m_client->commandOn(node, {"DBSIZE"}, &m_context,
                                [replies, done, answered](const RedisValue &v) {
                                    answered(v);
                                    replies->dbSize = v;
                                    done();
                                });
        if (!m_commandStatsRefused)
            m_client->commandOn(node, {"INFO", "commandstats"}, &m_context,
                                [replies, done, answered](const RedisValue &v) {
                                    answered(v);
                                    replies->commandStats = v;
                                    done();
                                });
    }
}

namespace {

// calls= of one command in an INFO commandstats reply: how often the server
// ran it since it started (or CONFIG RESETSTAT); 0 when it never did.
qint64 commandCalls(const QHash<QByteArray, QByteArray> &stats, const QByteArray &command)
{
    for (const QByteArray &part : stats.value("cmdstat_" + command).split(',')) {
        if (part.startsWith("calls="))
            return part.mid(6).toLongLong();
    }
    return 0;
}

} // namespace

void Monitor::noteKeyspace(const QString &node, const RedisValue &dbSize,
                           const RedisValue &commandStats)
{
    // Refused (ACL, or a server without the command): not asked again, or
    // ACL LOG would note it every tick. Another error (LOADING after a
    // restart, BUSY, MASTERDOWN) passes; no reply (connection lost): the
    // marks stay as they were.
    const auto refused = [](const RedisValue &v) {
        return v.isError() && !v.isFailed()
               && (v.errorCode() == "NOPERM"
                   || v.errorMessage().contains(QLatin1String("unknown command")));
    };
    if (refused(dbSize))
        m_dbSizeRefused = true;
    if (refused(commandStats))
        m_commandStatsRefused = true;
    KeyspaceMark &mark = m_keyspace[node];
    const KeyspaceMark before = mark;
    const bool counted = dbSize.isInteger();
    if (counted) {
        mark.keys = dbSize.toInteger();
        mark.deletionsHeard = m_deletionsHeard;
    }
    if (!commandStats.isError() && !commandStats.isNil()) {
        const QHash<QByteArray, QByteArray> stats = parseInfo(commandStats.bytes());
        mark.flushAll = commandCalls(stats, "flushall");
        mark.flushDb = commandCalls(stats, "flushdb");
        mark.swapDb = commandCalls(stats, "swapdb");
    }
    // A master switch under way, or a new world being read again (a
    // Cluster's other masters report the same FLUSHALL): everything is read
    // again anyway; the counts above are the baseline for the next tick.
    if (!m_awaited.address.isEmpty() || (m_server.world.reread && m_server.world.wholeAtMs < 0))
        return;
    const auto ran = [](qint64 was, qint64 now) {
        return was >= 0 && now > was; // lower: CONFIG RESETSTAT, nothing ran
    };
    // The keys gone since the last count that no keyspace event announced
    // (del, expired, evicted, moved or renamed away).
    const bool compared = counted && before.keys >= 0;
    const qint64 unheard
        = compared ? before.keys - mark.keys - (m_deletionsHeard - before.deletionsHeard) : 0;
    QStringList commands;
    // FLUSHALL empties every database (this one had keys, or an unknown
    // count); a FLUSHDB is another database's unless this one's count fell
    // with it; SWAPDB may have swapped this one (counts cannot tell).
    // Deletions are weighed against the events only where events are live
    // and cover every key (no profile narrows the subscription).
    const bool heardAll
        = m_server.eventsLive && (!m_options.profile || m_options.profile->autodetect);
    if (ran(before.flushAll, mark.flushAll) && (before.keys != 0 || !m_tracked.isEmpty()))
        commands << QStringLiteral("FLUSHALL");
    if (ran(before.flushDb, mark.flushDb)
        && (!compared || (mark.keys == 0 && before.keys > 0) || (heardAll && unheard > 0)))
        commands << QStringLiteral("FLUSHDB");
    if (ran(before.swapDb, mark.swapDb) && (!compared || before.keys > 0 || mark.keys > 0))
        commands << QStringLiteral("SWAPDB");
    // Without the command counts (INFO refused), a fall of the key count
    // that the events did not announce stands in for them. Polling reads
    // what it shows, and has no deletions heard to weigh a fall against.
    const bool fell = m_commandStatsRefused && heardAll && compared && before.keys >= MinKeysForFall
                      && unheard > 0 && 2 * unheard >= before.keys;
    if (commands.isEmpty() && !fell)
        return;
    const QString where = !node.isEmpty()           ? node
                          : !m_runAddress.isEmpty() ? m_runAddress
                                                    : m_client->endpoint().address();
    const QString counts
        = compared ? QStringLiteral(": %1 keys before, %2 now").arg(before.keys).arg(mark.keys)
                   : QString();
    const QString reason
        = !commands.isEmpty()
              ? QStringLiteral("%1 ran on %2%3. Keyspace events do not announce it, so every "
                               "object is read again and the keyspace scanned again.")
                    .arg(commands.join(QStringLiteral(", ")), where, counts)
              : QStringLiteral("The key count on %1 fell from %2 to %3 in one tick, and keyspace "
                               "events announced %4 deletions: a FLUSHALL, FLUSHDB or SWAPDB (or a "
                               "replica's full resync) announces none, so every object is read "
                               "again and the keyspace scanned again.")
                    .arg(where)
                    .arg(before.keys)
                    .arg(mark.keys)
                    .arg(m_deletionsHeard - before.deletionsHeard);
    // The same server and subscription: only the readings are not trusted.
    distrustReadings(QStringLiteral("flush"), reason, compared ? before.keys : -1,
                     counted ? mark.keys : -1, -1);
    resumeReading();
}

void Monitor::noteKeyCount(qint64 keys)
{
    const qint64 before = std::exchange(m_lastDbSize, keys);
    if (before >= 20 && keys >= 0 && keys < before / 2
        && (m_server.world.generation == 0 || m_server.world.wholeAtMs >= 0))
        announceWorld(QStringLiteral("keys"),
                      QStringLiteral("The key count fell from %1 to %2 between two scans (a "
                                     "FLUSHALL or FLUSHDB, eviction, or many keys expiring at "
                                     "once); the server was not restarted.")
                          .arg(before)
                          .arg(keys),
                      before, keys);
}

void Monitor::noteVanished()
{
    int gone = 0;
    for (const ObjectList::Ptr &state : std::as_const(m_states))
        gone += state->gone ? 1 : 0;
    const int before = std::exchange(m_goneObjects, gone);
    const int lost = gone - before;
    if (lost >= 5 && lost * 2 >= int(m_states.size())
        && (m_server.world.generation == 0 || m_server.world.wholeAtMs >= 0))
        announceWorld(QStringLiteral("objects"),
                      QStringLiteral("%1 of the %2 objects shown vanished at once (deleted, "
                                     "expired or flushed); they show as gone.")
                          .arg(lost)
                          .arg(m_states.size()),
                      -1, -1);
}

void Monitor::checkWorldWhole()
{
    ServerStatus::World &w = m_server.world;
    if (w.generation == 0 || w.wholeAtMs >= 0 || !m_worldRescanned)
        return;
    for (const Tracked &t : std::as_const(m_tracked)) {
        if (t.stale || !t.track.everRead || t.readAtServerMs < w.sinceMs)
            return;
    }
    w.wholeAtMs = serverNow();
    publish();
}

void Monitor::judgeWritten(const QList<QByteArray> &keys)
{
    for (const QByteArray &key : keys) {
        if (key.isEmpty() || m_byKey.contains(key))
            continue; // read again by the refresh that follows an action
        if (std::optional<PatternObject> o
            = m_options.profile ? m_options.profile->objectFor(key) : std::nullopt)
            addObjects({*o}, true);
        else if (!m_options.profile || m_options.profile->autodetect)
            m_eventKeys.note(key, "written");
    }
}

EventKeyJudge::Host Monitor::eventKeyHost()
{
    EventKeyJudge::Host host;
    host.tracked = [this](const QByteArray &key) {
        return m_byKey.contains(key);
    };
    host.canRead = [this] {
        return m_started && !m_paused && m_client->state() == RedisConnection::State::Ready;
    };
    host.discovery = [this] {
        return std::make_unique<Discovery>(m_client, m_options.profile);
    };
    host.found = [this](const QList<PatternObject> &found) {
        addObjects(found, true);
        Q_EMIT objectsFound(found);
        if (!m_eventTimer.isActive())
            m_eventTimer.start();
        publish();
    };
    return host;
}

} // namespace gatehouse
