// SPDX-License-Identifier: MIT
#pragma once

#include <monitor/connectiontimeline.h>

#include <QWidget>

#include <memory>

class QLabel;
class QTableWidget;

namespace gatehouse {

class HistoryStore;

// The connection's timeline, newest first: when it was lost and back, when
// the server restarted or the master changed, when keys or objects vanished,
// when readings went stale and became current (or whole) again. Fed every
// snapshot (ConnectionTimeline); with a history file, what earlier runs
// recorded comes first and every new entry is recorded there.
class TimelinePage : public QWidget
{
    Q_OBJECT
public:
    explicit TimelinePage(QWidget *parent = nullptr);

    void setSnapshot(const Snapshot &snapshot);
    void setHistory(const std::weak_ptr<HistoryStore> &store, const QString &file);
    const ConnectionTimeline &timeline() const { return m_timeline; }
    QTableWidget *table() const { return m_table; }

private:
    void fill();

    ConnectionTimeline m_timeline;
    std::weak_ptr<HistoryStore> m_store;
    QLabel *m_summary;
    QTableWidget *m_table;
};

} // namespace gatehouse
