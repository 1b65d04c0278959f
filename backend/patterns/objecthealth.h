// SPDX-License-Identifier: MIT
#pragma once

#include "objectstate.h"
#include "patternkind.h"

#include <QList>
#include <QString>

#include <functional>

namespace gatehouse {

// How much an object's state needs an operator, lowest first: badges are
// coloured by it and the side list counts what is at Warning or above.
enum class Severity { Ok, Muted, Warning, Critical };

QString severityId(Severity severity); // "ok" | "muted" | "warning" | "critical"

// One state an object is in, as its pattern judges it: a stable id for JSON
// and tests ("over-limit"), the words of the Status column, the CLI's
// tables and badges ("over limit", "expired 9.3 min ago: holder crashed,
// may be taken over") and its severity.
struct ObjectHealth
{
    QString id;
    QString words;
    Severity severity = Severity::Ok;
};

// A state a pattern declares it may report.
struct StateInfo
{
    QString id;
    Severity severity = Severity::Ok;
    QString meaning; // what the operator should know or do, one sentence
};

// The state ids shared by the patterns.
namespace states {
inline const QString Ok = QStringLiteral("ok");
inline const QString NearLimit = QStringLiteral("near-limit");
inline const QString OverLimit = QStringLiteral("over-limit");
inline const QString ExpiredPresent = QStringLiteral("expired-present");
inline const QString Stale = QStringLiteral("stale");
inline const QString Stuck = QStringLiteral("stuck");
inline const QString Orphaned = QStringLiteral("orphaned");
inline const QString Gone = QStringLiteral("gone");
inline const QString Missing = QStringLiteral("missing");
inline const QString Error = QStringLiteral("error");
} // namespace states

// What a pattern says of its objects beyond their figures, registered once
// by the pattern's own unit (its folder), looked up by kind: the core never
// names a pattern. A pattern that registers nothing gets the defaults.
struct Judgement
{
    // The object's state at server time nowMs (refines defaultHealth).
    std::function<ObjectHealth(const ObjectState &state, qint64 nowMs)> health;
    // The states health may report; unset: the default ones. (A function:
    // registrars run before main, when no QString constant is safe to use.)
    std::function<QList<StateInfo>()> states;
    // Why an action the pattern offers cannot apply to the object now (the
    // console's disabled button's tooltip); empty when it can.
    std::function<QString(const QString &actionId, const ObjectState &state)> unavailable;
    // Why an action of its section it does not offer is not there for it.
    std::function<QString(const QString &actionLabel)> whyNotOffered;
};

// Registers the judgement of kind's objects; a second registration replaces
// the first. Units call it from a static registrar in their own .cpp
// (`static const bool s_judged = registerJudgement(Kind, {...});`), before
// main: the judgement only holds functions, run later.
bool registerJudgement(PatternKind kind, Judgement judgement);

// What every reading carries: gone, stale, missing, wrong type or error,
// stuck jobs, a limit fully (>= 100 %) or nearly (>= 80 %) used; "ok"
// otherwise.
ObjectHealth defaultHealth(const ObjectState &state, qint64 nowMs);
QList<StateInfo> defaultStates();

// The registered judgement of the object's pattern, or the defaults.
ObjectHealth objectHealth(const ObjectState &state, qint64 nowMs);
QList<StateInfo> declaredStates(PatternKind kind);
QString actionUnavailable(const QString &actionId, const ObjectState &state);
// title: the pattern's ("SETNX lock").
QString whyNotOffered(PatternKind kind, const QString &title, const QString &actionLabel);

} // namespace gatehouse
