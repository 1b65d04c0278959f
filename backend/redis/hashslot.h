// SPDX-License-Identifier: MIT
#pragma once

#include <QByteArray>

namespace gatehouse {

// The Redis Cluster hash slot of a key (CRC16/XMODEM mod 16384), honouring
// hash tags: only the part between the first '{' and the next '}' counts when
// it is non-empty. Cluster routing and key grouping use it.
quint16 keyHashSlot(const QByteArray &key);
// That hash tag (the part between braces), or empty when the key has none.
QByteArray keyHashTag(const QByteArray &key);

} // namespace gatehouse
