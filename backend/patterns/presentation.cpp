// SPDX-License-Identifier: MIT
#include "presentation.h"

#include <redis/redisvalue.h>

namespace gatehouse {

QString formatMs(qint64 ms)
{
    if (ms < 0)
        return QStringLiteral("–");
    if (ms < 1000)
        return QStringLiteral("%1 ms").arg(ms);
    if (ms < 120000)
        return QStringLiteral("%1 s").arg(double(ms) / 1000.0, 0, 'f', 1);
    return QStringLiteral("%1 min").arg(double(ms) / 60000.0, 0, 'f', 1);
}

Column Column::key(const QString &header)
{
    Column c;
    c.header = header;
    c.text = [](const ObjectState &s, qint64) -> QString {
        return printableBytes(s.object.key);
    };
    c.sort = [](const ObjectState &s, qint64) {
        return QVariant(QString::fromUtf8(s.object.key));
    };
    return c;
}

Column Column::pattern()
{
    Column c;
    c.header = QStringLiteral("Pattern");
    c.text = [](const ObjectState &s, qint64) -> QString {
        return s.object.kind.id();
    };
    return c;
}

Column Column::status()
{
    Column c;
    c.header = QStringLiteral("Status");
    c.text = [](const ObjectState &s, qint64) -> QString {
        return s.gone ? QStringLiteral("gone") : readingStatusId(s.reading.status);
    };
    return c;
}

} // namespace gatehouse
