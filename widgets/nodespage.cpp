// SPDX-License-Identifier: MIT
#include "nodespage.h"

#include "nodecharts.h"
#include "splitterstate.h"

#include <patterns/presentation.h>

#include <QDateTime>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QSplitter>
#include <QStyledItemDelegate>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace gatehouse {

namespace {

QString figure(qint64 v)
{
    return v < 0 ? QStringLiteral("–") : QLocale().toString(v);
}

QString memory(qint64 bytes)
{
    return formatBytes(bytes); // IEC, as the server panel
}

QString link(const NodeStatus &n)
{
    using State = ConnectionState;
    switch (n.connection.state) {
    case State::Ready:
        break;
    case State::Connecting:
        return NodesPage::tr("connecting");
    case State::Reconnecting:
        return NodesPage::tr("reconnecting");
    case State::Disconnected:
    case State::Failed:
        return NodesPage::tr("unreachable");
    }
    return n.health.isEmpty() ? NodesPage::tr("connected") : n.health;
}

// "AOF everysec, RDB saved 12:03:04 (ok)"
QString persistenceText(const Durability &d)
{
    QStringList parts;
    if (d.aofEnabled == 1)
        parts << (d.appendfsync.isEmpty() ? NodesPage::tr("AOF on")
                                          : NodesPage::tr("AOF %1").arg(d.appendfsync));
    else if (d.aofEnabled == 0)
        parts << NodesPage::tr("AOF off");
    if (d.configKnown && d.saveRules.isEmpty())
        parts << NodesPage::tr("no RDB save rules");
    if (d.rdbLastSaveS > 0)
        parts << NodesPage::tr("RDB saved %1%2")
                     .arg(QDateTime::fromSecsSinceEpoch(d.rdbLastSaveS).toString(Qt::ISODate),
                          d.rdbLastBgsaveStatus == QLatin1String("err")
                              ? NodesPage::tr(" (last save failed)")
                              : QString());
    return parts.join(QLatin1String(", "));
}

// The figures behind the sentence, for its tooltip.
QString durabilityDetail(const Durability &d)
{
    if (!d.known)
        return d.error;
    QStringList lines;
    lines << NodesPage::tr("Replicas in sync: %1 of %2")
                 .arg(d.replicasInSync())
                 .arg(d.replicas.size());
    for (const ReplicaLink &r : d.replicas)
        lines << NodesPage::tr("  %1: %2, %3 bytes behind, last acknowledgement %4 s ago")
                     .arg(r.address, r.state, figure(r.behindBytes), figure(r.lastAckS));
    if (d.minReplicasToWrite > 0)
        lines << NodesPage::tr("min-replicas-to-write %1 (max lag %2 s), good replicas %3")
                     .arg(d.minReplicasToWrite)
                     .arg(d.minReplicasMaxLagS)
                     .arg(figure(d.goodReplicas));
    else if (d.minReplicasToWrite == 0)
        lines << NodesPage::tr("min-replicas-to-write off: the master takes writes with no "
                               "replica");
    if (d.writeBytesPerS >= 0)
        lines << NodesPage::tr("Replication stream: %1/s")
                     .arg(formatBytes(qRound64(d.writeBytesPerS)));
    return lines.join(QLatin1Char('\n'));
}

bool wraps(int column)
{
    return column == NodesPage::Persistence || column == NodesPage::AtRisk;
}

// Persistence and "If it fails now" wrap within their columns and the row
// grows to them: whole at 1280 px, where one line cannot hold them. Text
// past what a row can show is elided at the end (the tooltip has it all).
class WrapDelegate : public QStyledItemDelegate
{
public:
    explicit WrapDelegate(QTableWidget *table)
        : QStyledItemDelegate(table)
        , m_table(table)
    {}

    QSize sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const override
    {
        if (!wraps(index.column()))
            return QStyledItemDelegate::sizeHint(option, index);
        // The height the text takes wrapped at its column's width.
        QStyleOptionViewItem o = option;
        o.rect = QRect(0, 0, m_table->columnWidth(index.column()), 1);
        return QStyledItemDelegate::sizeHint(o, index);
    }

protected:
    void initStyleOption(QStyleOptionViewItem *option, const QModelIndex &index) const override
    {
        QStyledItemDelegate::initStyleOption(option, index);
        if (wraps(index.column()))
            option->features |= QStyleOptionViewItem::WrapText;
    }

private:
    QTableWidget *m_table;
};

} // namespace

NodesPage::NodesPage(QWidget *parent)
    : QWidget(parent)
    , m_heading(new QLabel(this))
    , m_failover(new QLabel(this))
    , m_table(new QTableWidget(0, ColumnCount, this))
    , m_charts(new NodeCharts(this))
{
    m_table->setHorizontalHeaderLabels({tr("Address"), tr("Role"), tr("Master"), tr("Slots"),
                                        tr("Link"), tr("Offset"), tr("Lag (bytes)"), tr("Version"),
                                        tr("Memory"), tr("Clients"), tr("Ops/s"), tr("Persistence"),
                                        tr("If it fails now")});
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->verticalHeader()->hide();
    // Figures sized to their contents, Persistence and "If it fails now"
    // sharing the rest, wrapped over as many lines as they need (the page
    // has the height): no scroll bar at 1280 px. A long address is elided,
    // whole in its tooltip.
    QHeaderView *header = m_table->horizontalHeader();
    header->setSectionResizeMode(QHeaderView::ResizeToContents);
    header->setSectionResizeMode(Persistence, QHeaderView::Stretch);
    header->setSectionResizeMode(AtRisk, QHeaderView::Stretch);
    header->setMaximumSectionSize(std::max(300, fontMetrics().averageCharWidth() * 60));
    m_table->setItemDelegate(new WrapDelegate(m_table));
    m_table->setWordWrap(false);
    m_table->setTextElideMode(Qt::ElideRight);
    m_table->verticalHeader()->setMinimumSectionSize(m_table->fontMetrics().height() + 8);
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    // A Cluster's six nodes over four charts: the table keeps three rows.
    m_table->setMinimumHeight(header->sizeHint().height()
                              + 3 * m_table->verticalHeader()->minimumSectionSize()
                              + 2 * m_table->frameWidth());
    connect(header, &QHeaderView::sectionResized, this, [this](int column) {
        if (wraps(column))
            m_table->resizeRowsToContents(); // the wrapped cells' new heights
    });
    m_refresh.setInterval(RefreshMs);
    connect(&m_refresh, &QTimer::timeout, this, [this] {
        if (standalone())
            Q_EMIT serverFiguresWanted();
    });
    m_failover->setWordWrap(true);
    m_failover->hide();
    // The table over the charts; the operator's division persists.
    auto *split = new QSplitter(Qt::Vertical, this);
    split->setObjectName(QStringLiteral("nodesPageSplitter"));
    split->setChildrenCollapsible(false);
    split->addWidget(m_table);
    split->addWidget(m_charts);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 3);
    persistSplitter(split, QStringLiteral("splitters/nodesPageSplitter"));
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_heading);
    layout->addWidget(m_failover);
    layout->addWidget(split, 1);
    m_heading->setText(tr("Not connected yet."));
}

void NodesPage::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    m_refresh.start();
    if (standalone())
        Q_EMIT serverFiguresWanted();
}

void NodesPage::hideEvent(QHideEvent *event)
{
    QWidget::hideEvent(event);
    m_refresh.stop();
}

bool NodesPage::standalone() const
{
    return !m_mode.isEmpty() && m_mode != QLatin1String("cluster")
           && m_mode != QLatin1String("sentinel");
}

void NodesPage::setServerFigures(const ServerFigures &figures)
{
    if (!figures.error.isEmpty())
        return; // INFO failed: the page keeps what it had
    m_serverFigures = figures;
    showFigures(true);
}

void NodesPage::showFigures(bool fresh)
{
    if (!standalone() || m_table->rowCount() != 1)
        return;
    // The monitor reads INFO of every node of a Cluster or a Sentinel
    // deployment, not of a standalone server: the server panel's figures
    // (one INFO of the same server) fill in what the snapshot lacks.
    const NodeStatus &n = m_standaloneNode;
    const ServerFigures *f = m_serverFigures ? &*m_serverFigures : nullptr;
    const auto pick = [](qint64 own, qint64 panel) {
        return own >= 0 ? own : panel;
    };
    const qint64 bytes = pick(n.usedMemoryBytes, f ? f->usedMemoryBytes : -1);
    const qint64 clients = pick(n.connectedClients, f ? f->clients : -1);
    const qint64 ops = pick(n.opsPerSec, f ? f->opsPerSec : -1);
    setCell(0, Memory, memory(bytes));
    setCell(0, Clients, figure(clients));
    setCell(0, OpsPerSec, figure(ops));
    // Charted when just read (an INFO reply), never again from the last one.
    if (!fresh)
        return;
    NodeCharts::Sample sample;
    sample.node = n.address;
    const auto known = [](qint64 v) {
        return v < 0 ? std::nan("") : double(v);
    };
    sample.memoryMiB = bytes < 0 ? std::nan("") : double(bytes) / (1024.0 * 1024.0);
    sample.clients = known(clients);
    sample.opsPerSec = known(ops);
    m_charts->addSamples(m_serverNowMs, {sample});
}

QString NodesPage::headline() const
{
    return m_heading->text();
}

void NodesPage::setCell(int row, int column, const QString &text, const QString &toolTip)
{
    QTableWidgetItem *item = m_table->item(row, column);
    if (!item) {
        item = new QTableWidgetItem(text);
        if (column >= Offset && column != Version && column != Persistence && column != AtRisk)
            item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        m_table->setItem(row, column, item);
    } else if (item->text() != text) {
        item->setText(text);
    }
    // Without a tooltip of its own, a cell's whole text (it may be elided).
    const QString tip = toolTip.isEmpty() ? text : toolTip;
    if (item->toolTip() != tip)
        item->setToolTip(tip);
}

void NodesPage::chartNodes(const Snapshot &snapshot)
{
    const QList<NodeStatus> &nodes = snapshot.server.nodes;
    QHash<QString, qint64> masterOffset;
    for (const NodeStatus &n : nodes) {
        if (n.role == QLatin1String("master"))
            masterOffset.insert(n.address, n.replicationOffset);
    }
    const auto known = [](qint64 v) {
        return v < 0 ? std::nan("") : double(v);
    };
    QList<NodeCharts::Sample> samples;
    for (const NodeStatus &n : nodes) {
        // Not read now: a gap, never the last figures again.
        const bool fresh = n.connection.state == ConnectionState::Ready;
        NodeCharts::Sample s;
        s.node = n.address;
        if (fresh) {
            s.memoryMiB = n.usedMemoryBytes < 0 ? std::nan("")
                                                : double(n.usedMemoryBytes) / (1024.0 * 1024.0);
            s.clients = known(n.connectedClients);
            s.opsPerSec = known(n.opsPerSec);
            const qint64 of = masterOffset.value(n.masterAddress, -1);
            if (n.role != QLatin1String("master") && of >= 0 && n.replicationOffset >= 0)
                s.lagBytes = double(std::max<qint64>(0, of - n.replicationOffset));
        }
        samples << s;
    }
    m_charts->addSamples(snapshot.server.timeMs, samples);
}

void NodesPage::update(const Snapshot &snapshot)
{
    const ServerStatus &server = snapshot.server;
    m_serverNowMs = server.timeMs;
    const QList<NodeStatus> &nodes = server.nodes;
    const bool wasStandalone = standalone();
    m_mode = server.mode.isEmpty() ? QStringLiteral("standalone") : server.mode;
    if (standalone() && !wasStandalone && isVisible())
        Q_EMIT serverFiguresWanted();
    int masters = 0;
    QStringList masterAddresses;
    QHash<QString, qint64> masterOffset;
    for (const NodeStatus &n : nodes) {
        if (n.role == QLatin1String("master")) {
            ++masters;
            masterAddresses << n.address;
            masterOffset.insert(n.address, n.replicationOffset);
        }
    }
    updateHeading(server, masters, masterAddresses);
    noticeFailover(masterAddresses);
    if (!masterAddresses.isEmpty())
        m_masters = masterAddresses;

    if (m_table->rowCount() != nodes.size())
        m_table->setRowCount(int(nodes.size()));
    showColumnsFor(server);
    for (int row = 0; row < nodes.size(); ++row)
        fillRow(row, server, masterOffset);
    if (!standalone() || nodes.size() != 1)
        chartNodes(snapshot);
}

void NodesPage::updateHeading(const ServerStatus &server, int masters,
                              const QStringList &masterAddresses)
{
    const QList<NodeStatus> &nodes = server.nodes;
    if (server.mode == QLatin1String("sentinel"))
        m_heading->setText(
            tr("Sentinel: master %1 with %n replica(s).", nullptr, int(nodes.size()) - masters)
                .arg(masterAddresses.value(0, tr("unknown"))));
    else if (server.mode == QLatin1String("cluster"))
        m_heading->setText(
            tr("Cluster: %1 masters, %2 replicas.").arg(masters).arg(nodes.size() - masters));
    else
        m_heading->setText(tr("Standalone server %1.").arg(nodes.value(0).address));
    if (server.readFrom == QLatin1String("replicas")) {
        int fromReplicas = 0;
        for (const NodeStatus &n : nodes)
            fromReplicas += n.readsFrom.isEmpty() ? 0 : 1;
        m_heading->setText(
            m_heading->text() + QLatin1Char(' ')
            + tr("Reads from replicas for %1 of %2 masters.").arg(fromReplicas).arg(masters));
    }
}

void NodesPage::noticeFailover(const QStringList &masterAddresses)
{
    // A node that was not a master at the last update and is one now took
    // over from another: a failover (Sentinel, or a Cluster's replica).
    if (m_masters.isEmpty())
        return;
    for (const QString &address : masterAddresses) {
        if (m_masters.contains(address))
            continue;
        QStringList gone;
        for (const QString &old : std::as_const(m_masters)) {
            if (!masterAddresses.contains(old))
                gone << old;
        }
        if (gone.isEmpty())
            continue; // a master added (resharding), not a failover
        m_lastFailover = tr("Failover at %1: %2 is master now (was %3).")
                             .arg(QDateTime::currentDateTime().toString(Qt::ISODate), address,
                                  gone.join(QLatin1String(", ")));
        m_failover->setText(m_lastFailover);
        m_failover->show();
    }
}

void NodesPage::showColumnsFor(const ServerStatus &server)
{
    // Master, Slots and Lag only where some node has them (not for a
    // standalone server): their room goes to the sentences.
    bool hasMaster = false, hasSlots = false;
    for (const NodeStatus &n : server.nodes) {
        hasMaster |= n.role != QLatin1String("master") && !n.masterAddress.isEmpty();
        hasSlots |= server.mode == QLatin1String("cluster") && n.role == QLatin1String("master");
    }
    if (m_table->isColumnHidden(MasterOf) == hasMaster) {
        m_table->setColumnHidden(MasterOf, !hasMaster);
        m_table->setColumnHidden(Lag, !hasMaster);
    }
    if (m_table->isColumnHidden(Slots) == hasSlots)
        m_table->setColumnHidden(Slots, !hasSlots);
}

void NodesPage::fillRow(int row, const ServerStatus &server,
                        const QHash<QString, qint64> &masterOffset)
{
    const QList<NodeStatus> &nodes = server.nodes;
    const NodeStatus &n = nodes.at(row);
    const bool master = n.role == QLatin1String("master");
    // --read-from replicas: where this master's reads go, and why not
    // to a replica when they cannot.
    setCell(row, Address, n.address,
            !n.readsFrom.isEmpty()
                ? tr("Reads from replica %1 (--read-from replicas).").arg(n.readsFrom)
                : n.readsNote);
    setCell(row, Role, n.role.isEmpty() ? tr("?") : n.role);
    setCell(row, MasterOf, master ? QString() : n.masterAddress);
    setCell(row, Slots,
            server.mode == QLatin1String("cluster") && master
                ? QStringLiteral("%1 (%2)").arg(n.slotRanges).arg(n.slotCount)
                : QString());
    setCell(row, Link, link(n));
    setCell(row, Offset, figure(n.replicationOffset));
    const qint64 of = masterOffset.value(n.masterAddress, -1);
    setCell(row, Lag,
            !master && of >= 0 && n.replicationOffset >= 0
                ? figure(std::max<qint64>(0, of - n.replicationOffset))
                : QString());
    setCell(row, Version,
            n.serverName.isEmpty() || n.version.isEmpty()
                ? n.version
                : n.serverName + QLatin1Char(' ') + n.version);
    if (row == 0 && nodes.size() == 1 && standalone()) {
        m_standaloneNode = n;
        showFigures(n.opsPerSec >= 0 && n.connection.state == ConnectionState::Ready);
    } else {
        setCell(row, Memory, memory(n.usedMemoryBytes));
        setCell(row, Clients, figure(n.connectedClients));
        setCell(row, OpsPerSec, figure(n.opsPerSec));
    }
    const Durability &d = n.durability;
    const qint64 nowS = server.timeMs / 1000;
    if (master && (d.known || !d.error.isEmpty())) {
        setCell(row, Persistence, persistenceText(d), d.persistenceSummary(nowS));
        setCell(row, AtRisk, d.sentence(nowS), durabilityDetail(d));
        return;
    }
    setCell(row, AtRisk, QString());
    QString persistence;
    if (n.aofEnabled >= 0)
        persistence = n.aofEnabled == 1 ? tr("AOF on") : tr("AOF off");
    if (n.rdbLastSaveS > 0)
        persistence
            += (persistence.isEmpty() ? QString() : QStringLiteral(", "))
               + tr("RDB saved %1")
                     .arg(QDateTime::fromSecsSinceEpoch(n.rdbLastSaveS).toString(Qt::ISODate));
    setCell(row, Persistence, persistence);
}

} // namespace gatehouse
