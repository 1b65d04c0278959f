// SPDX-License-Identifier: MIT
#include "sidelist.h"

#include "theme.h"

#include <patterns/patternunit.h>

#include <QPainter>
#include <QPixmap>

namespace gatehouse {

QString SectionTally::toolTip() const
{
    if (attention == 0)
        return objects == 1 ? QStringLiteral("1 object, nothing needs attention")
                            : QStringLiteral("%1 objects, nothing needs attention").arg(objects);
    QStringList parts;
    for (auto it = byWords.cbegin(); it != byWords.cend(); ++it)
        parts << QStringLiteral("%1 %2").arg(it.value()).arg(it.key());
    return QStringLiteral("%1 of %2 need attention: %3")
        .arg(attention)
        .arg(objects)
        .arg(parts.join(QStringLiteral(", ")));
}

QHash<QString, SectionTally> tallySections(const Snapshot &snapshot)
{
    QHash<QString, SectionTally> out;
    const qint64 now = snapshot.server.timeMs;
    for (const ObjectState &s : snapshot.objects) {
        if (s.gone)
            continue;
        SectionTally &t = out[PatternUnit::of(s.object.kind).section().id];
        ++t.objects;
        const ObjectHealth h = objectHealth(s, now);
        if (h.severity < Severity::Warning)
            continue;
        ++t.attention;
        t.worst = std::max(t.worst, h.severity);
        // Words without their figures ("expired 9.3 min ago: …" counts as
        // one kind): the first words before a digit or a colon.
        QString kind = h.words.section(QLatin1Char(':'), 0, 0);
        if (!kind.isEmpty() && kind.front().isDigit())
            kind = kind.section(QLatin1Char(' '), 1);
        t.byWords[kind.isEmpty() ? h.id : kind] += 1;
    }
    return out;
}

QIcon badgeIcon(Severity severity, int count, const QPalette &palette, int size)
{
    const theme::Badge colors = theme::badge(severity, palette);
    const qreal dpr = 2.0; // sharp on high-DPI screens too
    QPixmap pixmap(QSize(size, size) * dpr);
    pixmap.setDevicePixelRatio(dpr);
    pixmap.fill(Qt::transparent);
    QPainter p(&pixmap);
    p.setRenderHint(QPainter::Antialiasing);
    p.setPen(QPen(colors.text, 1.2));
    p.setBrush(colors.fill);
    p.drawEllipse(QRectF(1, 1, size - 2, size - 2));
    if (count > 0) {
        QFont f = p.font();
        f.setBold(true);
        f.setPixelSize(count > 99 ? size / 3 : size / 2);
        p.setFont(f);
        p.drawText(QRectF(0, 0, size, size), Qt::AlignCenter,
                   count > 999 ? QStringLiteral("1k+") : QString::number(count));
    }
    return QIcon(pixmap);
}

} // namespace gatehouse
