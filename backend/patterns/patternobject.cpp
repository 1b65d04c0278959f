// SPDX-License-Identifier: MIT
#include "patternobject.h"

namespace gatehouse {

QList<QByteArray> PatternObject::keys() const
{
    QList<QByteArray> all;
    if (kind != PatternKind::TokenFamily)
        all.append(key);
    for (const QByteArray &k : related) {
        if (!k.isEmpty())
            all.append(k);
    }
    all.append(members);
    return all;
}

} // namespace gatehouse
