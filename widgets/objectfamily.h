// SPDX-License-Identifier: MIT
#pragma once

#include <monitor/snapshot.h>
#include <patterns/familyfold.h>
#include <patterns/objecthealth.h>
#include <patterns/patternregistry.h>

#include <QHash>
#include <QVariant>

#include <functional>

namespace gatehouse {

// A family of one section's objects (more than FamilyThreshold of one
// pattern whose keys share a name shape): its members of this snapshot,
// their judgements (objectHealth) kept from fold to fold, and its fold, the
// figures of one row (FamilyFold: sums and maxima by column) and its states
// counted, worst first. ObjectTableModel keeps the families of its section.
struct ObjectFamily
{
    // One column of a family folded over its members (this snapshot's).
    struct FoldCell
    {
        bool numeric = false;
        double sum = 0;
        double max = 0;
        ObjectList::Ptr maxState; // the member with the maximum: its text is shown
    };
    struct StateTally
    {
        QString id;
        Severity severity = Severity::Ok;
        qsizetype count = 0;
        // The members' words when they all say the same ("free", "over
        // limit"); otherwise the state's own (stateWords).
        QString words;
        bool sameWords = true;
    };
    // One distinct judgement (objectHealth) of a family's members: a state
    // and its words, and how many members it was at the last fold.
    struct Judged
    {
        QString id;
        QString words;
        Severity severity = Severity::Ok;
        qsizetype count = 0;
        // Words with a figure in them, not ok ("stale for 12 s", "expired
        // 9.3 min ago"): they may move with time.
        bool timed = false;
    };
    QByteArray id; // the pattern's id, a space, familyOf(key)
    QByteArray glob;
    PatternKind kind;
    QList<ObjectList::Ptr> members; // this snapshot's; cleared with its capacity kept
    // By member: its index in judged, -1 while its state is not judged
    // (new, or a new reading since the last fold).
    QList<int> memberJudged;
    QList<Judged> judged;         // the judgements its members had, as first seen
    QHash<QString, int> judgedOf; // id, '\n', words -> index in judged (past 16)
    bool grouped = false;         // shown as one row
    bool expanded = false;        // its members listed
    // A member to judge again since the last fold.
    bool dirty = true;
    // fingerprintOf summed over this snapshot's members, and the last
    // fold's: they differ when a member came, went or has a new state.
    quint64 fingerprint = 0;
    quint64 foldedFingerprint = 0;
    quint64 foldedAt = 0;     // the snapshot generation of the last fold
    int row = -1;             // its row while grouped
    QList<FoldCell> cells;    // by column
    QList<StateTally> states; // worst first
    Severity worst = Severity::Ok;
    QString worstId;

    // The index in judged of judgement h, added when new.
    int judgedIndex(const ObjectHealth &h);
    // Called with a member's key and its new judgement's index.
    using Judging = std::function<void(const QByteArray &key, int judged)>;
    // all: the members not judged yet; otherwise those whose words may move
    // with time (Judged::timed). A new judgement makes the fold out of date.
    void rejudge(bool all, qint64 at, const Judging &judgedNow);
    // The fold at the server's time at: O(members), no allocation per
    // member; a member is judged only when its state is new since the last.
    void fold(const SectionColumns &columns, int statusColumn, qint64 at, const Judging &judgedNow);
};

// What a family's row shows, column by column and role by role (an
// ObjectTableModel::Role): "▸ rl:api:* · 2,000 limiters", "Σ 1,204 · max 26
// / 20", "1,990 ok · 10 at or over limit".
class FamilyCells
{
public:
    // The model's own: they are read as they are when asked.
    FamilyCells(const QString &section, const SectionColumns &columns,
                const QList<FamilyFold> &folds, const int &statusColumn);

    QVariant data(const ObjectFamily &f, int column, int role, qint64 now) const;
    // "rl:api:* · 2,000 limiters".
    QString title(const ObjectFamily &f) const;
    // "2,000 limiters".
    QString pluralTitle(qsizetype n) const;

private:
    QString foldText(const ObjectFamily &f, int column, qint64 now) const;
    QString statesText(const ObjectFamily &f) const;

    const QString &m_section;
    const SectionColumns &m_columns;
    const QList<FamilyFold> &m_folds;
    const int &m_statusColumn;
};

} // namespace gatehouse
