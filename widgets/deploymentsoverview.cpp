// SPDX-License-Identifier: MIT
#include "deploymentsoverview.h"

#include "connectionwords.h"
#include "environmentbadge.h"
#include "panels/panelregistry.h"
#include "theme.h"
#include "worldnotice.h"

#include <QDateTime>
#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>

namespace gatehouse {

namespace {

constexpr int DeploymentColumn = 0;
constexpr int ConnectionColumn = 1;
constexpr int FirstTileColumn = 2;

} // namespace

DeploymentsOverview::DeploymentsOverview(QWidget *parent)
    : QWidget(parent)
    , m_summary(new QLabel(this))
    , m_table(new QTableWidget(this))
    , m_refresh(new QTimer(this))
{
    m_refresh->setSingleShot(true);
    m_refresh->setInterval(300);
    connect(m_refresh, &QTimer::timeout, this, &DeploymentsOverview::refresh);
    setObjectName(QStringLiteral("deploymentsOverview"));
    setWindowTitle(tr("All Deployments"));
    m_columns << tr("Deployment") << tr("Connection");
    for (const PanelRegistry::Tile &tile : PanelRegistry::instance().tiles())
        m_columns << tile.title;
    m_columns << tr("Nodes down") << tr("Attention");
    m_table->setObjectName(QStringLiteral("deploymentsTable"));
    m_table->setColumnCount(int(m_columns.size()));
    m_table->setHorizontalHeaderLabels(m_columns);
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    // A table to read and double-click, not to select in.
    m_table->setSelectionMode(QAbstractItemView::NoSelection);
    m_table->setFocusPolicy(Qt::NoFocus);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setStretchLastSection(true);
    const QList<PanelRegistry::Tile> &tiles = PanelRegistry::instance().tiles();
    for (int i = 0; i < tiles.size(); ++i)
        m_table->horizontalHeaderItem(FirstTileColumn + i)->setToolTip(tiles.at(i).hint);
    m_summary->setObjectName(QStringLiteral("deploymentsSummary"));
    m_summary->setWordWrap(true);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_summary);
    layout->addWidget(m_table, 1);
    connect(m_table, &QTableWidget::cellDoubleClicked, this, [this](int row, int column) {
        if (row < 0 || row >= m_rows.size())
            return;
        const Row &r = m_rows.at(row);
        const int tile = column - FirstTileColumn;
        if (tile >= 0 && tile < r.counts.tiles.size() && r.counts.tiles.at(tile).count > 0) {
            const TileCounts::Tile &t = r.counts.tiles.at(tile);
            Q_EMIT openRequested(r.id, t.section, t.worst);
            return;
        }
        Q_EMIT openRequested(r.id, QString(), QByteArray());
    });
    updateSummary();
}

int DeploymentsOverview::addDeployment(const QString &name, const Environment &environment)
{
    Row r;
    r.id = m_nextId++;
    r.name = name;
    r.environment = environment;
    m_rows.append(r);
    const int row = m_table->rowCount();
    m_table->insertRow(row);
    auto *item = new QTableWidgetItem(name);
    item->setToolTip(name);
    m_table->setItem(row, DeploymentColumn, item);
    if (environment.isSet()) {
        auto *cell = new QWidget;
        auto *cellLayout = new QHBoxLayout(cell);
        cellLayout->setContentsMargins(4, 0, 4, 0);
        cellLayout->addWidget(new EnvironmentBadge(environment));
        auto *text = new QLabel(name);
        cellLayout->addWidget(text, 1);
        m_table->setCellWidget(row, DeploymentColumn, cell);
        // The badge and the name are the cell widget's; the item keeps the
        // words for accessibility and cellText().
        item->setText(QString());
        item->setData(Qt::AccessibleTextRole,
                      QString(environment.shown() + QLatin1Char(' ') + name));
    }
    showRow(row, nullptr);
    updateSummary();
    return r.id;
}

void DeploymentsOverview::removeDeployment(int id)
{
    const int row = rowOf(id);
    if (row < 0)
        return;
    m_rows.removeAt(row);
    m_table->removeRow(row);
    updateSummary();
}

int DeploymentsOverview::deploymentCount() const
{
    return int(m_rows.size());
}

void DeploymentsOverview::setSnapshot(int id, const Snapshot &snapshot)
{
    const int row = rowOf(id);
    if (row < 0)
        return;
    m_rows[row].snapshot = snapshot;
    m_rows[row].dirty = true;
    if (isVisible() && !m_refresh->isActive())
        m_refresh->start();
}

void DeploymentsOverview::refresh()
{
    for (int row = 0; row < m_rows.size(); ++row) {
        if (!m_rows.at(row).dirty)
            continue;
        m_rows[row].dirty = false;
        const Snapshot snapshot = m_rows.at(row).snapshot;
        showRow(row, &snapshot);
    }
    updateSummary();
}

void DeploymentsOverview::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    refresh();
}

int DeploymentsOverview::rowOf(int id) const
{
    for (int i = 0; i < m_rows.size(); ++i) {
        if (m_rows.at(i).id == id)
            return i;
    }
    return -1;
}

int DeploymentsOverview::columnOf(const QString &title) const
{
    return int(m_columns.indexOf(title));
}

QString DeploymentsOverview::cellText(int id, const QString &column) const
{
    const int row = rowOf(id);
    const int col = columnOf(column);
    if (row < 0 || col < 0 || !m_table->item(row, col))
        return QString();
    const QTableWidgetItem *item = m_table->item(row, col);
    const QString accessible = item->data(Qt::AccessibleTextRole).toString();
    return accessible.isEmpty() ? item->text() : accessible;
}

bool DeploymentsOverview::isStale(int id) const
{
    const int row = rowOf(id);
    return row >= 0 && m_rows.at(row).stale;
}

void DeploymentsOverview::showRow(int row, const Snapshot *snapshot)
{
    Row &r = m_rows[row];
    const auto set = [&](int column, const QString &text, const QString &tip) {
        QTableWidgetItem *item = m_table->item(row, column);
        if (!item) {
            item = new QTableWidgetItem;
            m_table->setItem(row, column, item);
        }
        item->setText(text);
        item->setToolTip(tip);
        if (column >= FirstTileColumn)
            item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        return item;
    };
    if (!snapshot) {
        set(ConnectionColumn, tr("Connecting"), QString());
        return;
    }
    const ServerStatus &server = snapshot->server;
    const ConnectionState state
        = server.nodes.isEmpty() ? ConnectionState::Connecting : server.primary().connection.state;
    const bool connected = state == ConnectionState::Ready;
    r.haveSnapshot = true;
    // Not connected, or the server behind it changed and it is not read
    // again yet: the figures are of before, and said so.
    const bool rereading = server.world.generation > 0 && server.world.wholeAtMs < 0;
    r.stale = !connected || rereading;
    const QString lastRead
        = server.timeMs > 0 ? QDateTime::fromMSecsSinceEpoch(server.timeMs - server.clockOffsetMs)
                                  .toString(QStringLiteral("HH:mm:ss"))
                            : QString();
    // Between two attempts (Reconnecting) and during one (Connecting) the
    // connection is lost alike; Disconnected is the operator's own doing;
    // Failed will not be retried.
    const auto ofLastRead = [&](const QString &state) {
        return lastRead.isEmpty() ? state : tr("%1: figures of %2").arg(state, lastRead);
    };
    QString connection;
    if (!connected) {
        switch (state) {
        case ConnectionState::Connecting:
            connection = lastRead.isEmpty() ? tr("Connecting") : ofLastRead(tr("Connection lost"));
            break;
        case ConnectionState::Reconnecting:
            connection = ofLastRead(tr("Connection lost"));
            break;
        case ConnectionState::Disconnected:
            connection = ofLastRead(tr("Disconnected"));
            break;
        case ConnectionState::Failed:
        case ConnectionState::Ready:
            connection = ofLastRead(tr("Not connected"));
            break;
        }
    } else if (rereading)
        connection = WorldNotice::rereadingWords(server.world);
    else if (snapshot->discovering)
        connection = ConnectionWords::scanning(snapshot->scanned, snapshot->total);
    else
        connection = tr("Live");
    const QString asOf = lastRead.isEmpty() ? QString() : tr("Figures as of %1.").arg(lastRead);
    set(ConnectionColumn, connection, connected ? asOf : ConnectionWords::offline(state, server));
    if (connected)
        r.counts = countTiles(*snapshot);
    const QColor muted = theme::mutedText(palette());
    const QList<PanelRegistry::Tile> &tiles = PanelRegistry::instance().tiles();
    for (int i = 0; i < tiles.size(); ++i) {
        const qint64 count = i < r.counts.tiles.size() ? r.counts.tiles.at(i).count : 0;
        QTableWidgetItem *item
            = set(FirstTileColumn + i, QString::number(count),
                  r.stale ? tr("%1 when last read; not current. %2").arg(tiles.at(i).title, asOf)
                          : tiles.at(i).hint);
        item->setForeground(r.stale ? QBrush(muted) : palette().text());
        QFont font = item->font();
        font.setItalic(r.stale);
        font.setBold(!r.stale && count > 0);
        item->setFont(font);
    }
    int down = 0;
    for (const NodeStatus &n : server.nodes)
        down += n.connection.state != ConnectionState::Ready ? 1 : 0;
    set(columnOf(tr("Nodes down")), QString::number(down), QString());
    const int attention = snapshot->attention ? int(snapshot->attention->size()) : 0;
    QTableWidgetItem *item = set(columnOf(tr("Attention")), QString::number(attention),
                                 snapshot->attention && !snapshot->attention->isEmpty()
                                     ? snapshot->attention->first().text
                                     : QString());
    item->setForeground(r.stale ? QBrush(muted) : palette().text());
}

void DeploymentsOverview::updateSummary()
{
    int live = 0;
    int stale = 0;
    qint64 worst = 0;
    QString worstName;
    for (const Row &r : std::as_const(m_rows)) {
        if (!r.haveSnapshot)
            continue;
        (r.stale ? stale : live) += 1;
        qint64 total = 0;
        for (const TileCounts::Tile &t : r.counts.tiles)
            total += t.count;
        if (!r.stale && total > worst) {
            worst = total;
            worstName = r.environment.isSet() ? r.environment.shown() + QLatin1Char(' ') + r.name
                                              : r.name;
        }
    }
    QString text = tr("%n deployment(s) open", nullptr, int(m_rows.size()));
    if (stale > 0)
        text += tr("; %n not current (greyed: their last figures)", nullptr, stale);
    text += worst > 0 ? tr(". Most to look at: %1.").arg(worstName) : tr(". Nothing to look at.");
    m_summary->setText(text);
}

} // namespace gatehouse
