// SPDX-License-Identifier: MIT
#pragma once

#include <monitor/autodetector.h>

#include "keyedrowsmodel.h"

namespace gatehouse {

// A candidate row's identity across discoveries: its pattern and family.
QByteArray candidateModelRowKey(const Candidate &row);

// Autodetection's candidates (Snapshot::candidates), a row per family of
// one pattern: family, pattern, instances, keys, score, evidence. A new
// discovery's list updates the rows in place (removed, changed, added by
// family), so the selection survives a rescan.
class CandidateModel : public KeyedRowsModel<Candidate, candidateModelRowKey>
{
    Q_OBJECT
public:
    enum Role {
        FamilyRole = Qt::UserRole + 1, // QByteArray: the family, as autodetection names it
        KindRole,                      // QString: the pattern's id
        SortRole,                      // a number or string to sort by
    };
    Q_ENUM(Role)
    enum Column { Family, Pattern, Instances, Keys, Score, Evidence, ColumnCount };

    explicit CandidateModel(QObject *parent = nullptr);

    void setCandidates(const QList<Candidate> &candidates);
    const Candidate *candidateAt(int row) const { return rowAt(row); }

    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;
};

} // namespace gatehouse
