// SPDX-License-Identifier: MIT
#pragma once

#include <panels/panelregistry.h>

namespace gatehouse::windowstrip {

// A limiter's window strip: one point per request in its window and per
// retry slot after now (LimiterData's times), or, for a counter that keeps
// no request times, what it counts and when it resets or frees a permit.
PanelRegistry::StripDrawer drawer();

} // namespace gatehouse::windowstrip
