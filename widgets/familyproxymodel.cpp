// SPDX-License-Identifier: MIT
#include "familyproxymodel.h"

#include "objecttablemodel.h"

#include <algorithm>

namespace gatehouse {

FamilyProxyModel::FamilyProxyModel(ObjectTableModel *source, QObject *parent)
    : QSortFilterProxyModel(parent)
    , m_model(source)
    , m_columns(source->section())
{
    setSourceModel(source);
    setSortRole(ObjectTableModel::SortRole);
}

void FamilyProxyModel::setTimesUnknown(bool unknown)
{
    if (unknown == m_timesUnknown)
        return;
    m_timesUnknown = unknown;
    if (rowCount() > 0)
        Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, columnCount() - 1));
}

QVariant FamilyProxyModel::data(const QModelIndex &index, int role) const
{
    if (m_timesUnknown && m_columns.movesWithTime(index.column())) {
        if (role == Qt::DisplayRole)
            return QStringLiteral("–");
        if (role == Qt::ToolTipRole)
            return tr("unknown while disconnected");
    }
    return QSortFilterProxyModel::data(index, role);
}

void FamilyProxyModel::setFilterText(const QString &text)
{
    if (text == m_text)
        return;
    m_text = text;
    m_needle = text.toLower().toUtf8();
    invalidateFilter();
}

bool FamilyProxyModel::filterAcceptsRow(int sourceRow, const QModelIndex &) const
{
    if (m_needle.isEmpty())
        return true;
    const QModelIndex cell = m_model->index(sourceRow, 0);
    if (m_model->isFamilyRow(sourceRow))
        return ObjectTableModel::containsFolded(
                   cell.data(ObjectTableModel::FamilyRole).toByteArray(), m_needle)
               || m_model->familyHasMember(sourceRow, m_needle);
    return ObjectTableModel::containsFolded(cell.data(ObjectTableModel::KeyRole).toByteArray(),
                                            m_needle);
}

bool FamilyProxyModel::lessThan(const QModelIndex &left, const QModelIndex &right) const
{
    const int l = left.row();
    const int r = right.row();
    const int lf = m_model->familyRowOf(l);
    const int rf = m_model->familyRowOf(r);
    if (lf >= 0 && lf == rf) {
        // One family: its row first, then its members, worst first, in
        // either order (a descending sort asks with the operands swapped).
        if (l == r)
            return false;
        const bool before = l == lf ? true : r == rf ? false : m_model->memberBefore(l, r);
        return sortOrder() == Qt::AscendingOrder ? before : !before;
    }
    // Otherwise a member sorts where its family's row does; ties go by the
    // row standing for each, so a family's rows stay together.
    const QModelIndex a = lf >= 0 ? left.sibling(lf, left.column()) : left;
    const QModelIndex b = rf >= 0 ? right.sibling(rf, right.column()) : right;
    if (QSortFilterProxyModel::lessThan(a, b))
        return true;
    if (QSortFilterProxyModel::lessThan(b, a))
        return false;
    return a.row() < b.row();
}

} // namespace gatehouse
