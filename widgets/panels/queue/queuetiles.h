// SPDX-License-Identifier: MIT
#pragma once

#include <panels/panelregistry.h>

namespace gatehouse::queuetiles {

// Jobs no worker will finish without an operator (a queue's stuck figure).
PanelRegistry::Tile stuck();
// Jobs in dead-letter lists (dead, failed).
PanelRegistry::Tile dead();

} // namespace gatehouse::queuetiles
