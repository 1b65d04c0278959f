// SPDX-License-Identifier: MIT
#include "candidatemodel.h"

#include "evidencetext.h"

#include <patterns/patternunit.h>
#include <redis/redisvalue.h>

#include <QHash>

namespace gatehouse {

namespace {

// A family can be a candidate of two patterns (a TTL'd counter as a fixed
// window, a TTL'd value as a lock): the row is the pair.
QByteArray rowKey(const Candidate &c)
{
    return QByteArray(c.kind.name()) + '\0' + c.family;
}

} // namespace

CandidateModel::CandidateModel(QObject *parent)
    : QAbstractTableModel(parent)
{}

void CandidateModel::setCandidates(const QList<Candidate> &candidates)
{
    QHash<QByteArray, qsizetype> fresh;
    for (qsizetype i = 0; i < candidates.size(); ++i)
        fresh.insert(rowKey(candidates.at(i)), i);
    // Gone: removed in runs, from the end, so the rows before keep their place.
    for (qsizetype r = m_rows.size() - 1; r >= 0; --r) {
        if (fresh.contains(rowKey(m_rows.at(r))))
            continue;
        const qsizetype last = r;
        while (r > 0 && !fresh.contains(rowKey(m_rows.at(r - 1))))
            --r;
        beginRemoveRows({}, int(r), int(last));
        m_rows.remove(r, last - r + 1);
        endRemoveRows();
    }
    QSet<QByteArray> kept;
    for (Candidate &row : m_rows) {
        const QByteArray key = rowKey(row);
        row = candidates.at(fresh.value(key));
        kept.insert(key);
    }
    if (!m_rows.isEmpty())
        Q_EMIT dataChanged(index(0, 0), index(int(m_rows.size()) - 1, ColumnCount - 1));
    QList<Candidate> added;
    for (const Candidate &c : candidates) {
        if (!kept.contains(rowKey(c)))
            added.append(c);
    }
    if (added.isEmpty())
        return;
    beginInsertRows({}, int(m_rows.size()), int(m_rows.size() + added.size()) - 1);
    m_rows.append(added);
    endInsertRows();
}

const Candidate *CandidateModel::candidateAt(int row) const
{
    return row >= 0 && row < m_rows.size() ? &m_rows.at(row) : nullptr;
}

int CandidateModel::rowOf(const QByteArray &family) const
{
    for (qsizetype r = 0; r < m_rows.size(); ++r) {
        if (m_rows.at(r).family == family)
            return int(r);
    }
    return -1;
}

int CandidateModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int CandidateModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant CandidateModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Family:
        return tr("Family");
    case Pattern:
        return tr("Pattern");
    case Instances:
        return tr("Instances");
    case Keys:
        return tr("Keys");
    case Score:
        return tr("Score");
    case Evidence:
        return tr("Evidence");
    }
    return {};
}

QVariant CandidateModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= m_rows.size())
        return {};
    const Candidate &c = m_rows.at(index.row());
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case Family:
            return printableBytes(c.family, 120);
        case Pattern:
            return PatternUnit::of(c.kind).title();
        case Instances:
            return c.count;
        case Keys:
            return c.keys;
        case Score:
            return tr("%1 of %2").arg(c.score).arg(AutoDetector::Threshold);
        case Evidence: {
            QStringList reasons;
            for (const gatehouse::Evidence &e : c.evidence)
                reasons << QStringLiteral("%1 (%2)").arg(e.reason, evidenceWeight(e.weight));
            return reasons.join(QStringLiteral("; "));
        }
        }
        return {};
    case Qt::ToolTipRole: {
        QStringList keys;
        for (const QByteArray &k : c.sampleKeys)
            keys << printableBytes(k, 100);
        QString tip = evidenceToolTip(c.evidence);
        if (!keys.isEmpty())
            tip += QStringLiteral("\n\n") + tr("Keys: %1").arg(keys.join(QStringLiteral(", ")));
        return tip;
    }
    case Qt::TextAlignmentRole:
        return index.column() == Instances || index.column() == Keys
                   ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                   : QVariant();
    case SortRole:
        switch (index.column()) {
        case Instances:
            return c.count;
        case Keys:
            return c.keys;
        case Score:
            return c.score;
        default:
            return data(index, Qt::DisplayRole).toString().toLower();
        }
    case FamilyRole:
        return c.family;
    case KindRole:
        return c.kind.id();
    default:
        return {};
    }
}

} // namespace gatehouse
