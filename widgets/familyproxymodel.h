// SPDX-License-Identifier: MIT
#pragma once

#include <patterns/patternregistry.h>

#include <QSortFilterProxyModel>

namespace gatehouse {

class ObjectTableModel;

// A section's table as the view shows it: sorted by the clicked column, a
// family's listed members kept under its row (worst first, whatever the
// order), and filtered by key: a family row stays while its glob or any
// member's key matches (ASCII case-insensitive, a fixed string), so a filter
// naming one object of a collapsed family shows that family.
class FamilyProxyModel : public QSortFilterProxyModel
{
    Q_OBJECT
public:
    explicit FamilyProxyModel(ObjectTableModel *source, QObject *parent = nullptr);

    void setFilterText(const QString &text);
    QString filterText() const { return m_text; }
    // While disconnected the server's clock is not known: the columns that
    // move with time (held for, expires in, ages) show "–", their tooltip
    // says why, rather than a projection of the last reading.
    void setTimesUnknown(bool unknown);
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;
    bool lessThan(const QModelIndex &left, const QModelIndex &right) const override;

private:
    ObjectTableModel *m_model;
    SectionColumns m_columns; // which columns move with time
    bool m_timesUnknown = false;
    QString m_text;
    QByteArray m_needle; // m_text as lower-case UTF-8
};

} // namespace gatehouse
