// SPDX-License-Identifier: MIT
#include "panelregistry.h"

#include <patterns/patternregistry.h>
#include <patterns/patternunit.h>

namespace gatehouse {

const PanelRegistry &PanelRegistry::instance()
{
    static const PanelRegistry *s_registry = [] {
        auto *registry = new PanelRegistry;
        registerBuiltInPanels(*registry);
        registry->finish();
        return registry;
    }();
    return *s_registry;
}

void PanelRegistry::addPanel(PatternKind kind, const Panel &panel)
{
    for (PanelEntry &e : m_panels) {
        if (e.panel.id == panel.id) {
            e.kinds.insert(kind);
            return;
        }
    }
    m_panels.append({panel, {kind}});
}

int PanelRegistry::tileIndex(const Tile &tile)
{
    for (int i = 0; i < m_tiles.size(); ++i) {
        if (m_tiles.at(i).name == tile.name)
            return i;
    }
    m_tiles.append(tile);
    m_tileEntries.append(TileEntry());
    return int(m_tiles.size() - 1);
}

void PanelRegistry::addTile(PatternKind kind, const Tile &tile)
{
    m_tileEntries[tileIndex(tile)].kinds.insert(kind);
}

void PanelRegistry::addTile(const Section &section, const Tile &tile)
{
    m_tileEntries[tileIndex(tile)].sections.insert(section.id);
}

void PanelRegistry::addToQueueActivity(const Section &section)
{
    m_queueActivitySections.insert(section.id);
}

void PanelRegistry::setStrip(const Section &section, const StripDrawer &draw)
{
    m_strips.insert(section.id, draw);
}

const PanelRegistry::StripDrawer &PanelRegistry::strip(PatternKind kind) const
{
    static const StripDrawer none;
    const auto of = m_of.constFind(kind);
    return of != m_of.cend() ? of->strip : none;
}

void PanelRegistry::finish()
{
    for (const PatternUnit *unit : PatternRegistry::instance().units()) {
        const PatternKind kind = unit->kind();
        const QString section = unit->section().id;
        Of of;
        for (int i = 0; i < m_tileEntries.size(); ++i) {
            const TileEntry &e = m_tileEntries.at(i);
            if (e.kinds.contains(kind) || e.sections.contains(section))
                of.tiles.append(i);
        }
        of.queueActivity = m_queueActivitySections.contains(section);
        of.strip = m_strips.value(section);
        m_of.insert(kind, of);
    }
}

QList<ObjectPanel *> PanelRegistry::createPanels(const Section &section,
                                                 const ObjectPanel::Context &context,
                                                 QWidget *parent) const
{
    QSet<PatternKind> kinds;
    for (const PatternUnit *unit : PatternRegistry::instance().units()) {
        if (unit->section().id == section.id)
            kinds.insert(unit->kind());
    }
    QList<ObjectPanel *> panels;
    for (const PanelEntry &e : m_panels) {
        ObjectPanel::Context own = context;
        own.kinds = e.kinds & kinds;
        if (!own.kinds.isEmpty())
            panels.append(e.panel.create(own, parent));
    }
    return panels;
}

} // namespace gatehouse
