// SPDX-License-Identifier: MIT
#include "limitertiles.h"

#include <QCoreApplication>

namespace gatehouse::limitertiles {

PanelRegistry::Tile busy()
{
    return {
        QStringLiteral("tileLimited"),
        QCoreApplication::translate("OverviewTiles", "Limiters ≥ 80 %"),
        QCoreApplication::translate("OverviewTiles", "Limiters at or over 80 % of their limit."),
        [](const ObjectState &o, qint64) -> std::optional<PanelRegistry::TileAdd> {
            // As read: the occupancy the table and the limiter's chart
            // show. One limiter counts once; the fullest is the one a
            // click opens.
            const std::optional<double> occ = o.reading.occupancy();
            if (!occ || *occ < 0.8)
                return std::nullopt;
            return PanelRegistry::TileAdd{1, qint64(*occ * 100)};
        }};
}

} // namespace gatehouse::limitertiles
