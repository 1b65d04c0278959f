// SPDX-License-Identifier: MIT
#include "patternobject.h"

#include "patternunit.h"

namespace gatehouse {

QList<QByteArray> PatternObject::keys() const
{
    QList<QByteArray> all;
    if (!PatternUnit::of(kind).keyType().isEmpty()) // a token family's key is a prefix
        all.append(key);
    for (const QByteArray &k : related) {
        if (!k.isEmpty())
            all.append(k);
    }
    all.append(members);
    return all;
}

} // namespace gatehouse
