// SPDX-License-Identifier: MIT
#include "objecttablemodel.h"

#include <redis/redisvalue.h>

#include <QBrush>
#include <QDateTime>
#include <QGuiApplication>
#include <QPalette>

namespace gatehouse {

QString formatMs(qint64 ms)
{
    if (ms < 0)
        return QStringLiteral("–");
    if (ms < 1000)
        return QStringLiteral("%1 ms").arg(ms);
    if (ms < 120000)
        return QStringLiteral("%1 s").arg(double(ms) / 1000.0, 0, 'f', 1);
    return QStringLiteral("%1 min").arg(double(ms) / 60000.0, 0, 'f', 1);
}

ObjectTableModel::ObjectTableModel(const QString &section, QObject *parent)
    : QAbstractTableModel(parent)
    , m_section(section)
{
    for (PatternKind kind : allPatterns()) {
        if (patternSection(kind) == section)
            m_kinds.append(kind);
    }
    if (section == QLatin1String("limiter"))
        m_headers = {tr("Key"),       tr("Pattern"),       tr("In window / limit"),
                     tr("Occupancy"), tr("Retry horizon"), tr("Status")};
    else if (section == QLatin1String("lock"))
        m_headers = {tr("Key"), tr("Holder token"), tr("TTL"), tr("Held for"), tr("Status")};
    else if (section == QLatin1String("token"))
        m_headers = {tr("Family"), tr("Live"), tr("TTL range"), tr("No TTL"), tr("Status")};
    else
        m_headers = {tr("Queue"), tr("Length"), tr("In flight"),  tr("Oldest in flight"),
                     tr("Stuck"), tr("Dead"),   tr("Throughput"), tr("Status")};
}

void ObjectTableModel::applySnapshot(const Snapshot &snapshot)
{
    const bool timeMoved = m_serverTimeMs > 0 && snapshot.server.timeMs > m_serverTimeMs;
    m_serverTimeMs = snapshot.server.timeMs;
    m_nowMs = std::max(m_nowMs, m_serverTimeMs);
    QList<ObjectList::Ptr> added;
    int firstChanged = -1;
    int lastChanged = -1;
    for (qsizetype i = 0; i < snapshot.objects.size(); ++i) {
        const ObjectList::Ptr &s = snapshot.objects.ptr(i);
        if (!m_kinds.contains(s->object.kind))
            continue;
        const auto it = m_rows.constFind(s->object.key);
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
    if (firstChanged >= 0)
        Q_EMIT dataChanged(
            index(firstChanged, 0), index(lastChanged, columnCount() - 1),
            {Qt::DisplayRole, Qt::ToolTipRole, Qt::ForegroundRole, SortRole, GoneRole, StaleRole});
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

void ObjectTableModel::timeColumnsChanged()
{
    if (m_states.isEmpty())
        return;
    int first = 3, last = 3; // queues: oldest in flight
    if (m_section == QLatin1String("limiter"))
        first = last = 4; // retry horizon
    else if (m_section == QLatin1String("lock"))
        first = 2, last = 3; // TTL, held for
    else if (m_section == QLatin1String("token"))
        first = last = 2; // TTL range
    Q_EMIT dataChanged(index(0, first), index(int(m_states.size()) - 1, last), {Qt::DisplayRole});
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
    return parent.isValid() ? 0 : int(m_headers.size());
}

QVariant ObjectTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation == Qt::Horizontal && role == Qt::DisplayRole)
        return m_headers.value(section);
    return {};
}

QVariant ObjectTableModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= m_states.size())
        return {};
    const ObjectState &s = *m_states.at(index.row());
    switch (role) {
    case Qt::DisplayRole:
        return display(s, index.column());
    case Qt::ToolTipRole:
        if (s.stale)
            return tr("stale since %1: the server has not answered since; this is the last "
                      "reading that arrived.")
                .arg(QDateTime::fromMSecsSinceEpoch(s.staleSinceMs)
                         .toString(QStringLiteral("HH:mm:ss")));
        if (m_section == QLatin1String("queue") && index.column() == 6)
            return tr("Jobs finished per second (LREM on the processing list), counted from "
                      "keyspace events; unknown while polling.");
        return s.reading.message.isEmpty() ? display(s, index.column()) : s.reading.message;
    case Qt::ForegroundRole:
        if (s.gone || s.stale)
            return QGuiApplication::palette().brush(QPalette::Disabled, QPalette::Text);
        if (s.reading.status == Reading::Status::WrongType
            || s.reading.status == Reading::Status::Error)
            return QBrush(Qt::red);
        return {};
    case KeyRole:
        return s.object.key;
    case KindRole:
        return int(s.object.kind);
    case SortRole:
        return sortValue(s, index.column());
    case GoneRole:
        return s.gone;
    case StaleRole:
        return s.stale;
    default:
        return {};
    }
}

QVariant ObjectTableModel::sortValue(const ObjectState &s, int column) const
{
    const Reading &r = s.reading;
    const qint64 now = std::max(m_nowMs, m_serverTimeMs); // readings are projected to now
    if (column == 0)
        return QString::fromUtf8(s.object.key);
    if (m_section == QLatin1String("limiter")) {
        if (column == 2)
            return double(r.inWindow);
        if (column == 3)
            return r.occupancy().value_or(-1);
        if (column == 4)
            return double(r.countdownAt(r.retryHorizonMs, now));
    } else if (m_section == QLatin1String("lock")) {
        if (column == 2)
            return double(r.countdownAt(r.pttlMs, now));
        if (column == 3)
            return double(s.heldSinceMs < 0 ? -1 : m_serverTimeMs - s.heldSinceMs);
    } else if (m_section == QLatin1String("token")) {
        if (column == 1)
            return double(r.count);
    } else {
        const qint64 values[]
            = {0, r.length, r.inFlight, r.ageAt(r.oldestInFlightAgeMs, now), r.stuck, r.deadLength};
        if (column >= 1 && column <= 5)
            return double(values[column]);
        if (column == 6)
            return s.throughputPerS;
    }
    return display(s, column);
}

QVariant ObjectTableModel::display(const ObjectState &s, int column) const
{
    const Reading &r = s.reading;
    // A reading not re-read by the last tick is projected to now (TTLs down,
    // ages up); the monitor re-reads before that stops being exact.
    const qint64 now = std::max(m_nowMs, m_serverTimeMs);
    const QString status = s.gone ? tr("gone") : readingStatusId(r.status);
    if (column == 0)
        return printableBytes(s.object.key);
    if (m_section == QLatin1String("limiter")) {
        switch (column) {
        case 1:
            return patternId(s.object.kind);
        case 2:
            return QStringLiteral("%1 / %2")
                .arg(r.inWindow)
                .arg(r.limit ? QString::number(*r.limit) : QStringLiteral("?"));
        case 3:
            return r.occupancy() ? QStringLiteral("%1 %").arg(qRound(*r.occupancy() * 100))
                                 : QStringLiteral("?");
        case 4:
            return formatMs(r.countdownAt(r.retryHorizonMs, now));
        case 5:
            return status;
        }
    } else if (m_section == QLatin1String("lock")) {
        switch (column) {
        case 1:
            return printableBytes(r.token, 64);
        case 2: {
            if (s.object.kind == PatternKind::LegacyLock && r.expiresAtMs > 0) {
                const qint64 left = r.expiresAtMs - now;
                return left < 0 ? tr("expired %1 ago").arg(formatMs(-left)) : formatMs(left);
            }
            if (r.pttlMs < 0)
                return r.pttlMs == -1 ? tr("none") : QStringLiteral("–");
            // Counting down live from the last reading.
            return formatMs(r.countdownAt(r.pttlMs, now));
        }
        case 3:
            return s.heldSinceMs < 0 ? QStringLiteral("–") : formatMs(now - s.heldSinceMs);
        case 4:
            return status;
        }
    } else if (m_section == QLatin1String("token")) {
        switch (column) {
        case 1:
            return QString::number(r.count);
        case 2:
            return QStringLiteral("%1 – %2").arg(formatMs(r.countdownAt(r.minTtlMs, now)),
                                                 formatMs(r.countdownAt(r.maxTtlMs, now)));
        case 3:
            return QString::number(r.withoutTtl);
        case 4:
            return status;
        }
    } else {
        switch (column) {
        case 1:
            return QString::number(r.length);
        case 2:
            return QString::number(r.inFlight);
        case 3:
            return formatMs(r.ageAt(r.oldestInFlightAgeMs, now));
        case 4:
            return QString(QString::number(r.stuck)
                           + (r.stuckIsLowerBound ? QStringLiteral("+") : QString()));
        case 5:
            return QString::number(r.deadLength);
        case 6:
            return s.throughputPerS < 0 ? QStringLiteral("–")
                                        : tr("%1 /s").arg(s.throughputPerS, 0, 'f', 1);
        case 7:
            return status;
        }
    }
    return {};
}

} // namespace gatehouse
