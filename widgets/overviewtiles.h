// SPDX-License-Identifier: MIT
#pragma once

#include <monitor/snapshot.h>

#include <QAbstractButton>
#include <QList>
#include <QPointF>
#include <QWidget>

namespace gatehouse {

// What the Overview's tiles count in a snapshot, at its server time: the
// figures an operator acts on first, each with the object that shows it worst
// (the one a click opens) and its page.
struct TileCounts
{
    struct Tile
    {
        qint64 count = 0;
        QString section;  // the page that shows them; empty when count is 0
        QByteArray worst; // the object a click selects
        qint64 worstValue = -1;
        // The soonest deadline among them (AlertFigure::countdown: a dead
        // Sidekiq process's work): the server time it is lost for good, -1
        // when none; deadlineKnown false when the object with one is stale
        // (its time left cannot be known now).
        qint64 deadlineAtMs = -1;
        bool deadlineKnown = true;
    };
    QList<Tile> tiles; // as PanelRegistry::tiles()
};
TileCounts countTiles(const Snapshot &snapshot);

// One clickable tile: a title, its count, and a sparkline of the count over
// the snapshots seen (the last ten minutes at most).
class OverviewTile : public QAbstractButton
{
    Q_OBJECT
public:
    OverviewTile(const QString &title, const QString &hint, QWidget *parent = nullptr);
    void setReading(const TileCounts::Tile &tile, qint64 serverNowMs);
    // The clock the countdown counts with (server ms); offline: unknown.
    void setNow(qint64 serverNowMs, bool offline);
    // "lost in 38 s", "lost in: unknown (no reading now)"; empty without a deadline.
    QString countdownText() const;
    qint64 count() const { return m_tile.count; }
    const TileCounts::Tile &tile() const { return m_tile; }
    const QList<QPointF> &trend() const { return m_trend; }
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override { return sizeHint(); }

protected:
    void paintEvent(QPaintEvent *event) override;

private:
    QString m_title;
    QString m_hint;
    TileCounts::Tile m_tile;
    QList<QPointF> m_trend; // x: server ms, y: count
    qint64 m_nowMs = 0;
    bool m_offline = false;
};

// The row of tiles; a click on one opens its page on the worst object.
class OverviewTiles : public QWidget
{
    Q_OBJECT
public:
    explicit OverviewTiles(QWidget *parent = nullptr);
    void update(const Snapshot &snapshot, bool connected);
    // The tile of that object name (PanelRegistry::Tile::name), or nullptr.
    OverviewTile *tile(const QString &name) const;
    // Every repaint of the window's timer: the countdowns move with the clock.
    void tick(qint64 serverNowMs, bool offline);

Q_SIGNALS:
    void openRequested(const QString &section, const QByteArray &key);

private:
    OverviewTile *add(const QString &name, const QString &title, const QString &hint);
    QList<OverviewTile *> m_tiles; // as PanelRegistry::tiles()
    quint64 m_lastSequence = 0;
};

} // namespace gatehouse
