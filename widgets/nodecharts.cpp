// SPDX-License-Identifier: MIT
#include "nodecharts.h"

#include "chartscale.h"
#include "chartstyle.h"
#include "theme.h"

#include <QEvent>
#include <QGridLayout>
#include <QLabel>
#include <QVBoxLayout>

#include <algorithm>

#include <qcustomplot.h>

namespace gatehouse {

namespace {

// Four colours, then the same four dashed, dotted, dash-dotted: 16 lines
// told apart.
QPen nodePen(int i, const QPalette &palette)
{
    static const Qt::PenStyle styles[]
        = {Qt::SolidLine, Qt::DashLine, Qt::DotLine, Qt::DashDotLine};
    QPen pen(theme::series(i, palette), 1.5);
    pen.setStyle(styles[(i / 4) % 4]);
    return pen;
}

} // namespace

NodeCharts::NodeCharts(QWidget *parent)
    : QWidget(parent)
    , m_note(new QLabel(this))
{
    const QString titles[FigureCount]
        = {tr("Memory"), tr("Clients"), tr("Operations"), tr("Replication lag")};
    const QString units[FigureCount] = {tr("MiB"), tr("connections"), tr("ops/s"), tr("bytes")};
    auto *grid = new QGridLayout;
    for (int f = 0; f < FigureCount; ++f) {
        auto *plot = new QCustomPlot(this);
        plot->setObjectName(QStringLiteral("nodeChart%1").arg(f));
        layOutChart(plot, titles[f], units[f], 100 + 6 * fontMetrics().height());
        grid->addWidget(plot, f / 2, f % 2);
        m_plots.append(plot);
    }
    m_note->setWordWrap(true);
    m_note->hide();
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_note);
    layout->addLayout(grid, 1);
    restyle();
    m_redraw.setInterval(EveryMs);
    connect(&m_redraw, &QTimer::timeout, this, [this] {
        if (m_dirty && isVisible())
            redraw();
    });
    m_redraw.start();
}

void NodeCharts::addSamples(qint64 nowMs, const QList<Sample> &samples)
{
    m_nowMs = std::max(m_nowMs, nowMs);
    m_order.clear();
    for (const Sample &s : samples) {
        m_order << s.node;
        auto it = m_points.find(s.node);
        if (it == m_points.end()) {
            if (m_points.size() >= MaxNodes)
                continue; // a Cluster of hundreds: the first MaxNodes are kept
            it = m_points.insert(s.node, {});
        }
        QList<Point> &points = *it;
        if (!points.isEmpty() && nowMs - points.last().atMs < EveryMs)
            continue;
        Point p;
        p.atMs = nowMs;
        p.value[Memory] = s.memoryMiB;
        p.value[Clients] = s.clients;
        p.value[OpsPerSec] = s.opsPerSec;
        p.value[Lag] = s.lagBytes;
        points.append(p);
        // The span and the count both bound it.
        qsizetype drop = std::max<qsizetype>(0, points.size() - MaxSamples);
        while (drop < points.size() && nowMs - points.at(drop).atMs > SpanMs)
            ++drop;
        points.remove(0, drop);
        m_dirty = true;
    }
    // Nodes with nothing left in the span are forgotten.
    m_points.removeIf([this](const auto &it) {
        return it.value().isEmpty() || m_nowMs - it.value().last().atMs > SpanMs;
    });
    if (m_dirty && isVisible() && !m_redraw.isActive())
        redraw();
}

QString NodeCharts::note() const
{
    return m_note->text();
}

int NodeCharts::pointCount() const
{
    int n = 0;
    for (const QCustomPlot *plot : m_plots)
        n += drawnPoints(plot);
    return n;
}

void NodeCharts::redraw()
{
    m_dirty = false;
    QStringList charted;
    for (const QString &node : std::as_const(m_order)) {
        if (m_points.contains(node) && charted.size() < MaxCharted)
            charted << node;
    }
    const qsizetype known = m_order.size();
    m_note->setText(
        known > charted.size()
            ? tr("Charted: %1 of %2 nodes (the first in the table).").arg(charted.size()).arg(known)
            : QString());
    m_note->setVisible(!m_note->text().isEmpty());
    bool anyLag = false;
    for (int f = 0; f < FigureCount; ++f) {
        QCustomPlot *plot = m_plots.at(f);
        while (plot->graphCount() > charted.size())
            plot->removeGraph(plot->graphCount() - 1);
        while (plot->graphCount() < charted.size())
            plot->addGraph();
        QList<double> shown;
        // Three addresses a row: six in one row were cut to "127.0".
        plot->legend->setWrap(LegendColumns);
        plot->legend->setFillOrder(QCPLegend::foColumnsFirst, true);
        for (int g = 0; g < charted.size(); ++g) {
            QCPGraph *graph = plot->graph(g);
            graph->setName(charted.at(g));
            graph->setPen(nodePen(g, palette()));
            QVector<double> keys;
            QVector<double> values;
            for (const Point &p : m_points.value(charted.at(g))) {
                keys << double(p.atMs - m_nowMs) / 1000.0;
                values << p.value[f];
                if (!std::isnan(p.value[f]))
                    shown << p.value[f];
            }
            graph->setData(keys, values, true);
        }
        if (f == Lag)
            anyLag = !shown.isEmpty();
        const ValueRange y = valueRange(shown, std::nullopt);
        plot->yAxis->setRange(y.lower, y.upper);
        plot->xAxis->setRange(-liveSpanS(plot, double(SpanMs) / 1000.0), 0);
        plot->xAxis->ticker()->setTickCount(tickCountFor(plot->axisRect()->width()));
        showLegend(plot, charted.size() > 1);
        plot->replot(QCustomPlot::rpQueuedReplot);
    }
    // A deployment without replicas has no lag to chart.
    m_plots.at(Lag)->setVisible(anyLag);
}

void NodeCharts::restyle()
{
    for (QCustomPlot *plot : std::as_const(m_plots)) {
        styleForPalette(plot, palette());
        for (int g = 0; g < plot->graphCount(); ++g)
            plot->graph(g)->setPen(nodePen(g, palette()));
        plot->replot(QCustomPlot::rpQueuedReplot);
    }
}

void NodeCharts::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        restyle();
}

void NodeCharts::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    if (m_dirty)
        redraw();
}

} // namespace gatehouse
