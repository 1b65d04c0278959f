// SPDX-License-Identifier: MIT
#pragma once

#include "decoderesult.h"

#include <QByteArray>

namespace gatehouse {

class DecodeBudget;

// MessagePack (BullMQ packs a job's options so for its scripts): one value
// that takes the whole input; binary as bytes, the timestamp extension (-1)
// as an ISO time, other extensions as their type and bytes.
DecodeResult decodeMsgpack(const QByteArray &input, DecodeBudget &budget);

} // namespace gatehouse
