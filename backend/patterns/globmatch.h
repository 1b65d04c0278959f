// SPDX-License-Identifier: MIT
#pragma once

#include <QByteArray>

namespace gatehouse {

// Redis's glob (as SCAN MATCH and PSUBSCRIBE use it), binary safe:
// * any run, ? one byte, [abc] [a-z] [^a] classes, \x a literal x.
bool globMatch(const QByteArray &pattern, const QByteArray &text);

} // namespace gatehouse
