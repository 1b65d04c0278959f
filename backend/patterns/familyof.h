// SPDX-License-Identifier: MIT
#pragma once

#include <QByteArray>

namespace gatehouse {

// familyOf(key) appended to out (keyclassifier.h): discovery names the
// family of every key scanned into one buffer it reuses, and allocates a
// name only for a family it has not met yet.
void appendFamilyOf(QByteArray &out, const QByteArray &key);

} // namespace gatehouse
