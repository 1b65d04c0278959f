// SPDX-License-Identifier: MIT
#include "overviewtiles.h"

#include "overviewpage.h"
#include "theme.h"

#include <panels/panelregistry.h>

#include <patterns/countdownfigures.h>
#include <patterns/patternregistry.h>
#include <patterns/patternunit.h>

#include <QHBoxLayout>
#include <QPainter>

namespace gatehouse {

namespace {

// A trend longer than this says nothing the charts do not; bounded memory.
constexpr qint64 TrendSpanMs = 10 * 60 * 1000;
constexpr int TrendMaxPoints = 600;

// Adds count to tile, keeping the object with the largest value as the one
// a click opens (ties: the first in key order, so the choice is stable).
void add(TileCounts::Tile &tile, qint64 count, qint64 value, const ObjectState &o)
{
    tile.count += count;
    if (value > tile.worstValue || (value == tile.worstValue && o.object->key < tile.worst)) {
        tile.worstValue = value;
        tile.worst = o.object->key;
        tile.section = patternSection(o.object->kind);
    }
}

// The soonest deadline of o's countdown figures into tile (figures: the
// countdown figures of each kind met, made once per count).
void addDeadline(TileCounts::Tile &tile, const ObjectState &o, qint64 now,
                 QHash<QString, QList<AlertFigure>> &figures)
{
    auto it = figures.find(o.object->kind.id());
    if (it == figures.end()) {
        QList<AlertFigure> countdowns = PatternUnit::of(o.object->kind).alertFigures();
        const PatternKind kind = o.object->kind;
        countdowns.removeIf([kind](const AlertFigure &f) {
            return !f.value || !CountdownFigures::contains(kind, f.id);
        });
        it = figures.insert(o.object->kind.id(), countdowns);
    }
    for (const AlertFigure &f : std::as_const(*it)) {
        const std::optional<double> left = f.value(o, now);
        if (!left || *left < 0 || *left >= double(Reading::Forever))
            continue;
        const qint64 at = now + qint64(*left);
        if (tile.deadlineAtMs < 0 || at < tile.deadlineAtMs)
            tile.deadlineAtMs = at;
        if (o.stale)
            tile.deadlineKnown = false;
    }
}

} // namespace

TileCounts countTiles(const Snapshot &snapshot)
{
    const PanelRegistry &registry = PanelRegistry::instance();
    TileCounts t;
    t.tiles.resize(registry.tiles().size());
    const qint64 now = snapshot.server.timeMs;
    QHash<QString, QList<AlertFigure>> countdowns;
    for (const ObjectState &o : snapshot.objects) {
        if (o.gone || !o.reading.isOk())
            continue;
        for (const int i : registry.tilesOf(o.object->kind)) {
            const PanelRegistry::Tile &tile = registry.tiles().at(i);
            if (tile.countdown)
                addDeadline(t.tiles[i], o, now, countdowns);
            if (const auto adds = tile.count(o, now))
                add(t.tiles[i], adds->count, adds->value, o);
        }
    }
    return t;
}

OverviewTile::OverviewTile(const QString &title, const QString &hint, QWidget *parent)
    : QAbstractButton(parent)
    , m_title(title)
    , m_hint(hint)
{
    setCursor(Qt::PointingHandCursor);
    setFocusPolicy(Qt::StrongFocus);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    setToolTip(hint);
    setAccessibleName(title);
}

void OverviewTile::setReading(const TileCounts::Tile &tile, qint64 serverNowMs)
{
    m_tile = tile;
    m_trend.append(QPointF(double(serverNowMs), double(tile.count)));
    while (!m_trend.isEmpty()
           && (m_trend.size() > TrendMaxPoints
               || m_trend.first().x() < double(serverNowMs - TrendSpanMs)))
        m_trend.removeFirst();
    setEnabled(tile.count > 0);
    setToolTip(tile.count > 0 ? tr("%1\nClick to open %2.").arg(m_hint, printableBytes(tile.worst))
                              : m_hint);
    setAccessibleDescription(QString::number(tile.count));
    QWidget::update();
}

void OverviewTile::setNow(qint64 serverNowMs, bool offline)
{
    m_nowMs = serverNowMs;
    m_offline = offline;
    if (m_tile.deadlineAtMs >= 0)
        QWidget::update();
}

QString OverviewTile::countdownText() const
{
    if (m_tile.deadlineAtMs < 0)
        return QString();
    if (m_offline || !m_tile.deadlineKnown)
        return tr("lost in: unknown (no reading now)");
    const qint64 left = std::max<qint64>(0, m_tile.deadlineAtMs - m_nowMs);
    return left >= 120000 ? tr("lost in %1 min").arg(left / 60000)
                          : tr("lost in %1 s").arg(left / 1000);
}

QSize OverviewTile::sizeHint() const
{
    const QFontMetrics fm(font());
    QFont big = font();
    big.setPointSizeF(big.pointSizeF() * 2);
    const QFontMetrics bm(big);
    const int w = std::max(fm.horizontalAdvance(m_title),
                           bm.horizontalAdvance(QStringLiteral("0000")) + 90);
    return {w + 20, fm.height() + bm.height() + 20};
}

void OverviewTile::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const QPalette &pal = palette();
    const bool alarm = m_tile.count > 0;
    const QRectF box = QRectF(rect()).adjusted(1, 1, -1, -1);
    p.setPen(QPen(hasFocus() ? pal.color(QPalette::Highlight) : pal.color(QPalette::Mid),
                  hasFocus() ? 2 : 1));
    p.setBrush(pal.color(isDown() ? QPalette::Midlight : QPalette::Base));
    p.drawRoundedRect(box, 4, 4);
    // Text in the palette's text colours (both styles keep their contrast);
    // a tile that counts something says so with its weight, not a colour.
    const QFontMetrics fm(font());
    // A deadline (work lost for good when a key expires) counts down in red
    // at the right of the title, the one colour a tile uses.
    const QString countdown = countdownText();
    int titleWidth = width() - 20;
    if (!countdown.isEmpty()) {
        QFont bold = font();
        bold.setBold(true);
        const QFontMetrics cm(bold);
        const int w = std::min(cm.horizontalAdvance(countdown) + 4, (width() - 20) * 2 / 3);
        p.setFont(bold);
        p.setPen(theme::limit(pal));
        p.drawText(QRectF(width() - 10 - w, 6, w, fm.height()), Qt::AlignRight | Qt::AlignVCenter,
                   cm.elidedText(countdown, Qt::ElideRight, w));
        p.setFont(font());
        titleWidth -= w + 8;
    }
    p.setPen(pal.color(QPalette::Active, QPalette::WindowText));
    p.drawText(QRectF(10, 6, titleWidth, fm.height()), Qt::AlignLeft | Qt::AlignVCenter,
               fm.elidedText(m_title, Qt::ElideRight, titleWidth));
    QFont big = font();
    big.setPointSizeF(big.pointSizeF() * 2);
    big.setBold(alarm);
    p.setFont(big);
    const QFontMetrics bm(big);
    const QRectF numberBox(10, 8 + fm.height(), width() - 110, bm.height());
    p.drawText(numberBox, Qt::AlignLeft | Qt::AlignVCenter, QString::number(m_tile.count));
    const QPolygonF line = sparklinePolygon(m_trend);
    if (line.size() >= 2) {
        p.setPen(QPen(pal.color(QPalette::Active, QPalette::Text), 1.2));
        p.drawPolyline(line.translated(width() - 90, numberBox.center().y() - 10));
    }
}

OverviewTiles::OverviewTiles(QWidget *parent)
    : QWidget(parent)
{
    setObjectName(QStringLiteral("overviewTiles"));
    auto *row = new QHBoxLayout(this);
    row->setContentsMargins(0, 0, 0, 0);
    for (const PanelRegistry::Tile &tile : PanelRegistry::instance().tiles())
        m_tiles.append(add(tile.name, tile.title, tile.hint));
}

OverviewTile *OverviewTiles::tile(const QString &name) const
{
    for (OverviewTile *tile : m_tiles) {
        if (tile->objectName() == name)
            return tile;
    }
    return nullptr;
}

OverviewTile *OverviewTiles::add(const QString &name, const QString &title, const QString &hint)
{
    auto *tile = new OverviewTile(title, hint, this);
    tile->setObjectName(name);
    layout()->addWidget(tile);
    connect(tile, &QAbstractButton::clicked, this, [this, tile] {
        if (tile->count() > 0 && !tile->tile().section.isEmpty())
            Q_EMIT openRequested(tile->tile().section, tile->tile().worst);
    });
    return tile;
}

void OverviewTiles::update(const Snapshot &snapshot, bool connected)
{
    setVisible(connected);
    // One point per reading: the window's timer repaints more often.
    if (!connected || snapshot.sequence == m_lastSequence)
        return;
    m_lastSequence = snapshot.sequence;
    const TileCounts t = countTiles(snapshot);
    const qint64 now = snapshot.server.timeMs;
    for (int i = 0; i < m_tiles.size() && i < t.tiles.size(); ++i)
        m_tiles.at(i)->setReading(t.tiles.at(i), now);
}

void OverviewTiles::tick(qint64 serverNowMs, bool offline)
{
    for (OverviewTile *tile : std::as_const(m_tiles))
        tile->setNow(serverNowMs, offline);
}

} // namespace gatehouse
