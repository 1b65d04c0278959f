// SPDX-License-Identifier: MIT
#pragma once

#include "decoderesult.h"

#include <QByteArray>

namespace gatehouse {

class DecodeBudget;

// PHP's serialize() format (Laravel's queued commands): N; b: i: d: s: a:
// O: C: E: r: R:. Objects are shown by class name with their properties
// (a private one as "name (private Class)", a protected one as
// "name (protected)"); references by their number. Nothing is instantiated.
DecodeResult decodePhpSerialized(const QByteArray &input, DecodeBudget &budget);

} // namespace gatehouse
