// SPDX-License-Identifier: MIT
#pragma once

#include <objectpanel.h>

#include <patterns/patternkind.h>
#include <patterns/presentation.h>

#include <QHash>
#include <QList>
#include <QSet>
#include <QString>

#include <functional>
#include <optional>

class QCustomPlot;
class QPalette;

namespace gatehouse {

// The console's side of the patterns: what a pattern shows beyond the
// columns, items and charts its unit declares to the backend registry. A
// pattern (or a section, for what every pattern of it shares) registers its
// detail panels, its Overview tiles and whether its objects add to the
// Overview's queue activity here, in panels/builtinpanels.cpp; the window,
// the pages and the Overview ask the registry and never name a pattern or a
// section.
class PanelRegistry
{
public:
    // A detail panel: an id (the same panel registered for several patterns
    // is made once per page, serving all of them) and how to make one.
    struct Panel
    {
        QString id;
        std::function<ObjectPanel *(const ObjectPanel::Context &, QWidget *)> create;
    };

    // What one object adds to a tile: a count, and the value by which the
    // tile chooses its worst object (the one a click opens).
    struct TileAdd
    {
        qint64 count = 0;
        qint64 value = 0;
    };

    // An Overview tile: its object name, title and hint, and what an object
    // of a pattern it is registered for adds to it (nothing: nullopt). Only
    // objects read without error are asked.
    struct Tile
    {
        QString name;
        QString title;
        QString hint;
        std::function<std::optional<TileAdd>(const ObjectState &, qint64 serverNowMs)> count;
        // Whether it also counts down to the soonest deadline of its objects'
        // countdown figures (CountdownFigures: work lost for good when a key
        // expires), whatever they add to the count.
        bool countdown = false;
    };

    // What draws the strip of a chart of kind Chart::Kind::WindowStrip from
    // the selected object's reading, at server time nowMs.
    using StripDrawer = std::function<void(QCustomPlot *plot, const Reading &reading, qint64 nowMs,
                                           const QPalette &palette)>;

    // The registration of a panel class P (constructed from a context and a
    // parent), under id.
    template<typename P>
    static Panel panel(const QString &id)
    {
        return {id, [](const ObjectPanel::Context &context, QWidget *parent) -> ObjectPanel * {
                    return new P(context, parent);
                }};
    }

    // The registry of the built-in panels (registerBuiltInPanels).
    static const PanelRegistry &instance();

    void addPanel(PatternKind kind, const Panel &panel);
    void addTile(PatternKind kind, const Tile &tile);
    // For every pattern of the section, those registered later included.
    void addTile(const Section &section, const Tile &tile);
    void addToQueueActivity(const Section &section);
    void setStrip(const Section &section, const StripDrawer &draw);

    // The panels of the section's patterns, one per panel id, in the order
    // registered; each one's context names the patterns it serves here.
    QList<ObjectPanel *> createPanels(const Section &section, const ObjectPanel::Context &context,
                                      QWidget *parent) const;
    // Every tile, in the order registered, and those an object of kind adds to
    // (indexes into tiles()).
    const QList<Tile> &tiles() const { return m_tiles; }
    QList<int> tilesOf(PatternKind kind) const { return m_of.value(kind).tiles; }
    // Whether kind's objects add to the Overview's queue activity chart.
    bool inQueueActivity(PatternKind kind) const { return m_of.value(kind).queueActivity; }
    // What draws kind's window strip; empty when none is registered.
    const StripDrawer &strip(PatternKind kind) const;

private:
    struct PanelEntry
    {
        Panel panel;
        QSet<PatternKind> kinds;
    };
    struct TileEntry
    {
        QSet<PatternKind> kinds;
        QSet<QString> sections;
    };
    struct Of
    {
        QList<int> tiles;
        bool queueActivity = false;
        StripDrawer strip;
    };

    int tileIndex(const Tile &tile);
    // Resolves sections to the registered patterns' kinds, once, so that
    // lookups from any thread read a finished table.
    void finish();

    QList<PanelEntry> m_panels;
    QList<Tile> m_tiles;
    QList<TileEntry> m_tileEntries;
    QSet<QString> m_queueActivitySections;
    QHash<QString, StripDrawer> m_strips; // by section id
    QHash<PatternKind, Of> m_of;
};

// Registers the built-in panels, tiles and chart memberships
// (panels/builtinpanels.cpp): one line per pattern or shared section.
void registerBuiltInPanels(PanelRegistry &registry);

} // namespace gatehouse
