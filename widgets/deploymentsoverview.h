// SPDX-License-Identifier: MIT
#pragma once

#include "environment.h"
#include "overviewtiles.h"

#include <monitor/snapshot.h>

#include <QWidget>

class QTableWidget;
class QLabel;
class QTimer;

namespace gatehouse {

// Every open deployment on one screen: a row each, with its environment,
// its connection, and the Overview's tile counts (countTiles: the same
// figures its own window shows), the nodes down and the objects needing
// attention. A deployment whose connection is lost keeps its last figures,
// greyed and said to be of that time: never shown as current. A double
// click opens that deployment's window on the cell's worst object.
class DeploymentsOverview : public QWidget
{
    Q_OBJECT
public:
    explicit DeploymentsOverview(QWidget *parent = nullptr);

    // A row for a deployment (name: how it is called, e.g. its URL without
    // secrets); returns its id.
    int addDeployment(const QString &name, const Environment &environment);
    void removeDeployment(int id);
    // Its latest snapshot (as its window's Overview gets it): kept, and
    // shown at most a few times a second while this is visible.
    void setSnapshot(int id, const Snapshot &snapshot);
    // Shows every snapshot set since the last time, now.
    void refresh();
    int deploymentCount() const;

    // For tests and the screenshot: a cell's text by deployment and column
    // title ("Connection", a tile's title, "Nodes down", "Attention").
    QString cellText(int id, const QString &column) const;
    // Whether a deployment's figures are shown as not current.
    bool isStale(int id) const;
    QTableWidget *table() const { return m_table; }

protected:
    void showEvent(QShowEvent *event) override;

Q_SIGNALS:
    // Show that deployment's window; section and key: the object to open
    // (empty: just the window).
    void openRequested(int id, const QString &section, const QByteArray &key);

private:
    struct Row
    {
        int id = 0;
        QString name;
        Environment environment;
        Snapshot snapshot;
        bool dirty = false;
        TileCounts counts;
        bool haveSnapshot = false;
        bool stale = false;
    };
    int rowOf(int id) const;
    int columnOf(const QString &title) const;
    void showRow(int row, const Snapshot *snapshot);
    void updateSummary();

    QLabel *m_summary;
    QTableWidget *m_table;
    QTimer *m_refresh;
    QList<Row> m_rows;
    QStringList m_columns;
    int m_nextId = 1;
};

} // namespace gatehouse
