// SPDX-License-Identifier: MIT
#pragma once

#include "objectfamily.h"

#include <monitor/snapshot.h>
#include <patterns/familyfold.h>
#include <patterns/objecthealth.h>
#include <patterns/patternregistry.h>

#include <QAbstractTableModel>
#include <QHash>

namespace gatehouse {

// The rows of one section of the snapshot (limiters, locks, token families,
// queues, ...), its columns the section's patterns' (SectionColumns). applySnapshot() updates
// incrementally: new instances are inserted at the end, changed ones emit dataChanged for their
// row; the model is reset only by clear() (a new connection).
//
// Families: more than FamilyThreshold objects of one pattern whose keys share
// a name shape (familyOf: "rl:api:{int}") are one row, the family's, with
// its members' figures folded (FamilyFold) and its worst state; no row exists
// for its members until it is expanded, which adds rows for the FamilyCap
// worst of them (a member asked for by key is added too). Collapsing removes
// them. A family dissolves into ordinary rows when it shrinks to half the
// threshold. Regrouping never removes the selected row (setSelectedRow): a
// family that forms around the selected object forms expanded, and a selected
// family row stays until its last member is gone.
class ObjectTableModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Role {
        KeyRole = Qt::UserRole + 1, // QByteArray: the instance's key (empty on a family row)
        KindRole,                   // QString: the pattern's id
        SortRole,                   // a number or string to sort by
        GoneRole,                   // bool
        StaleRole,                  // bool: the reading could not be refreshed for two ticks
        SeverityRole,               // int: the state's Severity (objectHealth); a family: its worst
        StateIdRole,                // QString: the state's id ("over-limit"); a family: its worst
        FamilyRole,                 // QByteArray: a family row's glob ("rl:api:*"); else empty
        MembersRole,                // int: a family row's member count; 0 otherwise
        ExpandedRole,               // bool: a family row whose members are listed
    };
    Q_ENUM(Role)

    // More objects than this of one pattern in one name family are one row.
    static constexpr int FamilyThreshold = 50;
    // An expanded family lists at most this many members, the worst first.
    static constexpr int FamilyCap = 200;

    explicit ObjectTableModel(const QString &section, QObject *parent = nullptr);

    // ASCII case-insensitive: whether needle (lower case) occurs in key (the
    // filter's test, shared with FamilyProxyModel).
    static bool containsFolded(const QByteArray &key, const QByteArray &needle);

    void applySnapshot(const Snapshot &snapshot);
    void clear();
    // Forgets where the last snapshot's objects were: that place index holds
    // every object of the snapshot, so a model no longer applied every
    // snapshot (its page hidden) would keep states the monitor replaced
    // alive. The next applySnapshot finds each object by key instead.
    void releasePlaces();
    // nullptr for a family row.
    const ObjectState *stateAt(int row) const;
    int rowOf(const QByteArray &key) const { return m_rows.value(key, -1); }
    qint64 serverTimeMs() const { return m_serverTimeMs; }
    // Lock TTLs count down between readings: the server's time now (local
    // clock + offset); repaints the TTL and held-for columns.
    void advanceTo(qint64 serverNowMs);
    const QString &section() const { return m_section; }

    // Families.
    bool isFamilyRow(int row) const;
    // A family row: itself; a listed member: its family's row; otherwise -1.
    int familyRowOf(int row) const;
    int rowOfFamily(const QByteArray &glob, PatternKind kind) const;
    // The family row of key's family, when it is one; -1 otherwise.
    int familyRowOfKey(const QByteArray &key) const;
    bool isExpanded(int row) const;
    // Lists (or stops listing) a family row's members: rows inserted at the
    // end (the worst FamilyCap) or removed.
    void setExpanded(int row, bool expanded);
    // Adds key's row when it is a member of a family not listing it
    // (expanding the family); the row of key, or -1 when no object has it.
    int reveal(const QByteArray &key);
    // The row regrouping must keep (the view's selection; -1: none).
    void setSelectedRow(int row);
    // Whether a family row has a member whose key contains needle (lower-case
    // UTF-8), ASCII case-insensitively: the filter shows a family for its members.
    bool familyHasMember(int row, const QByteArray &needle) const;
    // Within one family: whether member row a comes before member row b (worst
    // state first, then the fuller, then by key).
    bool memberBefore(int a, int b) const;
    // "rl:api:* · 2,000 limiters": what a family row is, in words.
    QString familyTitle(int row) const;
    // How many times a family's members were folded since the model was
    // made: a snapshot folds only the families whose members changed.
    quint64 foldCount() const { return m_foldCount; }
    // Whether a row's pattern (a family row: its members') has this column:
    // a column none of the listed patterns has (Library and Counts with no
    // library lock) is empty on every row. Walks the rows: for a change of
    // rows, not per snapshot.
    bool columnUsed(int column) const;
    int statusColumn() const { return m_statusColumn; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    using Family = ObjectFamily;
    // What the model keeps of an object of its section by key: its family
    // (computed once per key), and the state last judged and the
    // judgement's index in the family's judged (-1: none yet).
    struct Member
    {
        int family = -1;
        int judged = -1;
        ObjectList::Ptr state;
    };
    // A row: an object (state) or a family (state null); a listed member
    // has its family's index too.
    struct Row
    {
        ObjectList::Ptr state;
        int family = -1;
        quint64 seen = 0; // the snapshot generation that last had the object
    };

    // What a snapshot changed in the rows: rows to append, and the range of
    // rows whose state is new.
    struct RowChanges
    {
        QList<Row> added;
        int first = -1;
        int last = -1;
        void changed(int row);
    };

    // applySnapshot's steps: which family each object is in (by place in
    // the snapshot; -1: not of this section) and which rows still have
    // their object; families forming and dissolving; the rows' new states;
    // the families folded again; the views told; the places kept for the
    // next snapshot.
    QList<int> assignMembers(const Snapshot &snapshot, quint64 generation);
    QList<int> regroup(quint64 generation);
    RowChanges updateRows(const Snapshot &snapshot, const QList<int> &familyAt, quint64 generation);
    QList<int> refold(bool timeMoved, quint64 generation, RowChanges &changes);
    void publish(const RowChanges &changes, const QList<int> &foldedRows);
    void rememberPlaces(const Snapshot &snapshot, QList<int> &familyAt);
    // A member's new judgement, kept by key.
    ObjectFamily::Judging judging();
    void timeColumnsChanged();
    QString toolTip(int column, const ObjectState &s) const;
    bool isStateColumn(int column, const ObjectState &s) const;
    bool isStatusColumn(int column) const;
    Severity health(const ObjectState &s) const;
    Member &memberOf(const ObjectList::Ptr &s);
    int familyIndexOfKey(const QByteArray &key) const;
    void listWorst(int family);       // appends rows for the worst members not listed
    void removeRows(QList<int> rows); // ascending or not; reindexes
    void reindex();

    qint64 now() const { return std::max(m_nowMs, m_serverTimeMs); }

    QString m_section;
    SectionColumns m_columns;
    int m_statusColumn = -1;
    QList<FamilyFold> m_folds; // by column
    FamilyCells m_cells;       // what a family's row shows
    QList<Row> m_list;
    QHash<QByteArray, int> m_rows;        // object key -> row
    QList<Family> m_families;             // grows during a connection; clear() empties it
    QHash<QByteArray, Member> m_familyOf; // object key -> its family and judged state
    QHash<QByteArray, int> m_familyIds;
    QByteArray m_selectedKey;  // the selected object's
    int m_selectedFamily = -1; // the selected family row's family
    quint64 m_generation = 0;
    // The last snapshot's objects, and by place each one's family (-1: not
    // of this section) and judgement in it, as the snapshot left them.
    ObjectList m_lastObjects;
    QList<int> m_lastFamilyAt;
    QList<int> m_lastJudged;
    quint64 m_foldCount = 0;
    qint64 m_serverTimeMs = 0; // the snapshot's reading time
    qint64 m_nowMs = 0;        // the server's time now, for live countdowns
};

} // namespace gatehouse
