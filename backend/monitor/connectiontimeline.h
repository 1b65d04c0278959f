// SPDX-License-Identifier: MIT
#pragma once

#include "snapshot.h"

#include <QHash>
#include <QJsonObject>
#include <QList>
#include <QString>

#include <optional>
#include <vector>

namespace gatehouse {

// What happened to the connection and to the server behind it, told from
// the snapshots: a node's connection lost and back, a restart, a master
// switch, keys or objects vanishing at once, readings going stale and
// becoming current (or, after a new world, whole) again. observe() takes
// every snapshot in order; the newest MaxEntries entries are kept. The
// console's Timeline page, `watch --history` and `gatehouse-cli timeline`
// show them; the history file keeps them as events of kind
// "connection.<event>" with no key.
class ConnectionTimeline
{
public:
    struct Entry
    {
        // Server ms: the snapshot's time, or while the server does not
        // answer the local clock corrected by the last known offset.
        qint64 atMs = 0;
        // "connected", "connectionLost", "reconnected", "serverRestarted",
        // "masterChanged", "keyspaceReplaced", "keysVanished",
        // "objectsVanished", "readingsStale",
        // "readingsCurrent", "readingsWhole".
        QString event;
        QString node; // the address it is about; empty: the deployment
        QString text; // the sentence for the operator

        QJsonObject toJson() const;
        QString historyKind() const { return HistoryPrefix + event; }
        // An event of the history file (HistoryEvent's at, kind, text);
        // nullopt when kind is not a timeline entry's.
        static std::optional<Entry> fromHistory(qint64 atMs, const QString &kind,
                                                const QString &text);
        // "Connection lost", "Server restarted", ... for a list's first column.
        static QString title(const QString &event);
        // Whether the entry says something went wrong (shown in the
        // palette's alarm colour) rather than that it is back.
        static bool isLoss(const QString &event);
    };

    // The event a ServerStatus::World kind begins ("restart": "serverRestarted",
    // "master": "masterChanged", "flush": "keyspaceReplaced", "keys":
    // "keysVanished", else "objectsVanished").
    static QString worldEvent(const QString &kind);

    static constexpr int MaxEntries = 500;
    static inline const QString HistoryPrefix = QStringLiteral("connection.");

    // The entries snapshot adds, oldest first; they are kept too. localNowMs:
    // the local clock (ms since the epoch) when it arrived.
    QList<Entry> observe(const Snapshot &snapshot, qint64 localNowMs);
    const QList<Entry> &entries() const { return m_entries; }
    // Entries from before (the history file), oldest first, ahead of the
    // ones observed; the bound holds.
    void prepend(const QList<Entry> &earlier);

private:
    void add(QList<Entry> &added, Entry entry);
    void observeNodes(const Snapshot &s, qint64 nowMs, QList<Entry> &added);
    void observeWorld(const Snapshot &s, QList<Entry> &added);
    void observeStale(const Snapshot &s, qint64 nowMs, QList<Entry> &added);

    struct NodeTrack
    {
        bool everReady = false;
        bool ready = false;
        qint64 lostAtMs = -1;
    };
    QHash<QString, NodeTrack> m_nodes; // by address
    int m_worldGeneration = 0;
    bool m_worldWhole = true;
    int m_stale = 0; // objects stale in the last snapshot
    // That snapshot's objects (shared with it): the next one is counted by
    // what it replaced, not by reading every object again.
    ObjectList m_seen;
    std::vector<char> m_seenStale; // per place of m_seen: 1 when it counts as stale
    QList<Entry> m_entries;
};

} // namespace gatehouse
