// SPDX-License-Identifier: MIT
#pragma once

#include "snapshot.h"

namespace gatehouse {

// The Overview's "needs attention" list: at most this many objects, each
// with a sparkline of at most this many points (one per pixel of its 80-pixel
// box).
constexpr int AttentionMaxItems = 50;
constexpr int AttentionSparkPoints = 80;

// The objects that most need an operator at nowMs (the snapshot's server
// time), as their patterns judge them (PatternUnit::attention): highest score
// first, ties by key, at most maxItems. Sparklines are left empty (the
// monitor fills them from its history).
QList<AttentionItem> rankAttention(const ObjectList &objects, qint64 nowMs,
                                   int maxItems = AttentionMaxItems);

} // namespace gatehouse
