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

void Monitor::beginNewWorld(const QString &reason, bool restart, qint64 keysAfter, qint64 uptimeS)
{
    ServerStatus::World &w = m_server.world;
    ++w.generation;
    w.kind = restart ? QStringLiteral("restart") : QStringLiteral("master");
    w.reason = reason;
    w.restart = restart;
    w.sinceMs = serverNow();
    w.wholeAtMs = -1;
    w.keysBefore = m_lastDbSize;
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
    // Events come from the master there is now: a new subscription, live
    // once that master counts it (verifyEvents); polling until then.
    if (m_subscriber) {
        m_subscriber.reset();
        m_moreSubscribers.clear();
        m_eventClient.reset();
        setEventsLive(false);
        m_awaited.subscribe = true;
    }
    m_fullPassDue = true;
    // Keys that exist only now, and the candidates: the keyspace again.
    m_worldRescanned = false;
    m_eventKeys.newWorld();
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
    w.sinceMs = serverNow();
    w.wholeAtMs = w.sinceMs; // the readings are the server's: nothing to read again
    w.keysBefore = keysBefore;
    w.keysAfter = keysAfter;
    w.uptimeS = -1;
    m_snapshotFresh = false;
    publish();
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

void Monitor::verifyEvents()
{
    if (!m_subscriber || !m_eventsCovered)
        return;
    const auto live = [this] {
        if (!m_server.eventsLive) {
            setEventsLive(true);
            publish();
        }
    };
    // A Cluster: one subscriber per master, each confirmed by its master.
    if (m_client->topology().isCluster()) {
        live();
        return;
    }
    // The subscription must be on the master the readings come from (after
    // a switch, a subscriber may still reach the old one).
    RedisSubscriber *subscriber = m_subscriber.get();
    m_client->command({"PUBSUB", "NUMPAT"}, &m_context,
                      [this, subscriber, live](const RedisValue &v) {
                          if (m_subscriber.get() != subscriber)
                              return; // replaced meanwhile: its own check follows
                          if (!v.isError() && v.toInteger() < 1) {
                              QTimer::singleShot(1000, &m_context, [this, subscriber] {
                                  if (m_subscriber.get() == subscriber)
                                      verifyEvents();
                              });
                              return; // polling meanwhile
                          }
                          live(); // counted, or PUBSUB refused: the server's confirmation stands
                      });
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
