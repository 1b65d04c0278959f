// SPDX-License-Identifier: MIT
#include "reading.h"

namespace gatehouse {

QString ageSourceId(AgeSource source)
{
    return source == AgeSource::ClaimsSet ? QStringLiteral("claims") : QStringLiteral("first-seen");
}

std::optional<double> Reading::occupancy() const
{
    if (!limit || *limit <= 0)
        return std::nullopt;
    return double(inWindow) / double(*limit);
}

QString readingStatusId(Reading::Status status)
{
    switch (status) {
    case Reading::Status::Ok:
        return QStringLiteral("ok");
    case Reading::Status::Missing:
        return QStringLiteral("missing");
    case Reading::Status::WrongType:
        return QStringLiteral("wrong-type");
    case Reading::Status::Error:
        return QStringLiteral("error");
    }
    return {};
}

} // namespace gatehouse
