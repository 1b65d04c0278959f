// SPDX-License-Identifier: MIT
#pragma once

#include "objectstate.h"

#include <QList>
#include <QString>

#include <functional>
#include <optional>

namespace gatehouse {

// A figure an alert rule may watch (backend/alerts): declared by a pattern
// (PatternUnit::alertFigures(), by default its history figures) and read
// from the whole published state, so it can use what the monitor tracked
// (a lock's holder since) and not only the reading.
struct AlertFigure
{
    // How a threshold is written and shown: a count ("3"), a ratio shown as a
    // percentage ("80 %", kept as 0.8), a duration in ms ("5 s").
    enum class Unit { Count, Ratio, Duration };
    QString id;    // "occupancy": rule files and --alert expressions
    QString title; // "Occupancy"
    Unit unit = Unit::Count;
    // The value at server time nowMs; nullopt when unknown (a limiter without
    // a known limit, a lock never seen taken): such a reading neither fires
    // nor resolves.
    std::function<std::optional<double>(const ObjectState &state, qint64 nowMs)> value;
    // Where value is unknown, a figure may know a lower bound (a lock already
    // held when Gatehouse first saw it has been held at least since then).
    // It decides a rule only where a bound can: "above" rules it reaches,
    // "below" rules it has passed (AlertRule::decidedByLowerBound).
    std::function<std::optional<double>(const ObjectState &state, qint64 nowMs)> atLeast;

    // A lock's "held for": since the current holder took it (heldSinceMs), in
    // ms; for a holder already there when first seen, at least since then
    // (held says whether the reading has a holder).
    static AlertFigure heldFor(std::function<bool(const ObjectState &state)> held);
};

// A rule on one of a pattern's alert figures that an operator has without
// configuring any (PatternUnit::builtInAlerts; backend/alerts makes the rule,
// targeting the pattern): the figure below (or above) the threshold fires.
struct BuiltInAlert
{
    QString name;   // "sidekiq-work-lost"
    QString figure; // an AlertFigure id of the pattern
    bool below = true;
    double threshold = 0; // in the figure's unit
    bool critical = false;
};

} // namespace gatehouse
