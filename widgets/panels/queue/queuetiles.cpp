// SPDX-License-Identifier: MIT
#include "queuetiles.h"

#include <QCoreApplication>

namespace gatehouse::queuetiles {

PanelRegistry::Tile stuck()
{
    PanelRegistry::Tile tile{
        QStringLiteral("tileStuck"), QCoreApplication::translate("OverviewTiles", "Stuck jobs"),
        QCoreApplication::translate("OverviewTiles",
                                    "Jobs no worker will finish without an operator."),
        [](const ObjectState &o, qint64) -> std::optional<PanelRegistry::TileAdd> {
            if (o.reading.queue().stuck <= 0)
                return std::nullopt;
            return PanelRegistry::TileAdd{o.reading.queue().stuck, o.reading.queue().stuck};
        }};
    // A dead worker's work, lost when its key expires, counts down here.
    tile.countdown = true;
    return tile;
}

PanelRegistry::Tile dead()
{
    return {
        QStringLiteral("tileDead"), QCoreApplication::translate("OverviewTiles", "Dead jobs"),
        QCoreApplication::translate("OverviewTiles", "Jobs in dead-letter lists (dead, failed)."),
        [](const ObjectState &o, qint64) -> std::optional<PanelRegistry::TileAdd> {
            if (o.reading.queue().deadLength <= 0)
                return std::nullopt;
            return PanelRegistry::TileAdd{o.reading.queue().deadLength,
                                          o.reading.queue().deadLength};
        }};
}

} // namespace gatehouse::queuetiles
