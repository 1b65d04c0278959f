// SPDX-License-Identifier: MIT
#include "behaviour.h"

namespace gatehouse {

std::optional<Evidence> BehaviourTrack::verdict(const QString &title) const
{
    if (against >= MinAgainst && against > 2 * confirms)
        return Evidence{Evidence::Kind::Behaviour, AgainstWeight,
                        QStringLiteral("watched: %1, not what a %2 does (%3 of %4 readings)")
                            .arg(againstReason, title)
                            .arg(std::min(against, steps))
                            .arg(steps)};
    if (confirms > 0 && confirms >= against)
        return Evidence{Evidence::Kind::Behaviour, ConfirmWeight,
                        QStringLiteral("watched: %1, as a %2 does (%3 of %4 readings)")
                            .arg(confirmReason, title)
                            .arg(confirms)
                            .arg(steps)};
    return std::nullopt;
}

QList<Evidence> withBehaviour(const QList<Evidence> &evidence,
                              const std::optional<Evidence> &verdict)
{
    QList<Evidence> out;
    out.reserve(evidence.size() + 1);
    for (const Evidence &e : evidence) {
        if (e.kind != Evidence::Kind::Behaviour)
            out.append(e);
    }
    if (verdict)
        out.append(*verdict);
    return out;
}

} // namespace gatehouse
