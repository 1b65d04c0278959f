// SPDX-License-Identifier: MIT
// What the console shows of each pattern beyond its unit's columns, items and
// charts: one registration line per pattern (or per shared section). A
// pattern's panels live in widgets/panels/<pattern>/; nothing else in
// widgets/ or app/ names the pattern.
#include "panelregistry.h"

#include "legacy-lock/legacylocktiles.h"
#include "limiter/limitertiles.h"
#include "limiter/windowstrip.h"
#include "lock/locktimelinepanel.h"
#include "queue/queuetiles.h"
#include "token-family/tokenlistpanel.h"

#include <patterns/legacy-lock/legacylockunit.h>
#include <patterns/lock/lockunit.h>
#include <patterns/redisson-lock/redissonlockunit.h>
#include <patterns/sections.h>
#include <patterns/token-family/tokenfamilyunit.h>

namespace gatehouse {

void registerBuiltInPanels(PanelRegistry &registry)
{
    registry.addTile(sections::queue(), queuetiles::stuck());
    registry.addTile(sections::queue(), queuetiles::dead());
    registry.addToQueueActivity(sections::queue());
    registry.addTile(sections::limiter(), limitertiles::busy());
    registry.setStrip(sections::limiter(), windowstrip::drawer());
    registry.addTile(LegacyLockUnit::Kind, legacylocktiles::expired());
    registry.addPanel(LockUnit::Kind, LockTimelinePanel::registration());
    registry.addPanel(LegacyLockUnit::Kind, LockTimelinePanel::registration());
    registry.addPanel(RedissonLockUnit::Kind, LockTimelinePanel::registration());
    registry.addPanel(TokenFamilyUnit::Kind, TokenListPanel::registration());
}

} // namespace gatehouse
