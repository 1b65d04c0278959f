// SPDX-License-Identifier: MIT
#pragma once

#include <monitor/connectiontimeline.h>

#include <QWidget>

class QLabel;
class QTableWidget;

namespace gatehouse {

// The connection's timeline, newest first: when it was lost and back, when
// the server restarted or the master changed, when keys or objects vanished,
// when readings went stale and became current (or whole) again. Fed every
// snapshot (ConnectionTimeline); with a history file, what earlier runs
// recorded there comes first (the deployment records each entry: Deployment).
class TimelinePage : public QWidget
{
    Q_OBJECT
public:
    explicit TimelinePage(QWidget *parent = nullptr);

    void setSnapshot(const Snapshot &snapshot);
    // Reads what earlier runs recorded in file, up to now: call it before
    // the deployment starts recording this run's entries.
    void setHistoryFile(const QString &file);
    const ConnectionTimeline &timeline() const { return m_timeline; }
    QTableWidget *table() const { return m_table; }

private:
    void fill();

    ConnectionTimeline m_timeline;
    QLabel *m_summary;
    QTableWidget *m_table;
};

} // namespace gatehouse
