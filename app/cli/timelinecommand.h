// SPDX-License-Identifier: MIT
#pragma once

#include "historycommand.h"

namespace gatehouse::cli {

// `timeline [--since T] [--until T] [--json]`: what happened to the
// connection in the range, as the history file keeps it (the console and
// `watch --history` write it): connections lost and back, restarts, master
// switches, keys or objects vanishing, readings stale and current again.
// Reads the file only; request.key is not used. Returns the exit code
// (ExitOk, ExitNothingDone when the file has no entry in the range).
int runTimeline(const HistoryRequest &request);

} // namespace gatehouse::cli
