// SPDX-License-Identifier: MIT
#pragma once

#include "presentation.h"

namespace gatehouse::sections {

// The sections several patterns share. A pattern with a section of its own
// declares it in its folder.
inline Section limiter()
{
    return {QStringLiteral("limiter"), QStringLiteral("limiters"), QStringLiteral("Limiters"),
            QStringLiteral("limiter")};
}
inline Section lock()
{
    return {QStringLiteral("lock"), QStringLiteral("locks"), QStringLiteral("Locks"),
            QStringLiteral("lock")};
}
inline Section token()
{
    return {QStringLiteral("token"), QStringLiteral("tokens"), QStringLiteral("Tokens"),
            QStringLiteral("token family")};
}
inline Section queue()
{
    return {QStringLiteral("queue"), QStringLiteral("queues"), QStringLiteral("Queues"),
            QStringLiteral("queue")};
}

} // namespace gatehouse::sections
