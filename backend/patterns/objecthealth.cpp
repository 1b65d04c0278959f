// SPDX-License-Identifier: MIT
#include "objecthealth.h"

#include "presentation.h"
#include "reading.h"

#include <QHash>
#include <QMutex>

namespace gatehouse {

namespace {

// Written by static registrars before main(); read from the GUI, monitor
// and CLI threads afterwards. Guarded by judgementsMutex all the same.
QHash<PatternKind, Judgement> &judgements()
{
    static QHash<PatternKind, Judgement> s_judgements;
    return s_judgements;
}

QMutex &judgementsMutex()
{
    static QMutex s_mutex;
    return s_mutex;
}

const Judgement *judgementOf(PatternKind kind)
{
    QMutexLocker lock(&judgementsMutex());
    const auto it = judgements().constFind(kind);
    // Entries are never removed after start-up: the pointer stays valid.
    return it == judgements().cend() ? nullptr : &*it;
}

} // namespace

QString severityId(Severity severity)
{
    switch (severity) {
    case Severity::Ok:
        return QStringLiteral("ok");
    case Severity::Muted:
        return QStringLiteral("muted");
    case Severity::Warning:
        return QStringLiteral("warning");
    case Severity::Critical:
        return QStringLiteral("critical");
    }
    return QStringLiteral("ok");
}

bool registerJudgement(PatternKind kind, Judgement judgement)
{
    QMutexLocker lock(&judgementsMutex());
    judgements().insert(kind, std::move(judgement));
    return true;
}

ObjectHealth defaultHealth(const ObjectState &s, qint64 nowMs)
{
    const Reading &r = s.reading;
    if (s.gone)
        return {states::Gone,
                s.goneSinceMs > 0 && nowMs >= s.goneSinceMs
                    ? QStringLiteral("gone %1 ago").arg(formatMs(nowMs - s.goneSinceMs))
                    : QStringLiteral("gone"),
                Severity::Muted};
    if (s.stale)
        return {states::Stale,
                s.staleSinceMs >= 0 && nowMs >= s.staleSinceMs
                    ? QStringLiteral("stale for %1").arg(formatMs(nowMs - s.staleSinceMs))
                    : QStringLiteral("stale"),
                Severity::Warning};
    switch (r.status) {
    case Reading::Status::Ok:
        break;
    case Reading::Status::Missing:
        return {states::Missing, QStringLiteral("missing"), Severity::Muted};
    case Reading::Status::WrongType:
        return {states::Error, QStringLiteral("wrong type"), Severity::Critical};
    case Reading::Status::Error:
        return {states::Error, QStringLiteral("error"), Severity::Critical};
    }
    if (r.queue().stuck > 0)
        return {states::Stuck,
                QStringLiteral("%1%2 stuck")
                    .arg(r.queue().stuck)
                    .arg(r.queue().stuckIsLowerBound ? QStringLiteral("+") : QString()),
                Severity::Critical};
    if (const std::optional<double> o = r.occupancy()) {
        // 75 / 50 is over the limit (a limit lowered since), never "ok".
        if (*o > 1.0)
            return {states::OverLimit, QStringLiteral("over limit"), Severity::Critical};
        if (*o >= 1.0)
            return {states::OverLimit, QStringLiteral("at limit"), Severity::Critical};
        if (*o >= 0.8)
            return {states::NearLimit, QStringLiteral("near limit"), Severity::Warning};
    }
    return {states::Ok, QStringLiteral("ok"), Severity::Ok};
}

QList<StateInfo> defaultStates()
{
    return {
        {states::Ok, Severity::Ok, QStringLiteral("Nothing needs an operator.")},
        {states::NearLimit, Severity::Warning,
         QStringLiteral("At least 80 % of the limit is used: callers will soon be refused.")},
        {states::OverLimit, Severity::Critical,
         QStringLiteral("The limit is fully used or exceeded: callers are refused.")},
        {states::Stuck, Severity::Critical,
         QStringLiteral("Jobs in flight for longer than the stuck threshold: requeue or "
                        "dead-letter them.")},
        {states::Orphaned, Severity::Warning,
         QStringLiteral("Keys without a TTL that nobody will remove.")},
        {states::Stale, Severity::Warning,
         QStringLiteral("The server has not answered: the last reading is shown.")},
        {states::Gone, Severity::Muted, QStringLiteral("Its keys expired or were deleted.")},
        {states::Missing, Severity::Muted, QStringLiteral("None of its keys exist.")},
        {states::Error, Severity::Critical,
         QStringLiteral("A key has the wrong type or a probe failed.")},
    };
}

ObjectHealth objectHealth(const ObjectState &s, qint64 nowMs)
{
    const Judgement *j = judgementOf(s.object->kind);
    return j && j->health ? j->health(s, nowMs) : defaultHealth(s, nowMs);
}

QList<StateInfo> declaredStates(PatternKind kind)
{
    const Judgement *j = judgementOf(kind);
    return j && j->states ? j->states() : defaultStates();
}

QString actionUnavailable(const QString &actionId, const ObjectState &s)
{
    const Judgement *j = judgementOf(s.object->kind);
    return j && j->unavailable ? j->unavailable(actionId, s) : QString();
}

QString whyNotOffered(PatternKind kind, const QString &title, const QString &actionLabel)
{
    const Judgement *j = judgementOf(kind);
    QString label = actionLabel;
    label.remove(QStringLiteral("…")).remove(QLatin1Char('&'));
    if (j && j->whyNotOffered)
        return j->whyNotOffered(label);
    return QStringLiteral("A %1 does not offer \"%2\".").arg(title, label);
}

} // namespace gatehouse
