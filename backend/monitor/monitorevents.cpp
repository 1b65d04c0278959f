// SPDX-License-Identifier: MIT
// The monitor's keyspace events: subscribing on every master (again after a
// failover), what an event marks for re-reading, and notify-keyspace-events
// read again while subscribed.
#include "discovery.h"
#include "monitor.h"

#include <redis/redisclient.h>
#include <redis/redissubscriber.h>

#include <QSet>
#include <QTimer>

#include <algorithm>
#include <memory>

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

// A Cluster's masters whose events count: those serving slots and not
// down (a master failed over keeps its entry, without slots, until it is
// forgotten; a subscriber there would wait for it forever).
QList<int> eventNodes(const Topology &topology)
{
    QList<int> nodes = topology.masters();
    nodes.removeIf([&topology](int i) {
        const TopologyNode &n = topology.nodes.at(i);
        return n.slotRanges.isEmpty() || n.health.startsWith(QLatin1String("fail"));
    });
    return nodes;
}

} // namespace

void Monitor::followEventsConfig(const RedisValue &config)
{
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
            m_server.notes << QStringLiteral("Keyspace events are off (notify-keyspace-events is "
                                             "\"%1\"); polling every %2 ms. Enabling them is an "
                                             "operator action.")
                                  .arg(QString::fromUtf8(flags))
                                  .arg(m_options.intervalMs);
        }
    }
}

QStringList Monitor::eventMasters(const Topology &topology)
{
    QStringList masters;
    if (topology.isCluster()) {
        for (int i : eventNodes(topology))
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
    setEventsLive(false);
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
    if (!m_awaited.address.isEmpty()) {
        m_awaited.subscribe = true; // on the new master, once the connection reaches it
        return;
    }
    m_eventMasters = eventMasters(m_client->topology());
    // A Cluster: one subscriber per master (events are node-local).
    QList<RedisEndpoint> masters;
    const Topology topology = m_client->topology();
    if (topology.isCluster()) {
        for (int i : eventNodes(topology)) {
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
    // Live once every master counts its subscription. A subscriber that lost
    // its connection missed its master's events: objects are polled until
    // it is back, and keys written in the gap were announced to no one, so
    // the keyspace is scanned again once it is.
    struct Subscriptions
    {
        qsizetype total = 0;
        QSet<const RedisSubscriber *> subscribed;
        QSet<const RedisSubscriber *> lapsed;
    };
    auto subscriptions = std::make_shared<Subscriptions>();
    subscriptions->total = std::max<qsizetype>(1, masters.size());
    const auto follow = [this, subscriptions, &patterns](RedisSubscriber *subscriber) {
        connect(subscriber, &RedisSubscriber::patternMessage, this, &Monitor::onEvent);
        connect(subscriber, &RedisSubscriber::subscribed, this, [this, subscriptions, subscriber] {
            m_fullPassDue = true; // whatever changed before the subscription went unseen
            const bool wasComplete = subscriptions->subscribed.size() == subscriptions->total;
            subscriptions->subscribed.insert(subscriber);
            if (subscriptions->lapsed.remove(subscriber) && m_started && m_awaited.address.isEmpty()
                && m_client->state() == RedisConnection::State::Ready)
                startDiscovery();
            if (!wasComplete && subscriptions->subscribed.size() == subscriptions->total)
                verifyEvents(); // live once the master counts the subscription
        });
        connect(subscriber, &RedisSubscriber::stateChanged, this,
                [this, subscriptions, subscriber](RedisConnection::State state,
                                                  const QString &message) {
                    if (state == RedisConnection::State::Ready)
                        return;
                    m_fullPassDue = true;
                    if (subscriptions->subscribed.remove(subscriber))
                        subscriptions->lapsed.insert(subscriber);
                    if (m_server.eventsLive) {
                        setEventsLive(false);
                        m_server.notes << QStringLiteral("Keyspace events lost (%1); polling "
                                                         "until they are back.")
                                              .arg(message);
                    }
                });
        subscriber->psubscribe(patterns);
        subscriber->open();
    };
    follow(m_subscriber.get());
    for (qsizetype i = 1; i < masters.size(); ++i) {
        m_moreSubscribers.push_back(std::make_unique<RedisSubscriber>(masters.at(i)));
        follow(m_moreSubscribers.back().get());
    }
}

void Monitor::onEvent(const QByteArray &, const QByteArray &channel, const QByteArray &event)
{
    const qsizetype colon = channel.indexOf("__:");
    if (colon < 0)
        return;
    const QByteArray key = channel.mid(colon + 3);
    // The deletions announced, against which a falling key count is
    // measured (noteKeyspace).
    if (event == "del" || event == "expired" || event == "evicted" || event == "move_from"
        || event == "rename_from")
        ++m_deletionsHeard;
    auto it = m_byKey.constFind(key);
    if (it != m_byKey.cend()) {
        Tracked &t = m_tracked[*it];
        t.dirty = t.unit->rereadOnEvent(); // a busy token family: by the tick
        if (t.observeUntilMs > 0 && t.behaviour)
            BehaviourWatch::note(*t.behaviour, event);
        // A job leaves the processing list when a worker is done (LREM), or
        // when it is requeued or dead-lettered: the queue's throughput.
        if (t.unit->isCompletion(objectAt(*it), key, event))
            ++t.track.completions;
    } else if (std::optional<PatternObject> o
               = m_options.profile ? m_options.profile->objectFor(key) : std::nullopt) {
        addObjects({*o}, true);
    } else if (!m_options.profile || m_options.profile->autodetect) {
        m_eventKeys.note(key, event); // judged at once, not at the next rescan
    }
    m_watch.noteEvent(key, event);
    if (!m_eventTimer.isActive())
        m_eventTimer.start();
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
    // a switch, a subscriber may still reach the old one), and that master
    // must publish: a restarted server has its configured flags again, not
    // those set at run time.
    RedisSubscriber *subscriber = m_subscriber.get();
    m_client->pipeline({{"CONFIG", "GET", "notify-keyspace-events"}, {"PUBSUB", "NUMPAT"}},
                       &m_context, [this, subscriber, live](const QList<RedisValue> &r) {
                           if (m_subscriber.get() != subscriber)
                               return; // replaced meanwhile: its own check follows
                           const RedisValue config = r.value(0);
                           const RedisValue v = r.value(1);
                           if (r.size() != 2 || v.isFailed())
                               return; // lost again: the next ready() asks again
                           if (!config.isError() && config.size() == 2
                               && !eventsCover(config.at(1).bytes())) {
                               applyEventsConfig(false, config.at(1).bytes());
                               return; // polling; the config check follows them back on
                           }
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
        setEventsLive(live);
        publish();
    }
}

} // namespace gatehouse
