// SPDX-License-Identifier: MIT
#pragma once

#include "decoderesult.h"

#include <QByteArray>

namespace gatehouse {

class DecodeBudget;

// JSON (any value, objects in their own order). A string holding a PHP
// serialized object or array (a Laravel job's "command") is shown decoded
// too, and "PHP serialize" is added to the result's inner decoders.
DecodeResult decodeJson(const QByteArray &input, DecodeBudget &budget);

} // namespace gatehouse
