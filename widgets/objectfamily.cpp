// SPDX-License-Identifier: MIT
#include "objectfamily.h"

#include "objecttablemodel.h"
#include "theme.h"

#include <patterns/keyclassifier.h>
#include <redis/redisvalue.h>

#include <QBrush>
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

// Short words every member in the state said ("free", "over limit"), or
// the state's.
template<typename Tally>
QString tallyWords(const Tally &t)
{
    return t.sameWords && !t.words.isEmpty() && t.words.size() <= 24 ? t.words : stateWords(t.id);
}

} // namespace

int ObjectFamily::judgedIndex(const ObjectHealth &h)
{
    // A family's members mostly share a handful of judgements.
    if (judged.size() <= 16) {
        for (int j = 0; j < judged.size(); ++j) {
            if (judged.at(j).id == h.id && judged.at(j).words == h.words)
                return j;
        }
    } else if (const auto it = judgedOf.constFind(h.id + QLatin1Char('\n') + h.words);
               it != judgedOf.cend()) {
        return *it;
    }
    const int index = int(judged.size());
    const bool timed
        = h.severity != Severity::Ok
          && std::any_of(h.words.cbegin(), h.words.cend(), [](QChar c) { return c.isDigit(); });
    judged.append({h.id, h.words, h.severity, 0, timed});
    judgedOf.insert(h.id + QLatin1Char('\n') + h.words, index);
    return index;
}

void ObjectFamily::rejudge(bool all, qint64 at, const Judging &judgedNow)
{
    for (qsizetype m = 0; m < members.size(); ++m) {
        int &j = memberJudged[m];
        if (all ? j >= 0 : j < 0 || !judged.at(j).timed)
            continue;
        const ObjectList::Ptr &s = members.at(m);
        const int index = judgedIndex(objectHealth(*s, at));
        if (index == j)
            continue;
        j = index;
        dirty = dirty || !all;
        judgedNow(s->object->key, j);
    }
}

void ObjectFamily::fold(const SectionColumns &columns, int statusColumn, qint64 at,
                        const Judging &judgedNow)
{
    // One sort value per folded column each.
    dirty = false;
    foldedFingerprint = fingerprint;
    cells.resize(columns.count());
    for (FoldCell &cell : cells)
        cell = FoldCell();
    states.clear();
    worst = Severity::Ok;
    worstId.clear();
    if (members.isEmpty())
        return;
    // The family's columns, looked up once (one pattern per family).
    const ObjectState &first = *members.first();
    QVarLengthArray<std::pair<int, const Column *>, 16> numeric;
    for (int c = 1; c < columns.count(); ++c) {
        const Column *column = columns.column(c, kind);
        if (c == statusColumn || !column)
            continue;
        const QVariant v = column->sortValue(first, at);
        cells[c].numeric = v.typeId() != QMetaType::QString && v.canConvert<double>();
        if (cells[c].numeric)
            numeric.append({c, column});
    }
    for (const ObjectList::Ptr &s : std::as_const(members)) {
        for (const auto &[c, column] : numeric) {
            FoldCell &cell = cells[c];
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
    for (const Judged &j : std::as_const(judged))
        used += j.count > 0 ? 1 : 0;
    if (judged.size() > 64 && judged.size() > 2 * used) {
        judged.clear();
        judgedOf.clear();
        memberJudged.fill(-1);
    }
    rejudge(true, at, judgedNow);
    for (Judged &j : judged)
        j.count = 0;
    for (const int j : std::as_const(memberJudged))
        ++judged[j].count;
    // By state, worst first: the words shown when all its members said the
    // same (one judgement of that id).
    for (const Judged &j : std::as_const(judged)) {
        if (j.count == 0)
            continue;
        auto tally = std::find_if(states.begin(), states.end(),
                                  [&](const StateTally &t) { return t.id == j.id; });
        if (tally == states.end()) {
            states.append({j.id, j.severity, j.count, j.words, true});
        } else {
            tally->count += j.count;
            tally->sameWords = false;
        }
    }
    std::sort(states.begin(), states.end(), [](const StateTally &a, const StateTally &b) {
        if (a.severity != b.severity)
            return a.severity > b.severity;
        return a.count != b.count ? a.count > b.count : a.id < b.id;
    });
    worst = states.first().severity;
    worstId = states.first().id;
}

FamilyCells::FamilyCells(const QString &section, const SectionColumns &columns,
                         const QList<FamilyFold> &folds, const int &statusColumn)
    : m_section(section)
    , m_columns(columns)
    , m_folds(folds)
    , m_statusColumn(statusColumn)
{}

QString FamilyCells::pluralTitle(qsizetype n) const
{
    const std::optional<Section> section = PatternRegistry::instance().section(m_section);
    QString word = section ? section->singular : m_section;
    if (n != 1)
        word = word.endsWith(QLatin1Char('y')) ? QString(word.chopped(1) + QStringLiteral("ies"))
                                               : QString(word + QLatin1Char('s'));
    return QStringLiteral("%1 %2").arg(grouped(double(n)), word);
}

QString FamilyCells::title(const ObjectFamily &f) const
{
    return QStringLiteral("%1 · %2").arg(printableBytes(f.glob), pluralTitle(f.members.size()));
}

QString FamilyCells::foldText(const ObjectFamily &f, int column, qint64 now) const
{
    const ObjectFamily::FoldCell &cell = f.cells.value(column);
    if (!cell.numeric || !cell.maxState) {
        // Text columns: the pattern's (one per family), nothing else.
        if (m_columns.headers().value(column) == QLatin1String("Pattern") && !f.members.isEmpty())
            return m_columns.text(column, *f.members.first(), now);
        return {};
    }
    // "max 26 / 20", "max 9.3 min"; a maximum that is no figure ("none",
    // "–": no member has one) reads as itself.
    const QString max = m_columns.text(column, *cell.maxState, now);
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

QString FamilyCells::statesText(const ObjectFamily &f) const
{
    QStringList parts;
    for (const ObjectFamily::StateTally &t : f.states)
        parts << QStringLiteral("%1 %2").arg(grouped(double(t.count)), tallyWords(t));
    return parts.join(QStringLiteral(" · "));
}

QVariant FamilyCells::data(const ObjectFamily &f, int column, int role, qint64 now) const
{
    const bool status = column == m_statusColumn;
    switch (role) {
    case Qt::DisplayRole:
        if (column == 0) {
            // The arrow says it opens; the count says how much is behind it.
            QString text = QStringLiteral("%1 %2 · %3")
                               .arg(f.expanded ? QStringLiteral("▾") : QStringLiteral("▸"),
                                    printableBytes(f.glob), pluralTitle(f.members.size()));
            if (f.expanded && f.members.size() > ObjectTableModel::FamilyCap)
                text += QStringLiteral(" (the %1 worst listed)").arg(ObjectTableModel::FamilyCap);
            return text;
        }
        return status ? statesText(f) : foldText(f, column, now);
    case Qt::ToolTipRole:
        if (column == 0) {
            const QString what
                = ObjectTableModel::tr(
                      "%1: %2 of one pattern (%3) whose keys share the name shape %4.")
                      .arg(printableBytes(f.glob), pluralTitle(f.members.size()), f.kind.id(),
                           printableBytes(f.members.isEmpty()
                                              ? f.glob
                                              : familyOf(f.members.first()->object->key)));
            const QString how
                = f.expanded ? ObjectTableModel::tr(
                                   "The worst (at most %1) are listed under it; Enter or a "
                                   "click on its arrow collapses them.")
                                   .arg(ObjectTableModel::FamilyCap)
                             : ObjectTableModel::tr(
                                   "Enter or a click on its arrow lists the worst (at most %1).")
                                   .arg(ObjectTableModel::FamilyCap);
            return QString(
                what + QLatin1Char('\n') + how + QLatin1Char('\n')
                + ObjectTableModel::tr("Select one of them for its charts and actions."));
        }
        if (status) {
            QStringList lines;
            const QList<StateInfo> declared = declaredStates(f.kind);
            for (const ObjectFamily::StateTally &t : f.states) {
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
        return foldText(f, column, now);
    case Qt::ForegroundRole:
        if (status)
            return QBrush(theme::badge(f.worst, QGuiApplication::palette()).text);
        return {};
    case Qt::BackgroundRole:
        if (status)
            return QBrush(theme::badge(f.worst, QGuiApplication::palette()).fill);
        return {};
    case ObjectTableModel::SeverityRole:
        return int(f.worst);
    case ObjectTableModel::StateIdRole:
        return f.worstId;
    case ObjectTableModel::KeyRole:
        return QByteArray();
    case ObjectTableModel::KindRole:
        return f.kind.id();
    case ObjectTableModel::FamilyRole:
        return f.glob;
    case ObjectTableModel::MembersRole:
        return int(f.members.size());
    case ObjectTableModel::ExpandedRole:
        return f.expanded;
    case ObjectTableModel::SortRole: {
        if (column == 0)
            return QString::fromUtf8(f.glob);
        if (status)
            return int(f.worst);
        const ObjectFamily::FoldCell &cell = f.cells.value(column);
        if (!cell.numeric)
            return foldText(f, column, now);
        return m_folds.value(column) == FamilyFold::Max ? cell.max : cell.sum;
    }
    case ObjectTableModel::GoneRole:
    case ObjectTableModel::StaleRole:
        return false;
    default:
        return {};
    }
}

} // namespace gatehouse
