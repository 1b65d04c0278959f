// SPDX-License-Identifier: MIT
#include "objecttablemodel.h"

#include "evidencetext.h"
#include "theme.h"

#include <patterns/objecthealth.h>
#include <redis/redisvalue.h>

#include <QBrush>
#include <QDateTime>
#include <QGuiApplication>
#include <QPalette>
#include <QSet>

namespace gatehouse {

ObjectTableModel::ObjectTableModel(const QString &section, QObject *parent)
    : QAbstractTableModel(parent)
    , m_section(section)
    , m_columns(section)
{}

void ObjectTableModel::applySnapshot(const Snapshot &snapshot)
{
    const bool timeMoved = m_serverTimeMs > 0 && snapshot.server.timeMs > m_serverTimeMs;
    m_serverTimeMs = snapshot.server.timeMs;
    m_nowMs = std::max(m_nowMs, m_serverTimeMs);
    QList<ObjectList::Ptr> added;
    int firstChanged = -1;
    int lastChanged = -1;
    qsizetype present = 0; // rows the snapshot still has
    for (qsizetype i = 0; i < snapshot.objects.size(); ++i) {
        const ObjectList::Ptr &s = snapshot.objects.ptr(i);
        if (!m_columns.contains(s->object.kind))
            continue;
        const auto it = m_rows.constFind(s->object.key);
        present += it != m_rows.cend();
        if (it == m_rows.cend()) {
            added.append(s);
            continue;
        }
        if (m_states.at(*it) == s)
            continue; // the same state as last time: nothing to repaint
        m_states[*it] = s;
        firstChanged = firstChanged < 0 ? *it : std::min(firstChanged, *it);
        lastChanged = std::max(lastChanged, *it);
    }
    if (present < m_states.size())
        removeMissing(snapshot, firstChanged, lastChanged);
    if (firstChanged >= 0)
        Q_EMIT dataChanged(index(firstChanged, 0), index(lastChanged, columnCount() - 1),
                           {Qt::DisplayRole, Qt::ToolTipRole, Qt::ForegroundRole,
                            Qt::BackgroundRole, SortRole, GoneRole, StaleRole, SeverityRole,
                            StateIdRole});
    if (!added.isEmpty()) {
        const int first = int(m_states.size());
        beginInsertRows({}, first, first + int(added.size()) - 1);
        for (const ObjectList::Ptr &s : std::as_const(added)) {
            m_rows.insert(s->object.key, int(m_states.size()));
            m_states.append(s);
        }
        endInsertRows();
    }
    // Rows whose state was not re-read still move with time (readings are
    // projected to the snapshot's time): repaint their time columns. Display
    // only: every projected value moves by the same amount, so the sort
    // order holds.
    if (timeMoved)
        timeColumnsChanged();
}

void ObjectTableModel::removeMissing(const Snapshot &snapshot, int &firstChanged, int &lastChanged)
{
    // Rare (autodetection demoted an object on what its keys did): the
    // keys still there, then the rows of the others removed from the end.
    QSet<QByteArray> keys;
    for (const ObjectState &s : snapshot.objects)
        keys.insert(s.object.key);
    for (int row = int(m_states.size()) - 1; row >= 0; --row) {
        if (keys.contains(m_states.at(row)->object.key))
            continue;
        beginRemoveRows({}, row, row);
        m_states.removeAt(row);
        endRemoveRows();
    }
    m_rows.clear();
    for (int row = 0; row < m_states.size(); ++row)
        m_rows.insert(m_states.at(row)->object.key, row);
    // Changed rows were counted before the removal: repaint every row left.
    if (firstChanged >= 0) {
        firstChanged = 0;
        lastChanged = int(m_states.size()) - 1;
        if (lastChanged < 0)
            firstChanged = -1;
    }
}

void ObjectTableModel::timeColumnsChanged()
{
    if (m_states.isEmpty())
        return;
    // One signal per run of adjacent time columns (TTL and held-for).
    for (int c = 0; c < m_columns.count(); ++c) {
        if (!m_columns.movesWithTime(c))
            continue;
        int last = c;
        while (last + 1 < m_columns.count() && m_columns.movesWithTime(last + 1))
            ++last;
        Q_EMIT dataChanged(index(0, c), index(int(m_states.size()) - 1, last), {Qt::DisplayRole});
        c = last;
    }
}

void ObjectTableModel::advanceTo(qint64 serverNowMs)
{
    m_nowMs = serverNowMs;
    timeColumnsChanged();
}

void ObjectTableModel::clear()
{
    beginResetModel();
    m_states.clear();
    m_rows.clear();
    endResetModel();
}

bool ObjectTableModel::isStateColumn(int column, const ObjectState &s) const
{
    // Column::status(), which every section's table ends with.
    return m_columns.column(column, s.object.kind)
           && m_columns.headers().value(column) == QLatin1String("Status");
}

Severity ObjectTableModel::health(const ObjectState &s) const
{
    return objectHealth(s, now()).severity;
}

const ObjectState *ObjectTableModel::stateAt(int row) const
{
    return row >= 0 && row < m_states.size() ? m_states.at(row).get() : nullptr;
}

int ObjectTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_states.size());
}

int ObjectTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : m_columns.count();
}

QVariant ObjectTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation == Qt::Horizontal && role == Qt::DisplayRole)
        return tr(qPrintable(m_columns.headers().value(section)));
    return {};
}

QString ObjectTableModel::toolTip(int column, const ObjectState &s) const
{
    if (s.stale)
        return tr("stale since %1: the server has not answered since; this is the last "
                  "reading that arrived.")
            .arg(QDateTime::fromMSecsSinceEpoch(s.staleSinceMs)
                     .toString(QStringLiteral("HH:mm:ss")));
    if (const Column *c = m_columns.column(column, s.object.kind); c && !c->toolTip.isEmpty())
        return c->toolTip;
    // The state's words in full (the cell may be elided), with the
    // reading's reason when it has one.
    if (isStateColumn(column, s) && !s.reading.message.isEmpty())
        return QString(m_columns.text(column, s, now()) + QLatin1Char('\n') + s.reading.message);
    return s.reading.message.isEmpty() ? m_columns.text(column, s, now()) : s.reading.message;
}

QVariant ObjectTableModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= m_states.size())
        return {};
    const ObjectState &s = *m_states.at(index.row());
    switch (role) {
    case Qt::DisplayRole:
        return m_columns.text(index.column(), s, now());
    case Qt::ToolTipRole:
        // The key cell says why autodetection shows the object.
        if (index.column() == 0 && !s.object.evidence.isEmpty())
            return QString(toolTip(index.column(), s) + QStringLiteral("\n\n")
                           + evidenceToolTip(s.object.evidence));
        return toolTip(index.column(), s);
    case Qt::ForegroundRole: {
        const QPalette palette = QGuiApplication::palette();
        if (isStateColumn(index.column(), s))
            return QBrush(theme::badge(health(s), palette).text);
        if (s.gone || s.stale)
            return QBrush(theme::mutedText(palette));
        if (s.reading.status == Reading::Status::WrongType
            || s.reading.status == Reading::Status::Error)
            return QBrush(theme::badge(Severity::Critical, palette).text);
        return {};
    }
    case Qt::BackgroundRole:
        if (isStateColumn(index.column(), s))
            return QBrush(theme::badge(health(s), QGuiApplication::palette()).fill);
        return {};
    case SeverityRole:
        return int(health(s));
    case StateIdRole:
        return objectHealth(s, now()).id;
    case KeyRole:
        return s.object.key;
    case KindRole:
        return s.object.kind.id();
    case SortRole:
        return m_columns.sortValue(index.column(), s, now());
    case GoneRole:
        return s.gone;
    case StaleRole:
        return s.stale;
    default:
        return {};
    }
}

} // namespace gatehouse
