// SPDX-License-Identifier: MIT
#pragma once

#include <monitor/snapshot.h>
#include <patterns/objecthealth.h>
#include <patterns/patternregistry.h>

#include <QAbstractTableModel>
#include <QHash>

namespace gatehouse {

// The rows of one section of the snapshot (limiters, locks, token families,
// queues, ...), its columns the section's patterns' (SectionColumns). applySnapshot() updates
// incrementally: new instances are inserted at the end, changed ones emit dataChanged for their
// row; the model is reset only by clear() (a new connection).
class ObjectTableModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Role {
        KeyRole = Qt::UserRole + 1, // QByteArray: the instance's key
        KindRole,                   // QString: the pattern's id
        SortRole,                   // a number or string to sort by
        GoneRole,                   // bool
        StaleRole,                  // bool: the reading could not be refreshed for two ticks
        SeverityRole,               // int: the state's Severity (objectHealth)
        StateIdRole,                // QString: the state's id ("over-limit")
    };
    Q_ENUM(Role)

    explicit ObjectTableModel(const QString &section, QObject *parent = nullptr);

    void applySnapshot(const Snapshot &snapshot);
    void clear();
    const ObjectState *stateAt(int row) const;
    int rowOf(const QByteArray &key) const { return m_rows.value(key, -1); }
    qint64 serverTimeMs() const { return m_serverTimeMs; }
    // Lock TTLs count down between readings: the server's time now (local
    // clock + offset); repaints the TTL and held-for columns.
    void advanceTo(qint64 serverNowMs);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    void timeColumnsChanged();
    QString toolTip(int column, const ObjectState &s) const;
    // Rows whose object the snapshot no longer has (demoted by autodetection).
    void removeMissing(const Snapshot &snapshot, int &firstChanged, int &lastChanged);
    bool isStateColumn(int column, const ObjectState &s) const;
    Severity health(const ObjectState &s) const;

    qint64 now() const { return std::max(m_nowMs, m_serverTimeMs); }

    QString m_section;
    SectionColumns m_columns;
    QList<ObjectList::Ptr> m_states; // shared with the snapshots
    QHash<QByteArray, int> m_rows;
    qint64 m_serverTimeMs = 0; // the snapshot's reading time
    qint64 m_nowMs = 0;        // the server's time now, for live countdowns
};

} // namespace gatehouse
