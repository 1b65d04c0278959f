// SPDX-License-Identifier: MIT
#include "objecttablemodel.h"

#include "evidencetext.h"
#include "theme.h"

#include <patterns/keyclassifier.h>
#include <patterns/objecthealth.h>
#include <redis/redisvalue.h>

#include <QBrush>
#include <QDateTime>
#include <QGuiApplication>
#include <QLocale>
#include <QPalette>
#include <QVarLengthArray>

#include <algorithm>
#include <cmath>

namespace gatehouse {

namespace {

// A family's members and their states, order aside: the sum of this over
// them changes when one comes, goes or has a new state (splitmix64's mix of
// the state's address).
quint64 fingerprintOf(const ObjectState *state)
{
    quint64 x = quint64(quintptr(state));
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

} // namespace

bool ObjectTableModel::containsFolded(const QByteArray &key, const QByteArray &needle)
{
    const auto lower = [](char c) {
        return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c;
    };
    return std::search(key.cbegin(), key.cend(), needle.cbegin(), needle.cend(),
                       [&](char a, char b) { return lower(a) == b; })
           != key.cend();
}

ObjectTableModel::ObjectTableModel(const QString &section, QObject *parent)
    : QAbstractTableModel(parent)
    , m_section(section)
    , m_columns(section)
    , m_cells(m_section, m_columns, m_folds, m_statusColumn)
{
    for (int c = 0; c < m_columns.count(); ++c) {
        m_folds.append(familyFold(section, m_columns.headers().at(c)));
        if (m_columns.headers().at(c) == QLatin1String("Status"))
            m_statusColumn = c;
    }
}

ObjectTableModel::Member &ObjectTableModel::memberOf(const ObjectList::Ptr &s)
{
    const auto it = m_familyOf.find(s->object->key);
    if (it != m_familyOf.end())
        return *it;
    // Once per key: the family of its name's shape, per pattern.
    const QByteArray family = familyOf(s->object->key);
    const QByteArray id = QByteArray(s->object->kind.name()) + ' ' + family;
    int index = m_familyIds.value(id, -1);
    if (index < 0) {
        index = int(m_families.size());
        Family f;
        f.id = id;
        f.glob = familyGlob(family);
        f.kind = s->object->kind;
        m_families.append(f);
        m_familyIds.insert(id, index);
    }
    Member m;
    m.family = index;
    return *m_familyOf.insert(s->object->key, m);
}

int ObjectTableModel::familyIndexOfKey(const QByteArray &key) const
{
    const auto it = m_familyOf.constFind(key);
    return it == m_familyOf.cend() ? -1 : it->family;
}

void ObjectTableModel::applySnapshot(const Snapshot &snapshot)
{
    const bool timeMoved = m_serverTimeMs > 0 && snapshot.server.timeMs > m_serverTimeMs;
    m_serverTimeMs = snapshot.server.timeMs;
    m_nowMs = std::max(m_nowMs, m_serverTimeMs);
    const quint64 generation = ++m_generation;
    QList<int> familyAt = assignMembers(snapshot, generation);
    const QList<int> forming = regroup(generation);
    RowChanges changes = updateRows(snapshot, familyAt, generation);
    const QList<int> foldedRows = refold(timeMoved, generation, changes);
    for (int i : std::as_const(forming))
        changes.added.append({nullptr, i, generation});
    publish(changes, foldedRows);
    for (int i : std::as_const(forming)) {
        if (m_families.at(i).expanded)
            listWorst(i);
    }
    rememberPlaces(snapshot, familyAt);
    // Rows whose state was not re-read still move with time (readings are
    // projected to the snapshot's time): repaint their time columns. Display
    // only: every projected value moves by the same amount, so the sort
    // order holds.
    if (timeMoved)
        timeColumnsChanged();
}

ObjectFamily::Judging ObjectTableModel::judging()
{
    return [this](const QByteArray &key, int judged) {
        if (const auto it = m_familyOf.find(key); it != m_familyOf.end())
            it->judged = judged;
    };
}

void ObjectTableModel::RowChanges::changed(int row)
{
    first = first < 0 ? row : std::min(first, row);
    last = std::max(last, row);
}

QList<int> ObjectTableModel::assignMembers(const Snapshot &snapshot, quint64 generation)
{
    // Which family each object is in, and which rows still have their object.
    for (Family &f : m_families) {
        f.members.clear(); // keeps the capacity: no allocation per member
        f.memberJudged.clear();
        f.fingerprint = 0;
    }
    // One hash lookup per member of a folded family (its family; it has no
    // row); the family of each object is kept for the second pass (-1: not
    // of this section).
    qsizetype inSection = 0;
    QList<int> familyAt(snapshot.objects.size(), -1);
    PatternKind lastKind;
    bool lastKindHere = false;
    for (qsizetype i = 0; i < snapshot.objects.size(); ++i) {
        const ObjectList::Ptr &s = snapshot.objects.ptr(i);
        if (i < m_lastObjects.size() && m_lastObjects.ptr(i) == s) {
            // The state the last snapshot had at this place (the monitor
            // shares unchanged states): its family and judgement as then,
            // no hash lookup.
            const int fi = m_lastFamilyAt.at(i);
            if (fi < 0)
                continue;
            ++inSection;
            familyAt[i] = fi;
            Family &f = m_families[fi];
            f.members.append(s);
            f.fingerprint += fingerprintOf(s.get());
            f.memberJudged.append(m_lastJudged.at(i));
            if (f.grouped && !f.expanded)
                continue;
            if (const auto it = m_rows.constFind(s->object->key); it != m_rows.cend())
                m_list[*it].seen = generation;
            continue;
        }
        if (!(s->object->kind == lastKind)) { // runs of one kind: one lookup per run
            lastKind = s->object->kind;
            lastKindHere = m_columns.contains(lastKind);
        }
        if (!lastKindHere)
            continue;
        ++inSection;
        Member &m = memberOf(s);
        const int fi = m.family;
        familyAt[i] = fi;
        Family &f = m_families[fi];
        f.members.append(s);
        // A member with a new state (or new to the family) is judged again.
        f.fingerprint += fingerprintOf(s.get());
        if (m.state != s) {
            m.state = s;
            m.judged = -1;
            f.dirty = true;
        }
        f.memberJudged.append(m.judged);
        if (f.grouped && !f.expanded)
            continue;
        if (const auto it = m_rows.constFind(s->object->key); it != m_rows.cend())
            m_list[*it].seen = generation;
    }
    // Keys whose objects went (tokens come and go) are forgotten now and then.
    if (m_familyOf.size() > 2 * inSection + 1024) {
        QHash<QByteArray, Member> kept;
        kept.reserve(inSection);
        for (const Family &f : std::as_const(m_families)) {
            for (const ObjectList::Ptr &s : f.members)
                kept.insert(s->object->key, m_familyOf.value(s->object->key));
        }
        m_familyOf.swap(kept);
    }

    return familyAt;
}

// A family forms past the threshold and dissolves at half of it (no flapping
// at the edge). Rows of objects gone, and of a family forming, go first. The
// families forming.
QList<int> ObjectTableModel::regroup(quint64 generation)
{
    QList<bool> drop(m_list.size(), false);
    bool dropping = false;
    for (int r = 0; r < m_list.size(); ++r) {
        if (m_list.at(r).state && m_list.at(r).seen != generation)
            drop[r] = dropping = true;
    }
    QList<int> forming;
    for (int i = 0; i < m_families.size(); ++i) {
        Family &f = m_families[i];
        const qsizetype n = f.members.size();
        if (!f.grouped && n > FamilyThreshold) {
            // The selected object keeps its row: the family forms expanded,
            // listing the rows it had.
            f.grouped = true;
            f.dirty = true;
            f.expanded = !m_selectedKey.isEmpty() && familyIndexOfKey(m_selectedKey) == i
                         && m_rows.contains(m_selectedKey);
            for (int r = 0; r < m_list.size(); ++r) {
                if (!m_list.at(r).state || familyIndexOfKey(m_list.at(r).state->object->key) != i)
                    continue;
                if (f.expanded)
                    m_list[r].family = i;
                else
                    drop[r] = dropping = true;
            }
            forming.append(i);
        } else if (f.grouped && n <= FamilyThreshold / 2 && (n == 0 || i != m_selectedFamily)) {
            // Dissolves: its listed members stay as ordinary rows, the others
            // are added below.
            f.grouped = false;
            f.expanded = false;
            for (Row &row : m_list) {
                if (row.state && row.family == i)
                    row.family = -1;
            }
            if (f.row >= 0)
                drop[f.row] = dropping = true;
        }
    }
    if (dropping) {
        QList<int> rows;
        for (int r = 0; r < drop.size(); ++r) {
            if (drop.at(r))
                rows.append(r);
        }
        removeRows(rows);
    }

    return forming;
}

ObjectTableModel::RowChanges ObjectTableModel::updateRows(const Snapshot &snapshot,
                                                          const QList<int> &familyAt,
                                                          quint64 generation)
{
    // Rows of objects: ordinary ones and listed members take the new state;
    // new objects of ordinary families are appended.
    RowChanges changes;
    for (qsizetype i = 0; i < snapshot.objects.size(); ++i) {
        if (familyAt.at(i) < 0)
            continue;
        const ObjectList::Ptr &s = snapshot.objects.ptr(i);
        const Family &f = m_families.at(familyAt.at(i));
        if (f.grouped && !f.expanded)
            continue; // no row
        const auto it = m_rows.constFind(s->object->key);
        if (it == m_rows.cend()) {
            // New rows in the snapshot's order; none for a family's members.
            if (!f.grouped)
                changes.added.append({s, -1, generation});
            continue;
        }
        if (m_list.at(*it).state == s)
            continue; // the same state as last time: nothing to repaint
        m_list[*it].state = s;
        changes.changed(*it);
    }
    return changes;
}

// The family rows folded again.
QList<int> ObjectTableModel::refold(bool timeMoved, quint64 generation, RowChanges &changes)
{
    // Only the families whose members changed are folded again: a fold is
    // O(members) (20,000 limiters of one family are common), and most
    // snapshots change a few objects. Time alone changes nothing a fold
    // counts but the words of a state that is not ok ("stale for 12 s"):
    // those members are judged again when the server's time moved (a state
    // that time changes, such as an expiry passed, comes as a new reading:
    // the monitor re-reads an object past PatternUnit::validUntilMs).
    QList<int> foldedRows;
    for (int i = 0; i < m_families.size(); ++i) {
        Family &f = m_families[i];
        if (!f.grouped)
            continue;
        if (timeMoved && f.worst != Severity::Ok)
            f.rejudge(false, now(), judging());
        if (!f.dirty && f.fingerprint == f.foldedFingerprint)
            continue;
        ++m_foldCount;
        f.fold(m_columns, m_statusColumn, now(), judging());
        f.foldedAt = generation;
        if (f.row >= 0)
            foldedRows.append(f.row);
    }
    // A family row that moves in the view's order takes its listed members
    // along: the proxy re-sorts only rows said to have changed.
    for (int r = 0; r < m_list.size(); ++r) {
        if (m_list.at(r).state && m_list.at(r).family >= 0
            && m_families.at(m_list.at(r).family).foldedAt == generation)
            changes.changed(r);
    }
    return foldedRows;
}

void ObjectTableModel::publish(const RowChanges &changes, const QList<int> &foldedRows)
{
    const QList<int> roles{Qt::DisplayRole, Qt::ToolTipRole, Qt::ForegroundRole, Qt::BackgroundRole,
                           SortRole,        GoneRole,        StaleRole,          SeverityRole,
                           StateIdRole,     MembersRole};
    if (changes.first >= 0)
        Q_EMIT dataChanged(index(changes.first, 0), index(changes.last, columnCount() - 1), roles);
    // A family row on its own: a range from it to a changed object's row
    // would repaint (and re-sort) every family between them.
    for (int row : std::as_const(foldedRows))
        Q_EMIT dataChanged(index(row, 0), index(row, columnCount() - 1), roles);
    const QList<Row> &added = changes.added;
    if (!added.isEmpty()) {
        const int first = int(m_list.size());
        beginInsertRows({}, first, first + int(added.size()) - 1);
        for (const Row &row : std::as_const(added)) {
            const int r = int(m_list.size());
            if (row.state)
                m_rows.insert(row.state->object->key, r);
            else
                m_families[row.family].row = r;
            m_list.append(row);
        }
        endInsertRows();
    }
}

void ObjectTableModel::rememberPlaces(const Snapshot &snapshot, QList<int> &familyAt)
{
    // The next snapshot finds its unchanged states by place: each one's
    // family and judgement (members are in snapshot order in their family).
    m_lastObjects = snapshot.objects;
    m_lastJudged.fill(-1, snapshot.objects.size());
    {
        QList<qsizetype> next(m_families.size(), 0);
        for (qsizetype i = 0; i < familyAt.size(); ++i) {
            if (const int fi = familyAt.at(i); fi >= 0)
                m_lastJudged[i] = m_families.at(fi).memberJudged.value(next[fi]++, -1);
        }
    }
    m_lastFamilyAt.swap(familyAt);
}

void ObjectTableModel::removeRows(QList<int> rows)
{
    std::sort(rows.begin(), rows.end());
    rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
    // In runs, from the end, so the rows before keep their place.
    for (qsizetype i = rows.size() - 1; i >= 0;) {
        const int last = rows.at(i);
        int first = last;
        while (i > 0 && rows.at(i - 1) == first - 1)
            first = rows.at(--i);
        --i;
        beginRemoveRows({}, first, last);
        for (int r = first; r <= last; ++r) {
            if (!m_list.at(r).state)
                m_families[m_list.at(r).family].row = -1;
        }
        m_list.remove(first, last - first + 1);
        // The hash and family rows are right again before the views hear of it.
        reindex();
        endRemoveRows();
    }
}

void ObjectTableModel::reindex()
{
    m_rows.clear();
    for (Family &f : m_families)
        f.row = -1;
    for (int r = 0; r < m_list.size(); ++r) {
        if (m_list.at(r).state)
            m_rows.insert(m_list.at(r).state->object->key, r);
        else
            m_families[m_list.at(r).family].row = r;
    }
}

void ObjectTableModel::setExpanded(int row, bool expanded)
{
    if (!isFamilyRow(row) || isExpanded(row) == expanded)
        return;
    const int i = m_list.at(row).family;
    Family &f = m_families[i];
    f.expanded = expanded;
    if (!expanded) {
        QList<int> listed;
        for (int r = 0; r < m_list.size(); ++r) {
            if (m_list.at(r).state && m_list.at(r).family == i)
                listed.append(r);
        }
        removeRows(listed);
        Q_EMIT dataChanged(index(f.row, 0), index(f.row, columnCount() - 1));
        return;
    }
    listWorst(i);
    Q_EMIT dataChanged(index(f.row, 0), index(f.row, columnCount() - 1));
}

void ObjectTableModel::listWorst(int i)
{
    // The worst FamilyCap (those listed already count), in the order the
    // view lists them (memberBefore), appended.
    const Family &f = m_families.at(i);
    const QList<ObjectList::Ptr> members = f.members; // shared, not copied
    const qint64 at = now();
    QList<std::pair<Severity, qsizetype>> rank; // severity, index in members
    rank.reserve(members.size());
    qsizetype listedAlready = 0;
    for (qsizetype m = 0; m < members.size(); ++m) {
        if (m_rows.contains(members.at(m)->object->key))
            ++listedAlready;
        else if (const int j = f.memberJudged.value(m, -1); j >= 0) // as its row folds it
            rank.append({f.judged.at(j).severity, m});
        else
            rank.append({objectHealth(*members.at(m), at).severity, m});
    }
    const auto worse
        = [&](const std::pair<Severity, qsizetype> &a, const std::pair<Severity, qsizetype> &b) {
              if (a.first != b.first)
                  return a.first > b.first;
              const double oa = members.at(a.second)->reading.occupancy().value_or(-1);
              const double ob = members.at(b.second)->reading.occupancy().value_or(-1);
              if (oa != ob)
                  return oa > ob;
              return members.at(a.second)->object->key < members.at(b.second)->object->key;
          };
    const qsizetype n = std::clamp<qsizetype>(FamilyCap - listedAlready, 0, qsizetype(rank.size()));
    if (n == 0)
        return;
    std::partial_sort(rank.begin(), rank.begin() + n, rank.end(), worse);
    const int first = int(m_list.size());
    beginInsertRows({}, first, first + int(n) - 1);
    for (qsizetype k = 0; k < n; ++k) {
        const ObjectList::Ptr &s = members.at(rank.at(k).second);
        m_rows.insert(s->object->key, int(m_list.size()));
        m_list.append({s, i, m_generation});
    }
    endInsertRows();
}

int ObjectTableModel::reveal(const QByteArray &key)
{
    if (const int row = rowOf(key); row >= 0)
        return row;
    const int i = familyIndexOfKey(key);
    if (i < 0 || !m_families.at(i).grouped)
        return -1;
    Family &f = m_families[i];
    if (!f.expanded)
        setExpanded(f.row, true);
    if (const int row = rowOf(key); row >= 0)
        return row;
    // Past the cap: listed all the same.
    for (const ObjectList::Ptr &s : std::as_const(f.members)) {
        if (s->object->key != key)
            continue;
        const int r = int(m_list.size());
        beginInsertRows({}, r, r);
        m_rows.insert(key, r);
        m_list.append({s, i, m_generation});
        endInsertRows();
        return r;
    }
    return -1;
}

void ObjectTableModel::timeColumnsChanged()
{
    if (m_list.isEmpty())
        return;
    // One signal per run of adjacent time columns (TTL and held-for).
    for (int c = 0; c < m_columns.count(); ++c) {
        if (!m_columns.movesWithTime(c))
            continue;
        int last = c;
        while (last + 1 < m_columns.count() && m_columns.movesWithTime(last + 1))
            ++last;
        Q_EMIT dataChanged(index(0, c), index(int(m_list.size()) - 1, last), {Qt::DisplayRole});
        c = last;
    }
}

void ObjectTableModel::advanceTo(qint64 serverNowMs)
{
    m_nowMs = serverNowMs;
    timeColumnsChanged();
}

void ObjectTableModel::releasePlaces()
{
    m_lastObjects = ObjectList();
    m_lastFamilyAt.clear();
    m_lastJudged.clear();
}

void ObjectTableModel::clear()
{
    beginResetModel();
    m_list.clear();
    m_rows.clear();
    m_families.clear();
    m_familyOf.clear();
    m_familyIds.clear();
    m_lastObjects = ObjectList();
    m_lastFamilyAt.clear();
    m_lastJudged.clear();
    m_selectedKey.clear();
    m_selectedFamily = -1;
    endResetModel();
}

bool ObjectTableModel::isStateColumn(int column, const ObjectState &s) const
{
    // Column::status(), which every section's table ends with.
    return m_columns.column(column, s.object->kind) && column == m_statusColumn;
}

bool ObjectTableModel::isStatusColumn(int column) const
{
    return column == m_statusColumn;
}

Severity ObjectTableModel::health(const ObjectState &s) const
{
    return objectHealth(s, now()).severity;
}

const ObjectState *ObjectTableModel::stateAt(int row) const
{
    return row >= 0 && row < m_list.size() ? m_list.at(row).state.get() : nullptr;
}

void ObjectTableModel::setSelectedRow(int row)
{
    const bool valid = row >= 0 && row < m_list.size();
    m_selectedKey
        = valid && m_list.at(row).state ? m_list.at(row).state->object->key : QByteArray();
    m_selectedFamily = valid && !m_list.at(row).state ? m_list.at(row).family : -1;
}

bool ObjectTableModel::columnUsed(int column) const
{
    for (const Row &r : m_list) {
        const PatternKind kind = r.state ? r.state->object->kind : m_families.at(r.family).kind;
        if (m_columns.column(column, kind))
            return true;
    }
    return false;
}

bool ObjectTableModel::isFamilyRow(int row) const
{
    return row >= 0 && row < m_list.size() && !m_list.at(row).state;
}

int ObjectTableModel::familyRowOf(int row) const
{
    if (row < 0 || row >= m_list.size() || m_list.at(row).family < 0)
        return -1;
    return m_families.at(m_list.at(row).family).row;
}

int ObjectTableModel::rowOfFamily(const QByteArray &glob, PatternKind kind) const
{
    for (const Family &f : m_families) {
        if (f.row >= 0 && f.glob == glob && f.kind == kind)
            return f.row;
    }
    return -1;
}

int ObjectTableModel::familyRowOfKey(const QByteArray &key) const
{
    const int i = familyIndexOfKey(key);
    return i < 0 ? -1 : m_families.at(i).row;
}

bool ObjectTableModel::isExpanded(int row) const
{
    return isFamilyRow(row) && m_families.at(m_list.at(row).family).expanded;
}

bool ObjectTableModel::familyHasMember(int row, const QByteArray &needle) const
{
    if (!isFamilyRow(row))
        return false;
    const Family &f = m_families.at(m_list.at(row).family);
    return std::any_of(f.members.cbegin(), f.members.cend(), [&](const ObjectList::Ptr &s) {
        return containsFolded(s->object->key, needle);
    });
}

bool ObjectTableModel::memberBefore(int a, int b) const
{
    const ObjectState *sa = stateAt(a);
    const ObjectState *sb = stateAt(b);
    if (!sa || !sb)
        return a < b;
    const Severity ha = health(*sa);
    const Severity hb = health(*sb);
    if (ha != hb)
        return ha > hb;
    const double oa = sa->reading.occupancy().value_or(-1);
    const double ob = sb->reading.occupancy().value_or(-1);
    if (oa != ob)
        return oa > ob;
    return sa->object->key < sb->object->key;
}

QString ObjectTableModel::familyTitle(int row) const
{
    if (!isFamilyRow(row))
        return {};
    const Family &f = m_families.at(m_list.at(row).family);
    return m_cells.title(f);
}

int ObjectTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_list.size());
}

int ObjectTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : m_columns.count();
}

QVariant ObjectTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation == Qt::Horizontal && role == Qt::DisplayRole)
        return tr(qPrintable(m_columns.headers().value(section)));
    return {};
}

QString ObjectTableModel::toolTip(int column, const ObjectState &s) const
{
    if (s.stale)
        return tr("stale since %1: the server has not answered since; this is the last "
                  "reading that arrived.")
            .arg(QDateTime::fromMSecsSinceEpoch(s.staleSinceMs)
                     .toString(QStringLiteral("HH:mm:ss")));
    if (const Column *c = m_columns.column(column, s.object->kind); c && !c->toolTip.isEmpty())
        return c->toolTip;
    // The state's words in full (the cell may be elided), with the
    // reading's reason when it has one.
    if (isStateColumn(column, s) && !s.reading.message.isEmpty())
        return QString(m_columns.text(column, s, now()) + QLatin1Char('\n') + s.reading.message);
    return s.reading.message.isEmpty() ? m_columns.text(column, s, now()) : s.reading.message;
}

QVariant ObjectTableModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= m_list.size())
        return {};
    const Row &row = m_list.at(index.row());
    if (!row.state)
        return m_cells.data(m_families.at(row.family), index.column(), role, now());
    const ObjectState &s = *row.state;
    switch (role) {
    case Qt::DisplayRole:
        // A listed member is indented under its family's row.
        if (index.column() == 0 && row.family >= 0)
            return QString(QStringLiteral("    ") + m_columns.text(0, s, now()));
        return m_columns.text(index.column(), s, now());
    case Qt::ToolTipRole:
        // The key cell says why autodetection shows the object.
        if (index.column() == 0 && !s.object->evidence.isEmpty())
            return QString(toolTip(index.column(), s) + QStringLiteral("\n\n")
                           + evidenceToolTip(s.object->evidence));
        return toolTip(index.column(), s);
    case Qt::ForegroundRole: {
        const QPalette palette = QGuiApplication::palette();
        if (isStateColumn(index.column(), s))
            return QBrush(theme::badge(health(s), palette).text);
        if (s.gone || s.stale)
            return QBrush(theme::mutedText(palette));
        if (s.reading.status == Reading::Status::WrongType
            || s.reading.status == Reading::Status::Error)
            return QBrush(theme::badge(Severity::Critical, palette).text);
        return {};
    }
    case Qt::BackgroundRole:
        if (isStateColumn(index.column(), s))
            return QBrush(theme::badge(health(s), QGuiApplication::palette()).fill);
        return {};
    case SeverityRole:
        return int(health(s));
    case StateIdRole:
        return objectHealth(s, now()).id;
    case KeyRole:
        return s.object->key;
    case KindRole:
        return s.object->kind.id();
    case SortRole:
        return m_columns.sortValue(index.column(), s, now());
    case GoneRole:
        return s.gone;
    case StaleRole:
        return s.stale;
    case FamilyRole:
        return QByteArray();
    case MembersRole:
        return 0;
    case ExpandedRole:
        return false;
    default:
        return {};
    }
}

} // namespace gatehouse
