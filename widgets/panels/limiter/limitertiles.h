// SPDX-License-Identifier: MIT
#pragma once

#include <panels/panelregistry.h>

namespace gatehouse::limitertiles {

// Limiters at or over 80 % of their limit.
PanelRegistry::Tile busy();

} // namespace gatehouse::limitertiles
