// SPDX-License-Identifier: MIT
#pragma once

#include "decoderesult.h"

#include <QByteArray>

namespace gatehouse {

class DecodeBudget;

// Protocol Buffers without a schema (asynq's TaskMessage, gRPC bodies), as
// `protoc --decode_raw` reads them: each field by number and wire type; a
// length-delimited field as a string when it is printable UTF-8, else as a
// nested message when it parses as one, else as bytes. Groups (wire types 3
// and 4, deprecated) are not read: such input is refused.
DecodeResult decodeProtobuf(const QByteArray &input, DecodeBudget &budget);

} // namespace gatehouse
