// SPDX-License-Identifier: MIT
#include "builtinalerts.h"

namespace gatehouse {

QList<AlertRule> builtInAlertRules()
{
    AlertRule workLost;
    workLost.name = QStringLiteral("sidekiq-work-lost");
    workLost.target = QStringLiteral("sidekiq");
    workLost.figure = QStringLiteral("workLostInMs");
    workLost.comparison = AlertRule::Comparison::Below;
    // A process's work hash expires 60 s after its last beat: below 61 s
    // means a process holding work has died.
    workLost.threshold = 61000;
    workLost.severity = AlertRule::Severity::Critical;
    return {workLost};
}

} // namespace gatehouse
