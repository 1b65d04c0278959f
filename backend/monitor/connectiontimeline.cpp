// SPDX-License-Identifier: MIT
#include "connectiontimeline.h"

#include <algorithm>

#include <patterns/countedsentence.h>

#include <QDateTime>
#include <QRegularExpression>

namespace gatehouse {

namespace {

struct EventName
{
    const char *id;
    const char *title;
    bool loss;
};

constexpr EventName s_events[] = {
    {"connected", "Connected", false},
    {"connectionLost", "Connection lost", true},
    {"reconnected", "Reconnected", false},
    {"serverRestarted", "Server restarted", true},
    {"masterChanged", "Master changed", true},
    {"keyspaceReplaced", "Keyspace emptied or swapped", true},
    {"keysVanished", "Keys vanished", true},
    {"objectsVanished", "Objects vanished", true},
    {"readingsStale", "Readings stale", true},
    {"readingsCurrent", "Readings current", false},
    {"readingsWhole", "Readings whole", false},
};

const EventName *find(const QString &event)
{
    for (const EventName &e : s_events) {
        if (event == QLatin1String(e.id))
            return &e;
    }
    return nullptr;
}

QString clock(qint64 serverMs)
{
    return QDateTime::fromMSecsSinceEpoch(serverMs).toLocalTime().toString(
        QStringLiteral("HH:mm:ss"));
}

QString seconds(qint64 ms)
{
    return QString::number(double(ms) / 1000.0, 'f', 1);
}

} // namespace

QString ConnectionTimeline::worldEvent(const QString &kind)
{
    if (kind == QLatin1String("restart"))
        return QStringLiteral("serverRestarted");
    if (kind == QLatin1String("master"))
        return QStringLiteral("masterChanged");
    if (kind == QLatin1String("flush"))
        return QStringLiteral("keyspaceReplaced");
    if (kind == QLatin1String("keys"))
        return QStringLiteral("keysVanished");
    return QStringLiteral("objectsVanished");
}

QJsonObject ConnectionTimeline::Entry::toJson() const
{
    QJsonObject o{{QStringLiteral("atMs"), double(atMs)},
                  {QStringLiteral("event"), event},
                  {QStringLiteral("text"), text}};
    if (!node.isEmpty())
        o.insert(QStringLiteral("node"), node);
    return o;
}

std::optional<ConnectionTimeline::Entry>
ConnectionTimeline::Entry::fromHistory(qint64 atMs, const QString &kind, const QString &text)
{
    if (!kind.startsWith(HistoryPrefix))
        return std::nullopt;
    const QString event = kind.mid(HistoryPrefix.size());
    if (!find(event))
        return std::nullopt;
    return Entry{atMs, event, QString(), text};
}

QString ConnectionTimeline::Entry::title(const QString &event)
{
    const EventName *e = find(event);
    return e ? QString::fromLatin1(e->title) : event;
}

bool ConnectionTimeline::Entry::isLoss(const QString &event)
{
    const EventName *e = find(event);
    return e && e->loss;
}

QList<ConnectionTimeline::Entry> ConnectionTimeline::observe(const Snapshot &snapshot,
                                                             qint64 localNowMs)
{
    QList<Entry> added;
    const qint64 serverNow = localNowMs + snapshot.server.clockOffsetMs;
    observeNodes(snapshot, serverNow, added);
    observeWorld(snapshot, added);
    observeStale(snapshot, serverNow, added);
    return added;
}

void ConnectionTimeline::prepend(const QList<Entry> &earlier)
{
    QList<Entry> all = earlier;
    all.append(m_entries);
    if (all.size() > MaxEntries)
        all.remove(0, all.size() - MaxEntries);
    m_entries = std::move(all);
}

void ConnectionTimeline::add(QList<Entry> &added, Entry entry)
{
    // In time order, whatever order they were noticed in: one snapshot can
    // tell of a restart that began before the readings it made stale were
    // noticed (the world's own time beside the local clock's). After the
    // last entry no later than it, so equal times keep their arrival order.
    const auto insertByTime = [](QList<Entry> &list, Entry e) {
        qsizetype at = list.size();
        while (at > 0 && list.at(at - 1).atMs > e.atMs)
            --at;
        list.insert(at, std::move(e));
    };
    insertByTime(added, entry);
    insertByTime(m_entries, std::move(entry));
    if (m_entries.size() > MaxEntries)
        m_entries.removeFirst();
}

void ConnectionTimeline::observeNodes(const Snapshot &s, qint64 nowMs, QList<Entry> &added)
{
    for (const NodeStatus &n : s.server.nodes) {
        NodeTrack &t = m_nodes[n.address];
        const bool ready = n.connection.state == ConnectionState::Ready;
        if (ready == t.ready)
            continue;
        t.ready = ready;
        if (ready && !t.everReady) {
            t.everReady = true;
            add(added, {nowMs, QStringLiteral("connected"), n.address,
                        QStringLiteral("Connected to %1.").arg(n.address)});
        } else if (ready) {
            const qint64 gap = t.lostAtMs >= 0 ? nowMs - t.lostAtMs : -1;
            add(added, {nowMs, QStringLiteral("reconnected"), n.address,
                        gap >= 0 ? QStringLiteral("Connected to %1 again after %2 s.")
                                       .arg(n.address, seconds(gap))
                                 : QStringLiteral("Connected to %1 again.").arg(n.address)});
        } else if (t.everReady) {
            t.lostAtMs = nowMs;
            // The sentence without its retry countdown (a figure of that moment).
            static const QRegularExpression attempt(
                QStringLiteral("\\s*Next attempt in \\d+ ms\\.$"));
            const QString why = QString(n.connection.message).remove(attempt).trimmed();
            add(added, {nowMs, QStringLiteral("connectionLost"), n.address,
                        why.isEmpty()
                            ? QStringLiteral("Lost the connection to %1.").arg(n.address)
                            : QStringLiteral("Lost the connection to %1: %2").arg(n.address, why)});
        }
    }
}

void ConnectionTimeline::observeWorld(const Snapshot &s, QList<Entry> &added)
{
    const ServerStatus::World &w = s.server.world;
    const bool began = w.generation != m_worldGeneration;
    m_worldGeneration = w.generation;
    if (began && w.generation > 0)
        add(added, {w.sinceMs, worldEvent(w.kind), QString(), w.reason});
    const bool whole = w.wholeAtMs >= 0;
    if (w.reread && whole && (began || !m_worldWhole))
        add(added, {w.wholeAtMs, QStringLiteral("readingsWhole"), QString(),
                    QStringLiteral("Every object was read again and the keyspace rescanned, "
                                   "%1 after the change.")
                        .arg(w.wholeAtMs - w.sinceMs < 10000
                                 ? QStringLiteral("%1 ms").arg(w.wholeAtMs - w.sinceMs)
                                 : seconds(w.wholeAtMs - w.sinceMs) + QStringLiteral(" s"))});
    m_worldWhole = !w.reread || whole;
}

void ConnectionTimeline::observeStale(const Snapshot &s, qint64 nowMs, QList<Entry> &added)
{
    const auto counts = [](const ObjectState &o) {
        return o.stale && !o.gone ? 1 : 0;
    };
    // A snapshot shares the states it did not replace with the last one: a
    // pointer compared per object, an object read only where it changed
    // (every snapshot, ten a second at most, on the thread that shows it).
    const ObjectList &now = s.objects;
    int stale = 0;
    if (m_seen.size() == now.size() && !now.isEmpty()) {
        stale = m_stale;
        for (qsizetype i = 0; i < now.size(); ++i) {
            const ObjectState *is = now.ptr(i).get();
            if (m_seen.ptr(i).get() == is)
                continue;
            // The replaced state's count is kept, not read again.
            const char c = char(counts(*is));
            stale += c - m_seenStale[size_t(i)];
            m_seenStale[size_t(i)] = c;
        }
    } else {
        m_seenStale.assign(size_t(now.size()), 0);
        for (qsizetype i = 0; i < now.size(); ++i) {
            const char c = char(counts(now.at(i)));
            m_seenStale[size_t(i)] = c;
            stale += c;
        }
    }
    m_seen = now;
    const int before = std::exchange(m_stale, stale);
    if (before == 0 && stale > 0) {
        qint64 since = -1; // the oldest reading they keep
        for (const ObjectState &o : now) {
            if (counts(o) && o.staleSinceMs >= 0 && (since < 0 || o.staleSinceMs < since))
                since = o.staleSinceMs;
        }
        add(added, {nowMs, QStringLiteral("readingsStale"), QString(),
                    since >= 0 ? countedSentence(QStringLiteral("Stale: %1 objects, nothing read "
                                                                "since %2; their figures are the "
                                                                "last ones read."),
                                                 stale)
                                     .arg(clock(since))
                               : countedSentence(QStringLiteral("Stale: %1 objects; their figures "
                                                                "are the last ones read."),
                                                 stale)});
    } else if (before > 0 && stale == 0 && m_worldWhole
               && std::none_of(added.cbegin(), added.cend(), [](const Entry &e) {
                      return e.event == QLatin1String("readingsWhole");
                  })) {
        // After a new world, its readingsWhole entry says so already.
        add(added, {s.server.timeMs, QStringLiteral("readingsCurrent"), QString(),
                    QStringLiteral("Every object was read again: the readings are current.")});
    }
}

} // namespace gatehouse
