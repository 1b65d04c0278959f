// SPDX-License-Identifier: MIT
#pragma once

#include "alertrule.h"

namespace gatehouse {

// The alert rules an operator has without configuring any: those of a
// profile without an "alerts" list, and of the console and `watch --alerts`
// without a profile. A profile's own list replaces them (an empty list turns
// them off; so does `watch --no-default-alerts`). Each pattern declares its
// own (PatternUnit::builtInAlerts): Sidekiq's fires at once when a dead
// process's work will be lost for good (critical).
QList<AlertRule> builtInAlertRules();

} // namespace gatehouse
