// SPDX-License-Identifier: MIT
#include "windowstrip.h"

#include <theme.h>

#include <patterns/limiterdata.h>

#include <qcustomplot.h>

#include <QCoreApplication>

#include <algorithm>
#include <climits>

namespace gatehouse::windowstrip {

namespace {

void draw(QCustomPlot *strip, const Reading &r, qint64 nowMs, const QPalette &palette)
{
    const LimiterData &d = LimiterData::of(r);
    // One point per request in the window, one per retry slot, around now.
    while (strip->graphCount() < 2) {
        QCPGraph *g = strip->addGraph();
        g->setLineStyle(QCPGraph::lsNone);
        g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc,
                                           theme::series(strip->graphCount() - 1, palette), 6));
    }
    strip->graph(0)->setName(QCoreApplication::translate("WindowStrip", "requests"));
    strip->graph(1)->setName(QCoreApplication::translate("WindowStrip", "retry slots"));
    QVector<double> wx, wy, rx, ry;
    for (qint64 t : d.windowTimes) {
        // Requests are in the past: a reading a little ahead of the
        // snapshot's clock must not put them after the now line.
        wx.append(std::min(0.0, double(t - nowMs) / 1000.0));
        wy.append(1.0);
    }
    for (qint64 t : d.retryTimes) {
        rx.append(double(t - nowMs) / 1000.0);
        ry.append(1.0);
    }
    strip->graph(0)->setData(wx, wy, true);
    strip->graph(1)->setData(rx, ry, true);
    strip->clearItems();
    auto *nowLine = new QCPItemStraightLine(strip);
    nowLine->point1->setCoords(0, 0);
    nowLine->point2->setCoords(0, 1);
    nowLine->setPen(QPen(palette.color(QPalette::Text), 1, Qt::DashLine));
    auto *nowLabel = new QCPItemText(strip);
    nowLabel->position->setCoords(0, 1.85);
    nowLabel->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    nowLabel->setText(QCoreApplication::translate("WindowStrip", "now"));
    nowLabel->setColor(palette.color(QPalette::Text));
    nowLabel->setPadding(QMargins(3, 0, 0, 0));
    const double window = d.windowMs > 0 ? double(d.windowMs) / 1000.0 : 10.0;
    double future = rx.isEmpty() ? window * 0.25 : std::max(window * 0.25, rx.last() + 0.5);
    // A counter (fixed window) or a permit store (Redisson) keeps no
    // request times: the strip says what it counts instead of staying
    // empty, and where the window resets or the next permit frees.
    if (d.windowTimes.isEmpty() && r.inWindow > 0) {
        auto *counted = new QCPItemText(strip);
        counted->position->setCoords(-window / 2, 1.0);
        counted->setText(QCoreApplication::translate(
            "WindowStrip", "%n counted in this window (no request times are kept)", nullptr,
            int(std::min<qint64>(r.inWindow, INT_MAX))));
        counted->setColor(theme::series(0, palette));
    }
    const qint64 next
        = d.resetMs > 0 ? r.countdownAt(d.resetMs, nowMs) : r.countdownAt(d.retryHorizonMs, nowMs);
    if (rx.isEmpty() && next > 0) {
        const double at = double(next) / 1000.0;
        future = std::max(future, at + 0.5);
        auto *edge = new QCPItemStraightLine(strip);
        edge->point1->setCoords(at, 0);
        edge->point2->setCoords(at, 1);
        edge->setPen(QPen(theme::series(1, palette), 1, Qt::DashLine));
        auto *edgeLabel = new QCPItemText(strip);
        edgeLabel->position->setCoords(at, 0.25);
        edgeLabel->setPositionAlignment(Qt::AlignRight | Qt::AlignVCenter);
        edgeLabel->setText(
            d.resetMs > 0
                ? QCoreApplication::translate("WindowStrip", "resets in %1").arg(formatMs(next))
                : QCoreApplication::translate("WindowStrip", "next permit in %1")
                      .arg(formatMs(next)));
        edgeLabel->setColor(theme::series(1, palette));
        edgeLabel->setPadding(QMargins(0, 0, 4, 0));
    }
    strip->xAxis->setRange(-window, future);
    strip->yAxis->setRange(0, 2);
    strip->yAxis->setTicks(false);
}

} // namespace

PanelRegistry::StripDrawer drawer()
{
    return draw;
}

} // namespace gatehouse::windowstrip
