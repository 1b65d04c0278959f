// SPDX-License-Identifier: MIT
#pragma once

#include <monitor/snapshot.h>
#include <redis/serverfigures.h>

#include <QTimer>
#include <QWidget>

#include <optional>

class QLabel;
class QTableWidget;

namespace gatehouse {

class NodeCharts;

// The Nodes page: every node of the deployment (a standalone server, a
// Cluster's masters and replicas, a Sentinel master and its replicas) with
// role, master, slots, link, replication offset and lag, version, memory,
// clients, ops/s and persistence, and for each master what a failover or a
// crash would lose at this moment (Durability), from each snapshot. It notices a failover
// (another node becomes the master of the deployment or of a slot range) and
// says which node took over and when. Under the table, each node's memory,
// clients, ops/s and replication lag over time (NodeCharts).
class NodesPage : public QWidget
{
    Q_OBJECT
public:
    enum Column {
        Address,
        Role,
        MasterOf,
        Slots,
        Link,
        Offset,
        Lag,
        Version,
        Memory,
        Clients,
        OpsPerSec,
        Persistence,
        AtRisk, // masters: what a failover and a crash would lose now
        ColumnCount
    };

    explicit NodesPage(QWidget *parent = nullptr);

    // Cheap (a row per node, cells written only when their text changed):
    // called for every snapshot, shown or not, so no failover goes unseen.
    void update(const Snapshot &snapshot);
    // The figures the Overview's server panel read (one INFO of the server
    // the console is connected to): a standalone server's memory, clients
    // and ops/s, which the monitor reads only for a Cluster's or a
    // Sentinel deployment's nodes.
    void setServerFigures(const ServerFigures &figures);

    QTableWidget *table() const { return m_table; }
    NodeCharts *charts() const { return m_charts; }
    QString headline() const;
    QString lastFailover() const { return m_lastFailover; }

Q_SIGNALS:
    // On screen with a standalone server: fresh server figures wanted (on
    // show, then every RefreshMs); answered with setServerFigures.
    void serverFiguresWanted();

public:
    static constexpr int RefreshMs = 5000;

protected:
    void showEvent(QShowEvent *event) override;
    void hideEvent(QHideEvent *event) override;

private:
    void setCell(int row, int column, const QString &text, const QString &toolTip = {});
    bool standalone() const;
    // A standalone server's row: its own figures, else the panel's; fresh:
    // just read, and charted.
    void showFigures(bool fresh);
    void chartNodes(const Snapshot &snapshot);
    // update's parts: the heading, a failover since the last update, the
    // columns shown, and a node's row.
    void updateHeading(const ServerStatus &server, int masters, const QStringList &masterAddresses);
    void noticeFailover(const QStringList &masterAddresses);
    void showColumnsFor(const ServerStatus &server);
    void fillRow(int row, const ServerStatus &server, const QHash<QString, qint64> &masterOffset);

    QLabel *m_heading;
    QLabel *m_failover;
    QTableWidget *m_table;
    NodeCharts *m_charts;
    QStringList m_masters; // the masters' addresses at the last update
    QString m_lastFailover;
    QString m_mode; // ServerStatus::mode at the last update
    std::optional<ServerFigures> m_serverFigures;
    NodeStatus m_standaloneNode; // the standalone server's row at the last update
    qint64 m_serverNowMs = 0;    // the server's time at the last update
    QTimer m_refresh;
};

} // namespace gatehouse
