// SPDX-License-Identifier: MIT
#include "builtinalerts.h"

#include <patterns/patternregistry.h>
#include <patterns/patternunit.h>

namespace gatehouse {

QList<AlertRule> builtInAlertRules()
{
    QList<AlertRule> rules;
    for (const PatternUnit *unit : PatternRegistry::instance().units()) {
        for (const BuiltInAlert &alert : unit->builtInAlerts()) {
            AlertRule rule;
            rule.name = alert.name;
            rule.target = unit->kind().id();
            rule.figure = alert.figure;
            rule.comparison
                = alert.below ? AlertRule::Comparison::Below : AlertRule::Comparison::Above;
            rule.threshold = alert.threshold;
            rule.severity
                = alert.critical ? AlertRule::Severity::Critical : AlertRule::Severity::Warning;
            rules.append(rule);
        }
    }
    return rules;
}

} // namespace gatehouse
