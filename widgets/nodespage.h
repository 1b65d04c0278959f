// SPDX-License-Identifier: MIT
#pragma once

#include <monitor/snapshot.h>

#include <QWidget>

class QLabel;
class QTableWidget;

namespace gatehouse {

// The Nodes page: every node of the deployment (a standalone server, a
// Cluster's masters and replicas, a Sentinel master and its replicas) with
// role, master, slots, link, replication offset and lag, version, memory,
// clients, ops/s and persistence, and for each master what a failover or a
// crash would lose at this moment (Durability), from each snapshot. It notices a failover
// (another node becomes the master of the deployment or of a slot range) and
// says which node took over and when.
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

    QTableWidget *table() const { return m_table; }
    QString headline() const;
    QString lastFailover() const { return m_lastFailover; }

private:
    void setCell(int row, int column, const QString &text, const QString &toolTip = {});

    QLabel *m_heading;
    QLabel *m_failover;
    QTableWidget *m_table;
    QStringList m_masters; // the masters' addresses at the last update
    QString m_lastFailover;
};

} // namespace gatehouse
