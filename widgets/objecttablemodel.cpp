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

// "2,000": counts of a family read the same on every desktop.
QString grouped(double n)
{
    static const QLocale s_english(QLocale::English);
    if (std::abs(n) < 1e15 && n == std::floor(n))
        return s_english.toString(qint64(n));
    return s_english.toString(n, 'f', 1);
}

// The states shared by the patterns, as a count of members reads them
// ("3 at or over limit"); a pattern's own state reads as its id.
QString stateWords(const QString &id)
{
    if (id == states::OverLimit)
        return QStringLiteral("at or over limit");
    if (id == states::ExpiredPresent)
        return QStringLiteral("expired");
    if (id == states::Orphaned)
        return QStringLiteral("without TTL");
    QString words = id;
    return words.replace(QLatin1Char('-'), QLatin1Char(' '));
}

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

// Short words every member in the state said ("free", "over limit"), or
// the state's.
template<typename Tally>
QString tallyWords(const Tally &t)
{
    return t.sameWords && !t.words.isEmpty() && t.words.size() <= 24 ? t.words : stateWords(t.id);
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
{
    for (int c = 0; c < m_columns.count(); ++c) {
        m_folds.append(familyFold(section, m_columns.headers().at(c)));
        if (m_columns.headers().at(c) == QLatin1String("Status"))
            m_statusColumn = c;
    }
}

ObjectTableModel::Member &ObjectTableModel::memberOf(const ObjectList::Ptr &s)
{
    const auto it = m_familyOf.find(s->object.key);
    if (it != m_familyOf.end())
        return *it;
    // Once per key: the family of its name's shape, per pattern.
    const QByteArray family = familyOf(s->object.key);
    const QByteArray id = QByteArray(s->object.kind.name()) + ' ' + family;
    int index = m_familyIds.value(id, -1);
    if (index < 0) {
        index = int(m_families.size());
        Family f;
        f.id = id;
        f.glob = familyGlob(family);
        f.kind = s->object.kind;
        m_families.append(f);
        m_familyIds.insert(id, index);
    }
    Member m;
    m.family = index;
    return *m_familyOf.insert(s->object.key, m);
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
            if (const auto it = m_rows.constFind(s->object.key); it != m_rows.cend())
                m_list[*it].seen = generation;
            continue;
        }
        if (!(s->object.kind == lastKind)) { // runs of one kind: one lookup per run
            lastKind = s->object.kind;
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
        if (const auto it = m_rows.constFind(s->object.key); it != m_rows.cend())
            m_list[*it].seen = generation;
    }
    // Keys whose objects went (tokens come and go) are forgotten now and then.
    if (m_familyOf.size() > 2 * inSection + 1024) {
        QHash<QByteArray, Member> kept;
        kept.reserve(inSection);
        for (const Family &f : std::as_const(m_families)) {
            for (const ObjectList::Ptr &s : f.members)
                kept.insert(s->object.key, m_familyOf.value(s->object.key));
        }
        m_familyOf.swap(kept);
    }

    // Regrouping: a family forms past the threshold and dissolves at half of
    // it (no flapping at the edge). Rows of objects gone, and of a family
    // forming, go first.
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
                if (!m_list.at(r).state || familyIndexOfKey(m_list.at(r).state->object.key) != i)
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

    // Rows of objects: ordinary ones and listed members take the new state;
    // new objects of ordinary families are appended.
    QList<Row> added;
    int firstChanged = -1;
    int lastChanged = -1;
    const auto changed = [&](int row) {
        firstChanged = firstChanged < 0 ? row : std::min(firstChanged, row);
        lastChanged = std::max(lastChanged, row);
    };
    for (qsizetype i = 0; i < snapshot.objects.size(); ++i) {
        if (familyAt.at(i) < 0)
            continue;
        const ObjectList::Ptr &s = snapshot.objects.ptr(i);
        const Family &f = m_families.at(familyAt.at(i));
        if (f.grouped && !f.expanded)
            continue; // no row
        const auto it = m_rows.constFind(s->object.key);
        if (it == m_rows.cend()) {
            // New rows in the snapshot's order; none for a family's members.
            if (!f.grouped)
                added.append({s, -1, generation});
            continue;
        }
        if (m_list.at(*it).state == s)
            continue; // the same state as last time: nothing to repaint
        m_list[*it].state = s;
        changed(*it);
    }
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
            rejudge(f, false);
        if (!f.dirty && f.fingerprint == f.foldedFingerprint)
            continue;
        fold(f);
        f.foldedAt = generation;
        if (f.row >= 0)
            foldedRows.append(f.row);
    }
    // A family row that moves in the view's order takes its listed members
    // along: the proxy re-sorts only rows said to have changed.
    for (int r = 0; r < m_list.size(); ++r) {
        if (m_list.at(r).state && m_list.at(r).family >= 0
            && m_families.at(m_list.at(r).family).foldedAt == generation)
            changed(r);
    }
    for (int i : std::as_const(forming))
        added.append({nullptr, i, generation});
    const QList<int> roles{Qt::DisplayRole, Qt::ToolTipRole, Qt::ForegroundRole, Qt::BackgroundRole,
                           SortRole,        GoneRole,        StaleRole,          SeverityRole,
                           StateIdRole,     MembersRole};
    if (firstChanged >= 0)
        Q_EMIT dataChanged(index(firstChanged, 0), index(lastChanged, columnCount() - 1), roles);
    // A family row on its own: a range from it to a changed object's row
    // would repaint (and re-sort) every family between them.
    for (int row : std::as_const(foldedRows))
        Q_EMIT dataChanged(index(row, 0), index(row, columnCount() - 1), roles);
    if (!added.isEmpty()) {
        const int first = int(m_list.size());
        beginInsertRows({}, first, first + int(added.size()) - 1);
        for (const Row &row : std::as_const(added)) {
            const int r = int(m_list.size());
            if (row.state)
                m_rows.insert(row.state->object.key, r);
            else
                m_families[row.family].row = r;
            m_list.append(row);
        }
        endInsertRows();
    }
    for (int i : std::as_const(forming)) {
        if (m_families.at(i).expanded)
            listWorst(i);
    }
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
    // Rows whose state was not re-read still move with time (readings are
    // projected to the snapshot's time): repaint their time columns. Display
    // only: every projected value moves by the same amount, so the sort
    // order holds.
    if (timeMoved)
        timeColumnsChanged();
}

int ObjectTableModel::judgedIndex(Family &f, const ObjectHealth &h)
{
    // A family's members mostly share a handful of judgements.
    if (f.judged.size() <= 16) {
        for (int j = 0; j < f.judged.size(); ++j) {
            if (f.judged.at(j).id == h.id && f.judged.at(j).words == h.words)
                return j;
        }
    } else if (const auto it = f.judgedOf.constFind(h.id + QLatin1Char('\n') + h.words);
               it != f.judgedOf.cend()) {
        return *it;
    }
    const int index = int(f.judged.size());
    const bool timed
        = h.severity != Severity::Ok
          && std::any_of(h.words.cbegin(), h.words.cend(), [](QChar c) { return c.isDigit(); });
    f.judged.append({h.id, h.words, h.severity, 0, timed});
    f.judgedOf.insert(h.id + QLatin1Char('\n') + h.words, index);
    return index;
}

void ObjectTableModel::rejudge(Family &f, bool all)
{
    // all: the members not judged yet; otherwise those whose words may move
    // with time (Judged::timed). A new judgement makes the family's fold out
    // of date.
    const qint64 at = now();
    for (qsizetype m = 0; m < f.members.size(); ++m) {
        int &j = f.memberJudged[m];
        if (all ? j >= 0 : j < 0 || !f.judged.at(j).timed)
            continue;
        const ObjectList::Ptr &s = f.members.at(m);
        const int judged = judgedIndex(f, objectHealth(*s, at));
        if (judged == j)
            continue;
        j = judged;
        f.dirty = f.dirty || !all;
        if (const auto it = m_familyOf.find(s->object.key); it != m_familyOf.end())
            it->judged = j;
    }
}

void ObjectTableModel::fold(Family &f)
{
    // O(members), no allocation per member: one sort value per folded column
    // each; a member is judged (objectHealth, its state in words) only when
    // its state is new since the last fold.
    ++m_foldCount;
    f.dirty = false;
    f.foldedFingerprint = f.fingerprint;
    const qint64 at = now();
    f.cells.resize(m_columns.count());
    for (FoldCell &cell : f.cells)
        cell = FoldCell();
    f.states.clear();
    f.worst = Severity::Ok;
    f.worstId.clear();
    if (f.members.isEmpty())
        return;
    // The family's columns, looked up once (one pattern per family).
    const ObjectState &first = *f.members.first();
    QVarLengthArray<std::pair<int, const Column *>, 16> numeric;
    for (int c = 1; c < m_columns.count(); ++c) {
        const Column *column = m_columns.column(c, f.kind);
        if (c == m_statusColumn || !column)
            continue;
        const QVariant v = column->sortValue(first, at);
        f.cells[c].numeric = v.typeId() != QMetaType::QString && v.canConvert<double>();
        if (f.cells[c].numeric)
            numeric.append({c, column});
    }
    for (const ObjectList::Ptr &s : std::as_const(f.members)) {
        for (const auto &[c, column] : numeric) {
            FoldCell &cell = f.cells[c];
            const double v = column->sortValue(*s, at).toDouble();
            cell.sum += v;
            if (!cell.maxState || v > cell.max) {
                cell.max = v;
                cell.maxState = s;
            }
        }
    }

    // Judgements whose words moved with time pile up: past a few dozen
    // mostly unused, every member is judged afresh.
    qsizetype used = 0;
    for (const Judged &j : std::as_const(f.judged))
        used += j.count > 0 ? 1 : 0;
    if (f.judged.size() > 64 && f.judged.size() > 2 * used) {
        f.judged.clear();
        f.judgedOf.clear();
        f.memberJudged.fill(-1);
    }
    rejudge(f, true);
    for (Judged &j : f.judged)
        j.count = 0;
    for (const int j : std::as_const(f.memberJudged))
        ++f.judged[j].count;
    // By state, worst first: the words shown when all its members said the
    // same (one judgement of that id).
    for (const Judged &j : std::as_const(f.judged)) {
        if (j.count == 0)
            continue;
        auto tally = std::find_if(f.states.begin(), f.states.end(),
                                  [&](const StateTally &t) { return t.id == j.id; });
        if (tally == f.states.end()) {
            f.states.append({j.id, j.severity, j.count, j.words, true});
        } else {
            tally->count += j.count;
            tally->sameWords = false;
        }
    }
    std::sort(f.states.begin(), f.states.end(), [](const StateTally &a, const StateTally &b) {
        if (a.severity != b.severity)
            return a.severity > b.severity;
        return a.count != b.count ? a.count > b.count : a.id < b.id;
    });
    f.worst = f.states.first().severity;
    f.worstId = f.states.first().id;
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
            m_rows.insert(m_list.at(r).state->object.key, r);
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
        if (m_rows.contains(members.at(m)->object.key))
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
              return members.at(a.second)->object.key < members.at(b.second)->object.key;
          };
    const qsizetype n = std::clamp<qsizetype>(FamilyCap - listedAlready, 0, qsizetype(rank.size()));
    if (n == 0)
        return;
    std::partial_sort(rank.begin(), rank.begin() + n, rank.end(), worse);
    const int first = int(m_list.size());
    beginInsertRows({}, first, first + int(n) - 1);
    for (qsizetype k = 0; k < n; ++k) {
        const ObjectList::Ptr &s = members.at(rank.at(k).second);
        m_rows.insert(s->object.key, int(m_list.size()));
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
        if (s->object.key != key)
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
    return m_columns.column(column, s.object.kind) && column == m_statusColumn;
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
    m_selectedKey = valid && m_list.at(row).state ? m_list.at(row).state->object.key : QByteArray();
    m_selectedFamily = valid && !m_list.at(row).state ? m_list.at(row).family : -1;
}

bool ObjectTableModel::columnUsed(int column) const
{
    for (const Row &r : m_list) {
        const PatternKind kind = r.state ? r.state->object.kind : m_families.at(r.family).kind;
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
        return containsFolded(s->object.key, needle);
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
    return sa->object.key < sb->object.key;
}

QString ObjectTableModel::pluralTitle(qsizetype n) const
{
    const std::optional<Section> section = PatternRegistry::instance().section(m_section);
    QString word = section ? section->singular : m_section;
    if (n != 1)
        word = word.endsWith(QLatin1Char('y')) ? QString(word.chopped(1) + QStringLiteral("ies"))
                                               : QString(word + QLatin1Char('s'));
    return QStringLiteral("%1 %2").arg(grouped(double(n)), word);
}

QString ObjectTableModel::familyTitle(int row) const
{
    if (!isFamilyRow(row))
        return {};
    const Family &f = m_families.at(m_list.at(row).family);
    return QStringLiteral("%1 · %2").arg(printableBytes(f.glob), pluralTitle(f.members.size()));
}

QString ObjectTableModel::foldText(const Family &f, int column) const
{
    const FoldCell &cell = f.cells.value(column);
    if (!cell.numeric || !cell.maxState) {
        // Text columns: the pattern's (one per family), nothing else.
        if (m_columns.headers().value(column) == QLatin1String("Pattern") && !f.members.isEmpty())
            return m_columns.text(column, *f.members.first(), now());
        return {};
    }
    // "max 26 / 20", "max 9.3 min"; a maximum that is no figure ("none",
    // "–": no member has one) reads as itself.
    const QString max = m_columns.text(column, *cell.maxState, now());
    if (!max.isEmpty() && !max.front().isDigit() && m_folds.value(column) == FamilyFold::Max)
        return max;
    switch (m_folds.value(column)) {
    case FamilyFold::Sum:
        return QStringLiteral("Σ %1").arg(grouped(cell.sum));
    case FamilyFold::SumAndMax:
        return QStringLiteral("Σ %1 · max %2").arg(grouped(cell.sum), max);
    case FamilyFold::Max:
        break;
    }
    return QStringLiteral("max %1").arg(max);
}

QString ObjectTableModel::statesText(const Family &f) const
{
    QStringList parts;
    for (const StateTally &t : f.states)
        parts << QStringLiteral("%1 %2").arg(grouped(double(t.count)), tallyWords(t));
    return parts.join(QStringLiteral(" · "));
}

QVariant ObjectTableModel::familyData(const Family &f, int column, int role) const
{
    const bool status = isStatusColumn(column);
    switch (role) {
    case Qt::DisplayRole:
        if (column == 0) {
            // The arrow says it opens; the count says how much is behind it.
            QString text = QStringLiteral("%1 %2 · %3")
                               .arg(f.expanded ? QStringLiteral("▾") : QStringLiteral("▸"),
                                    printableBytes(f.glob), pluralTitle(f.members.size()));
            if (f.expanded && f.members.size() > FamilyCap)
                text += QStringLiteral(" (the %1 worst listed)").arg(FamilyCap);
            return text;
        }
        return status ? statesText(f) : foldText(f, column);
    case Qt::ToolTipRole:
        if (column == 0) {
            const QString what
                = tr("%1: %2 of one pattern (%3) whose keys share the name shape %4.")
                      .arg(printableBytes(f.glob), pluralTitle(f.members.size()), f.kind.id(),
                           printableBytes(f.members.isEmpty()
                                              ? f.glob
                                              : familyOf(f.members.first()->object.key)));
            const QString how
                = f.expanded ? tr("The worst (at most %1) are listed under it; Enter or a "
                                  "click on its arrow collapses them.")
                                   .arg(FamilyCap)
                             : tr("Enter or a click on its arrow lists the worst (at most %1).")
                                   .arg(FamilyCap);
            return QString(what + QLatin1Char('\n') + how + QLatin1Char('\n')
                           + tr("Select one of them for its charts and actions."));
        }
        if (status) {
            QStringList lines;
            const QList<StateInfo> declared = declaredStates(f.kind);
            for (const StateTally &t : f.states) {
                QString meaning;
                for (const StateInfo &info : declared) {
                    if (info.id == t.id)
                        meaning = info.meaning;
                }
                lines << QStringLiteral("%1 %2%3").arg(
                    grouped(double(t.count)), tallyWords(t),
                    meaning.isEmpty() ? QString() : QStringLiteral(": ") + meaning);
            }
            return lines.join(QLatin1Char('\n'));
        }
        return foldText(f, column);
    case Qt::ForegroundRole:
        if (status)
            return QBrush(theme::badge(f.worst, QGuiApplication::palette()).text);
        return {};
    case Qt::BackgroundRole:
        if (status)
            return QBrush(theme::badge(f.worst, QGuiApplication::palette()).fill);
        return {};
    case SeverityRole:
        return int(f.worst);
    case StateIdRole:
        return f.worstId;
    case KeyRole:
        return QByteArray();
    case KindRole:
        return f.kind.id();
    case FamilyRole:
        return f.glob;
    case MembersRole:
        return int(f.members.size());
    case ExpandedRole:
        return f.expanded;
    case SortRole: {
        if (column == 0)
            return QString::fromUtf8(f.glob);
        if (status)
            return int(f.worst);
        const FoldCell &cell = f.cells.value(column);
        if (!cell.numeric)
            return foldText(f, column);
        return m_folds.value(column) == FamilyFold::Max ? cell.max : cell.sum;
    }
    case GoneRole:
    case StaleRole:
        return false;
    default:
        return {};
    }
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
    if (const Column *c = m_columns.column(column, s.object.kind); c && !c->toolTip.isEmpty())
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
        return familyData(m_families.at(row.family), index.column(), role);
    const ObjectState &s = *row.state;
    switch (role) {
    case Qt::DisplayRole:
        // A listed member is indented under its family's row.
        if (index.column() == 0 && row.family >= 0)
            return QString(QStringLiteral("    ") + m_columns.text(0, s, now()));
        return m_columns.text(index.column(), s, now());
    case Qt::ToolTipRole:
        // The key cell says why autodetection shows the object.
        if (index.column() == 0 && !s.object.evidence.isEmpty())
            return QString(toolTip(index.column(), s) + QStringLiteral("\n\n")
                           + evidenceToolTip(s.object.evidence));
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
        return s.object.key;
    case KindRole:
        return s.object.kind.id();
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
