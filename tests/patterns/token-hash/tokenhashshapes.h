// SPDX-License-Identifier: MIT
#pragma once

#include "keyshapes.h"

namespace gatehouse::test {

// A hash of tokens on a server with per-field expiry: its two sampled fields
// each expire on their own (HPTTL).
inline KeyShape tokenHashShape(const QByteArray &key)
{
    KeyShape s = sizedShape(key, "hash", 3);
    s.sampleFields = {"x7Kp2mQ9zA", "user:1", "0aZ9bY8cX7", "user:2"};
    s.fieldTtlsMs = {240000, 590000};
    return s;
}

} // namespace gatehouse::test
