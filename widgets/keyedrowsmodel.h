// SPDX-License-Identifier: MIT
#pragma once

#include <QAbstractTableModel>
#include <QByteArray>
#include <QHash>
#include <QList>
#include <QSet>

namespace gatehouse {

// A table whose rows are identified by a key (a family, a family and its
// pattern) and replaced by a fresh list on every discovery: the rows are
// updated in place (gone ones removed, kept ones changed, new ones appended),
// so the view's selection and scroll position survive a rescan. Row must have
// a `family` member (QByteArray); keyOf gives a row's identity.
template<typename Row, QByteArray (*keyOf)(const Row &)>
class KeyedRowsModel : public QAbstractTableModel
{
public:
    using QAbstractTableModel::QAbstractTableModel;

    const Row *rowAt(int row) const
    {
        return row >= 0 && row < m_rows.size() ? &m_rows.at(row) : nullptr;
    }
    // The first row of family, or -1.
    int rowOf(const QByteArray &family) const
    {
        for (qsizetype r = 0; r < m_rows.size(); ++r) {
            if (m_rows.at(r).family == family)
                return int(r);
        }
        return -1;
    }
    int rowCount(const QModelIndex &parent = {}) const override
    {
        return parent.isValid() ? 0 : int(m_rows.size());
    }

protected:
    void setRows(const QList<Row> &rows)
    {
        QHash<QByteArray, qsizetype> fresh;
        for (qsizetype i = 0; i < rows.size(); ++i)
            fresh.insert(keyOf(rows.at(i)), i);
        // Gone: removed in runs, from the end, so the rows before keep their place.
        for (qsizetype r = m_rows.size() - 1; r >= 0; --r) {
            if (fresh.contains(keyOf(m_rows.at(r))))
                continue;
            const qsizetype last = r;
            while (r > 0 && !fresh.contains(keyOf(m_rows.at(r - 1))))
                --r;
            beginRemoveRows({}, int(r), int(last));
            m_rows.remove(r, last - r + 1);
            endRemoveRows();
        }
        QSet<QByteArray> kept;
        for (Row &row : m_rows) {
            const QByteArray key = keyOf(row);
            row = rows.at(fresh.value(key));
            kept.insert(key);
        }
        if (!m_rows.isEmpty())
            Q_EMIT dataChanged(index(0, 0), index(int(m_rows.size()) - 1, columnCount() - 1));
        QList<Row> added;
        for (const Row &row : rows) {
            if (!kept.contains(keyOf(row)))
                added.append(row);
        }
        if (added.isEmpty())
            return;
        beginInsertRows({}, int(m_rows.size()), int(m_rows.size() + added.size()) - 1);
        m_rows.append(added);
        endInsertRows();
    }

    QList<Row> m_rows;
};

} // namespace gatehouse
