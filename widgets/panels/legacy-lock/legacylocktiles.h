// SPDX-License-Identifier: MIT
#pragma once

#include <panels/panelregistry.h>

namespace gatehouse::legacylocktiles {

// Legacy locks past the expiry in their value and still set.
PanelRegistry::Tile expired();

} // namespace gatehouse::legacylocktiles
