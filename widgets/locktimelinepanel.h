// SPDX-License-Identifier: MIT
#pragma once

#include "objectpanel.h"

#include <QHash>

class QLabel;
class QTableWidget;

namespace gatehouse {

// A lock's holders over time: who held it (the token), since when, when it
// ended (released before its TTL ran out, or expired) and for how long,
// built from the monitor's readings as they arrive (every lock of the
// section is followed, the selected one shown). The first holder seen may
// have taken it before the console watched: its start is marked "≤".
class LockTimelinePanel : public ObjectPanel
{
    Q_OBJECT
public:
    // Holders kept per lock and locks followed (the oldest forgotten first).
    static constexpr int MaxHolders = 50;
    static constexpr int MaxLocks = 5000;

    struct Holder
    {
        QByteArray token;
        qint64 acquiredMs = -1;       // server time
        bool acquiredAtLeast = false; // it held the lock when first seen: acquired at or before
        qint64 endedMs = -1;          // server time; -1: holds it still
        qint64 expiresAtMs = -1;      // server time its TTL ran out, as last read; -1: no TTL
        QString end;                  // "released" | "expired" | "gone"
    };

    explicit LockTimelinePanel(QWidget *parent = nullptr);

    void setSnapshot(const std::shared_ptr<const Snapshot> &snapshot) override;
    void setObject(const ObjectState *state) override;

    // For tests: the holders of a lock, oldest first.
    QList<Holder> holders(const QByteArray &key) const { return m_holders.value(key); }

private:
    void follow(const ObjectState &state);
    void fill();

    std::shared_ptr<const Snapshot> m_last;
    QHash<QByteArray, QList<Holder>> m_holders;
    QList<QByteArray> m_order; // locks by first seen, for forgetting the oldest
    QByteArray m_key;          // the lock shown
    qint64 m_clockOffsetMs = 0;
    QLabel *m_title;
    QTableWidget *m_table;
};

} // namespace gatehouse
