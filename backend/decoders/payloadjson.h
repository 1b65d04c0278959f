// SPDX-License-Identifier: MIT
#pragma once

#include "payloadvalue.h"

#include <QJsonValue>

namespace gatehouse {

// A decoded payload as JSON, for what reads payloads by path (job search's
// data.customerId = 4411) whatever their format: maps become objects (keys
// by their text), lists, tuples and sets arrays, numbers numbers where a
// double holds them exactly (else their text), bytes their Latin-1 text, a
// decoder's note its text. An object a pickle or PHP names becomes
// {"class": name, "args": [...]} with its state's entries beside them.
// Nesting past maxDepth is left out (null).
QJsonValue payloadJson(const PayloadValue &value, int maxDepth = 64);

} // namespace gatehouse
