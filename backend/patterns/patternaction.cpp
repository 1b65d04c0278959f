// SPDX-License-Identifier: MIT
#include "patternaction.h"

namespace gatehouse {

qint64 ActionRequest::integer(const QString &id, qint64 fallback) const
{
    bool ok = false;
    const qint64 v = inputs.value(id).toLongLong(&ok);
    return ok ? v : fallback;
}

} // namespace gatehouse
