// SPDX-License-Identifier: MIT
#include "sidelist.h"

#include "theme.h"

#include <patterns/patternunit.h>

#include <QPainter>
#include <QPixmap>

#include <algorithm>

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

namespace {

// Words without their figures ("expired 9.3 min ago: …" counts as one
// kind): the first words before a digit or a colon.
QString kindOf(const ObjectHealth &h)
{
    QString kind = h.words.section(QLatin1Char(':'), 0, 0);
    if (!kind.isEmpty() && kind.front().isDigit())
        kind = kind.section(QLatin1Char(' '), 1);
    return kind.isEmpty() ? h.id : kind;
}

} // namespace

QHash<QString, SectionTally> SectionTallier::tally(const std::shared_ptr<const Snapshot> &snapshot)
{
    QHash<QString, SectionTally> out;
    if (!snapshot)
        return out;
    const qint64 now = snapshot->server.timeMs;
    const ObjectList &objects = snapshot->objects;
    if (m_kinds.size() > 1000) { // words with figures left in them: start afresh
        m_kinds.clear();
        m_judged.clear();
    }
    QList<Judged> judged(objects.size());
    QList<SectionTally> tallies(m_sections.size());
    for (qsizetype i = 0; i < objects.size(); ++i) {
        const ObjectState &s = objects.at(i);
        Judged &j = judged[i];
        if (i < m_judged.size() && m_judged.at(i).state == &s && !m_judged.at(i).timed) {
            j = m_judged.at(i);
        } else {
            j.state = &s;
            if (!s.gone) {
                auto it = m_sectionOf.constFind(s.object->kind);
                if (it == m_sectionOf.cend()) {
                    const QString id = PatternUnit::of(s.object->kind).section().id;
                    qsizetype at = m_sections.indexOf(id);
                    if (at < 0) {
                        at = m_sections.size();
                        m_sections.append(id);
                        tallies.append(SectionTally());
                    }
                    it = m_sectionOf.insert(s.object->kind, int(at));
                }
                j.section = qint16(*it);
                const ObjectHealth h = objectHealth(s, now);
                j.severity = h.severity;
                if (h.severity >= Severity::Warning) {
                    j.timed = std::any_of(h.words.cbegin(), h.words.cend(),
                                          [](QChar c) { return c.isDigit(); });
                    const QString kind = kindOf(h);
                    qsizetype k = m_kinds.indexOf(kind);
                    if (k < 0) {
                        k = m_kinds.size();
                        m_kinds.append(kind);
                    }
                    j.kind = int(k);
                }
            }
        }
        if (j.section < 0)
            continue;
        SectionTally &t = tallies[j.section];
        ++t.objects;
        if (j.severity < Severity::Warning)
            continue;
        ++t.attention;
        t.worst = std::max(t.worst, j.severity);
        t.byWords[m_kinds.at(j.kind)] += 1;
    }
    m_judged.swap(judged);
    m_last = snapshot;
    for (qsizetype i = 0; i < m_sections.size(); ++i) {
        if (tallies.at(i).objects > 0)
            out.insert(m_sections.at(i), tallies.at(i));
    }
    return out;
}

QHash<QString, SectionTally> tallySections(const Snapshot &snapshot)
{
    QHash<QString, SectionTally> out;
    const qint64 now = snapshot.server.timeMs;
    for (const ObjectState &s : snapshot.objects) {
        if (s.gone)
            continue;
        SectionTally &t = out[PatternUnit::of(s.object->kind).section().id];
        ++t.objects;
        const ObjectHealth h = objectHealth(s, now);
        if (h.severity < Severity::Warning)
            continue;
        ++t.attention;
        t.worst = std::max(t.worst, h.severity);
        t.byWords[kindOf(h)] += 1;
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
