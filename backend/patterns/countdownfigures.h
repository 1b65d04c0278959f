// SPDX-License-Identifier: MIT
#pragma once

#include "patternkind.h"

#include <QString>

namespace gatehouse::CountdownFigures {

// Alert figures (AlertFigure ids) that are deadlines: the time left before a
// pattern's data is lost for good, Reading::Forever when nothing is at risk
// (a dead Sidekiq process's work, gone when its hash expires). A pattern
// registers its own when its unit is made; the Overview counts the soonest
// one down in red. Thread-safe.
void add(PatternKind kind, const QString &figureId);
bool contains(PatternKind kind, const QString &figureId);

} // namespace gatehouse::CountdownFigures
