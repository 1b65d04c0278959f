// SPDX-License-Identifier: MIT
#include "candidatemodel.h"

#include "evidencetext.h"

#include <patterns/patternunit.h>
#include <redis/redisvalue.h>

#include <QHash>

namespace gatehouse {

// A family can be a candidate of two patterns (a TTL'd counter as a fixed
// window, a TTL'd value as a lock): the row is the pair.
QByteArray candidateModelRowKey(const Candidate &c)
{
    return QByteArray(c.kind.name()) + '\0' + c.family;
}

CandidateModel::CandidateModel(QObject *parent)
    : KeyedRowsModel(parent)
{}

void CandidateModel::setCandidates(const QList<Candidate> &candidates)
{
    setRows(candidates);
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
