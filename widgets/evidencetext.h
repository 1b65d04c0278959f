// SPDX-License-Identifier: MIT
#pragma once

#include <patterns/patternobject.h>

#include <QString>

namespace gatehouse {

// Autodetection's reasons as the console words them (README,
// "Autodetection"): the key cell's tooltip, the selected object's "Why:"
// line, the Unconfirmed page.

// The score against the threshold, then one line per reason,
// "structure: a ZSET shaped like … (+3)". Empty without evidence (an
// instance a profile rule names).
QString evidenceToolTip(const QList<Evidence> &evidence);
// "Why: reason; reason; against: reason (score 5, shown from 3)".
// Empty without evidence.
QString evidenceWhy(const QList<Evidence> &evidence);
// "+3", "-2", "0".
QString evidenceWeight(int weight);

} // namespace gatehouse
