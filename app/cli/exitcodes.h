// SPDX-License-Identifier: MIT
#pragma once

namespace gatehouse::cli {

// gatehouse-cli's exit codes; scripts rely on them (README, "Exit codes").
enum ExitCode {
    ExitOk = 0,
    ExitFailure = 1,     // could not connect, server error, TLS or auth failure
    ExitUsage = 2,       // bad flags, URL or arguments
    ExitNothingDone = 3, // an action was refused or found nothing to do
    ExitAlertFired = 4,  // watch --fail-on-alert: an alert rule fired during the run
};

} // namespace gatehouse::cli
