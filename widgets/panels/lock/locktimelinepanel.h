// SPDX-License-Identifier: MIT
#pragma once

#include <panels/panelregistry.h>

#include <QHash>

class QLabel;
class QTableWidget;

namespace gatehouse {

// A lock's holders over time: who held it (the token), since when, when it
// ended (released before its TTL ran out, or expired) and for how long,
// built from the monitor's readings as they arrive (every lock of the
// patterns it serves is followed, the selected one shown). The first holder seen may
// have taken it before the console watched: its start is marked "≤". With a
// history file, every change of holder is recorded there as an event
// ("lock.acquired", "lock.released", "lock.expired": the token) and a
// selected lock's earlier holders (from earlier runs) are read back from it,
// off the GUI thread.
class LockTimelinePanel : public ObjectPanel
{
    Q_OBJECT
public:
    // Its registration (panels/builtinpanels.cpp).
    static PanelRegistry::Panel registration();

    // Holders kept per lock and locks followed (the oldest forgotten first).
    static constexpr int MaxHolders = 50;
    static constexpr int MaxLocks = 5000;
    // The holders listed without scrolling: the pane is as high as its
    // rows, at least MinRows.
    static constexpr int MinRows = 2;
    static constexpr int MaxRows = 8;

    struct Holder
    {
        QByteArray token;
        qint64 acquiredMs = -1;       // server time
        bool acquiredAtLeast = false; // it held the lock when first seen: acquired at or before
        qint64 endedMs = -1;          // server time; -1: holds it still
        qint64 expiresAtMs = -1;      // server time its TTL ran out, as last read; -1: no TTL
        QString end;                  // "released" | "expired"; "unknown": not watched
        bool fromHistory = false;     // read back from the history file (an earlier run)
    };
    // How far back the history file is read for a selected lock, and at most
    // how many of its events.
    static constexpr qint64 HistoryReachMs = 7LL * 24 * 3600 * 1000;
    static constexpr int MaxHistoryEvents = 400;

    explicit LockTimelinePanel(const Context &context, QWidget *parent = nullptr);

    void setSnapshot(const std::shared_ptr<const Snapshot> &snapshot) override;
    void setObject(const ObjectState *state) override;
    void setOffline(const QString &why) override;
    void setHistory(const std::weak_ptr<HistoryStore> &store, const QString &file) override;

    // For tests: the holders of a lock, oldest first, as shown (earlier runs'
    // from the history file first).
    QList<Holder> holders(const QByteArray &key) const;
    bool isReadingHistory() const { return m_reading; }

private:
    void follow(const ObjectState &state);
    void fill();
    void fitRows(int rows);
    void record(const QByteArray &key, const Holder &holder, bool ended);
    void readHistory(const QByteArray &key);

    QSet<PatternKind> m_kinds; // the lock patterns followed
    std::weak_ptr<HistoryStore> m_store;
    QString m_historyFile;
    qint64 m_watchStartMs = -1;                 // server time of the first snapshot seen
    QHash<QByteArray, QList<Holder>> m_earlier; // from the history file, by lock
    quint64 m_readGeneration = 0;
    bool m_reading = false;

    std::shared_ptr<const Snapshot> m_last;
    // The lock's last reading's server time while it is stale or the
    // console offline (its holder's "held for" stops there); -1: current.
    qint64 m_asReadAtMs = -1;
    bool m_offline = false;
    QHash<QByteArray, QList<Holder>> m_holders;
    QList<QByteArray> m_order; // locks by first seen, for forgetting the oldest
    // Locks forgotten past MaxLocks, with the holder the history file has
    // for them (qHash of its token): read again with the same holder, a lock
    // is followed again without a second "held" event. Past MaxForgotten the
    // oldest go (one more event each, no more).
    static constexpr int MaxForgotten = 8 * MaxLocks;
    QHash<QByteArray, size_t> m_forgotten;
    QList<QByteArray> m_forgottenOrder;
    void forget(const QByteArray &key);
    QByteArray m_key; // the lock shown
    qint64 m_clockOffsetMs = 0;
    QLabel *m_title;
    QTableWidget *m_table;
};

} // namespace gatehouse
