// SPDX-License-Identifier: MIT
#pragma once

#include "decoderesult.h"

#include <QByteArray>

namespace gatehouse {

class DecodeBudget;

// A Python pickle (protocols 0 to 5: RQ's job data, Celery's pickle
// serializer, huey, arq) read by a disassembler that never executes
// anything: the opcodes build a tree of dicts, lists, tuples, sets,
// strings, bytes and numbers; a global (a class or function) is shown by
// its dotted name only, a call of it (REDUCE, NEWOBJ, BUILD) as
// name(arguments) {state}, and datetime's packed bytes as the time they
// hold. What it cannot show (out-of-band buffers, persistent ids, a stream
// that breaks off or an unknown opcode) is refused with a sentence.
DecodeResult decodePickle(const QByteArray &input, DecodeBudget &budget);

} // namespace gatehouse
