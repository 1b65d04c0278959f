// SPDX-License-Identifier: MIT
#pragma once

#include <patterns/presentation.h>
#include <patterns/reading.h>

#include <QList>

namespace gatehouse {

// An object read again under budgeted polling, against what its last
// reading projects to the new reading's time (Reading::at): `projected` is
// that projection, `reading` the new one, figures its pattern's
// (PatternUnit::figures()). A duration figure (a TTL, an age) read again
// lands a few ms off its projection (the reply is as of when the server ran
// the command, the reading's time is the probe's send time plus the
// estimated clock offset): within durationSlackMs it is the same.

// Something wrote the object: its status, or a figure beyond the slack (a
// figure unknown in one reading and known in the other is not counted).
// Budgeted polling then reads it every tick for a while.
bool rereadWritten(const QList<Figure> &figures, const Reading &projected, const Reading &reading,
                   double durationSlackMs);

// The reading only confirms the last one: every figure near where it was
// (both unknown, or within the slack), moving the same way (the same step a
// millisecond on: a countdown within the slack of its end is not a flat 0)
// and near there an hour on (a figure that moves otherwise than its motion
// shows in a millisecond). A history of motions would record nothing new
// (HistoryStore: such re-reads are not listed to it).
bool rereadConfirms(const QList<Figure> &figures, const Reading &projected, const Reading &reading,
                    double durationSlackMs);

} // namespace gatehouse
