// SPDX-License-Identifier: MIT
#include "legacylocktiles.h"

#include <QCoreApplication>
#include <patterns/lock/lockdata.h>

namespace gatehouse::legacylocktiles {

PanelRegistry::Tile expired()
{
    return {QStringLiteral("tileExpired"),
            QCoreApplication::translate("OverviewTiles", "Expired locks"),
            QCoreApplication::translate("OverviewTiles",
                                        "Legacy locks past their expiry and still set: the holder "
                                        "crashed, the next client may take it over."),
            [](const ObjectState &o, qint64 nowMs) -> std::optional<PanelRegistry::TileAdd> {
                // Past the expiry in its value and still set: the holder died
                // without deleting it; the longest expired first.
                const qint64 expiresAtMs = LockData::of(o.reading).expiresAtMs;
                if (expiresAtMs <= 0 || expiresAtMs >= nowMs)
                    return std::nullopt;
                return PanelRegistry::TileAdd{1, nowMs - expiresAtMs};
            }};
}

} // namespace gatehouse::legacylocktiles
