// SPDX-License-Identifier: MIT
#include "libraryqueueunit.h"
#include "jobtimes.h"

#include <patterns/countedsentence.h>
#include <patterns/sections.h>

namespace gatehouse {

Section LibraryQueueUnit::section() const
{
    return sections::queue();
}

QStringList LibraryQueueUnit::jobStates() const
{
    QStringList names;
    for (const JobState &s : states())
        names << s.name;
    return names;
}

JobRead LibraryQueueUnit::recordDetail(const JobRow &row) const
{
    return JobRead::done(libraryqueue::jsonDetail(row.refOrId(), row.record, QString()));
}

JobStage LibraryQueueUnit::jobStage(const QString &state) const
{
    for (const JobState &s : states()) {
        if (s.name == state)
            return s.stage;
    }
    return JobStage::Waiting;
}

QList<Column> LibraryQueueUnit::columns() const
{
    return libraryqueue::columns(library().name, columnOptions());
}

void LibraryQueueUnit::writeJson(const ObjectState &s, const Reading &r, qint64 nowMs,
                                 QJsonObject &j) const
{
    libraryqueue::writeJson(r, jsonKeys(s.object), j, jsonOptions());
    libraryqueue::writeLatencyJson(r, nowMs, j);
    writeLibraryJson(s, r, nowMs, j);
}

QJsonArray LibraryQueueUnit::jsonKeys(const PatternObject &object) const
{
    return keysToJson(object.related);
}

void LibraryQueueUnit::writeLibraryJson(const ObjectState &, const Reading &, qint64,
                                        QJsonObject &) const
{}

QHash<QString, QByteArray> LibraryQueueUnit::itemInputs(const ObjectState &s, int i) const
{
    return libraryqueue::itemJob(s, i);
}

namespace {

// Jobs wait and the library's record of its workers names none alive.
bool noWorkerSeen(const Reading &r)
{
    return r.isOk() && r.library().workersAlive == 0 && r.queue().length > 0 && !r.library().paused;
}

} // namespace

std::optional<Attention> LibraryQueueUnit::attention(const ObjectState &state, qint64) const
{
    if (auto stuck = libraryqueue::stuckAttention(state, stuckRule().figure))
        return stuck;
    // Work at risk, below any stuck job: nothing will run it.
    if (noWorkerSeen(state.reading))
        return Attention{2.0, state.reading.jobTimes() ? QStringLiteral("oldestWaitingAgeMs")
                                                       : stuckRule().figure};
    return std::nullopt;
}

const QString &LibraryQueueUnit::noWorkerState()
{
    static const QString id = QStringLiteral("no-worker");
    return id;
}

namespace {

// Keys that resemble the library's but differ from every layout Gatehouse
// knows: shown read-only, its counts the library's own words for them.
const QString &unknownLayoutState()
{
    static const QString id = QStringLiteral("unknown-layout");
    return id;
}

} // namespace

ObjectHealth LibraryQueueUnit::health(const ObjectState &state, qint64 nowMs)
{
    ObjectHealth h = defaultHealth(state, nowMs);
    if (h.id != states::Ok || state.gone || state.stale)
        return h;
    if (!state.reading.library().layoutKnown)
        return {unknownLayoutState(), QStringLiteral("unknown layout, read-only"),
                Severity::Warning};
    if (noWorkerSeen(state.reading))
        return {noWorkerState(), QStringLiteral("no worker seen"), Severity::Warning};
    return h;
}

QList<StateInfo> LibraryQueueUnit::healthStates()
{
    return defaultStates()
           << StateInfo{noWorkerState(), Severity::Warning,
                        QStringLiteral("Jobs wait, the queue is not paused, and the library's "
                                       "record of its workers names none alive: nothing will "
                                       "run them until a worker starts.")}
           << StateInfo{unknownLayoutState(), Severity::Warning,
                        QStringLiteral("The keys resemble the library's but differ from every "
                                       "layout Gatehouse knows: shown read-only, and no action "
                                       "is offered on them.")};
}

Judgement LibraryQueueUnit::judgement()
{
    return {&LibraryQueueUnit::health, &LibraryQueueUnit::healthStates, {}, {}};
}

QString LibraryQueueUnit::attentionSubject(const PatternObject &object) const
{
    return QStringLiteral("%1 %2").arg(title(), displayName(object));
}

QString LibraryQueueUnit::attentionText(const ObjectState &state, qint64 nowMs) const
{
    const Reading &r = state.reading;
    if (r.queue().stuck == 0 && noWorkerSeen(r)) {
        QString text = attentionSubject(state.object) + QStringLiteral(": no worker seen, ")
                       + countedSentence(QStringLiteral("%1 jobs waiting"), r.queue().length);
        if (const qint64 oldest = libraryqueue::oldestWaitingAt(r, nowMs); oldest >= 0)
            text += QStringLiteral(", oldest %1").arg(formatMs(oldest));
        return text;
    }
    const StuckRule rule = stuckRule();
    // "1 job stalled", not "1 jobs".
    QString text = attentionSubject(state.object) + QStringLiteral(": ")
                   + countedSentence(QStringLiteral("%1 ") + rule.phrase, r.queue().stuck);
    if (!rule.oldest.isEmpty())
        text += QStringLiteral(", %1 %2").arg(
            rule.oldest, formatMs(r.ageAt(r.queue().oldestInFlightAgeMs, nowMs)));
    return text;
}

Figure LibraryQueueUnit::countFigure(const QString &id, const QString &title, const QString &state)
{
    return {id, title, false, libraryqueue::countFigure(state)};
}

Figure LibraryQueueUnit::stuckFigure(const QString &title)
{
    return {QStringLiteral("stuck"), title, false, [](const Reading &r, qint64) {
                return double(r.queue().stuck);
            }};
}

Figure LibraryQueueUnit::oldestFigure(const QString &title)
{
    return {QStringLiteral("oldestInFlightAgeMs"), title, true, [](const Reading &r, qint64 at) {
                return double(r.ageAt(r.queue().oldestInFlightAgeMs, at));
            }};
}

Chart LibraryQueueUnit::oldestChart(const QString &title)
{
    return {title,
            QStringLiteral("s"),
            {{QStringLiteral("oldestInFlightAgeMs"), QStringLiteral("oldest (s)"), 0.001}}};
}

} // namespace gatehouse
