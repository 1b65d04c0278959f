// SPDX-License-Identifier: MIT
#pragma once

#include <monitor/autodetector.h>

#include "keyedrowsmodel.h"

namespace gatehouse {

// A family row's identity across discoveries: its family and its keys' type.
QByteArray otherFamilyModelRowKey(const OtherFamily &row);

// The ordinary keys autodetection saw (Snapshot::other), a row per family:
// family pattern, kind (cache, session, dated counter, ...), type, key count,
// memory (MEMORY USAGE of a few keys, scaled to the family), TTL range. A new
// discovery's list updates the rows in place, by family.
class OtherFamilyModel : public KeyedRowsModel<OtherFamily, otherFamilyModelRowKey>
{
    Q_OBJECT
public:
    enum Role {
        FamilyRole = Qt::UserRole + 1, // QByteArray
        SortRole,                      // a number or string to sort by
    };
    Q_ENUM(Role)
    enum Column { Family, Kind, Type, Keys, Memory, Ttl, ColumnCount };

    explicit OtherFamilyModel(QObject *parent = nullptr);

    void setFamilies(const QList<OtherFamily> &families);
    const OtherFamily *familyAt(int row) const { return rowAt(row); }
    qint64 totalKeys() const;
    // "dated-counter" -> "dated counter": the kind as the page shows it.
    static QString kindText(const QString &kind);

    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;
};

} // namespace gatehouse
