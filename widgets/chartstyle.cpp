// SPDX-License-Identifier: MIT
#include "chartstyle.h"

#include "theme.h"

#include <QCoreApplication>
#include <QPalette>
#include <QString>

#include <qcustomplot.h>

namespace gatehouse {

void styleForPalette(QCustomPlot *plot, const QPalette &pal)
{
    // Titles, labels and series in the palette's colours (theme: >= 4.5:1
    // on Base in light and dark), never QCustomPlot's black.
    for (int i = 0; i < plot->plotLayout()->elementCount(); ++i) {
        if (auto *title = qobject_cast<QCPTextElement *>(plot->plotLayout()->elementAt(i)))
            title->setTextColor(pal.color(QPalette::Text));
    }
    for (int g = 0; g < plot->graphCount(); ++g) {
        QCPGraph *graph = plot->graph(g);
        if (graph->lineStyle() == QCPGraph::lsNone)
            graph->setScatterStyle(
                QCPScatterStyle(QCPScatterStyle::ssDisc, theme::series(g, pal), 6));
        else
            graph->setPen(QPen(theme::series(g, pal), 1.5));
    }
    plot->setBackground(pal.brush(QPalette::Base));
    for (QCPAxis *axis : {plot->xAxis, plot->yAxis}) {
        axis->setBasePen(QPen(pal.color(QPalette::Text)));
        axis->setTickPen(QPen(pal.color(QPalette::Text)));
        axis->setSubTickPen(QPen(pal.color(QPalette::Text)));
        axis->setTickLabelColor(pal.color(QPalette::Text));
        axis->setLabelColor(pal.color(QPalette::Text));
        axis->grid()->setPen(QPen(pal.color(QPalette::Mid), 0, Qt::DotLine));
    }
    plot->legend->setBrush(pal.brush(QPalette::Base));
    plot->legend->setTextColor(pal.color(QPalette::Text));
}

// A hidden legend keeps its row: QCustomPlot sizes a layout grid's rows from
// every element in them, visible or not, which left a blank band over a
// chart of one series. Hidden, its row (addPlot's cell) is squeezed to a pixel.
// Its width is set, not left to the legend: an empty legend's largest width
// is its margins, and a grid's column is no wider than its narrowest
// element's largest, which drew a chart with no series yet a few pixels wide.
void showLegend(QCustomPlot *plot, bool shown)
{
    plot->legend->setVisible(shown);
    if (QCPLayoutElement *cell = plot->legend->layout()) {
        // QCustomPlot reads a maximum of QWIDGETSIZE_MAX as "unset".
        constexpr int Unbounded = QWIDGETSIZE_MAX - 1;
        cell->setMinimumSize(0, shown ? 0 : 1);
        cell->setMaximumSize(Unbounded, shown ? QWIDGETSIZE_MAX : 1);
    }
}

void layOutChart(QCustomPlot *plot, const QString &title, const QString &yLabel, int minimumHeight)
{
    plot->setMinimumHeight(minimumHeight);
    plot->plotLayout()->insertRow(0);
    plot->plotLayout()->addElement(0, 0, new QCPTextElement(plot, title));
    plot->yAxis->setLabel(yLabel);
    plot->xAxis->setLabel(
        QCoreApplication::translate("gatehouse::ChartPanel", "seconds (0 = now)"));
    plot->plotLayout()->insertRow(1);
    auto *legendCell = new QCPLayoutGrid;
    plot->plotLayout()->addElement(1, 0, legendCell);
    legendCell->addElement(0, 0, plot->legend);
    plot->legend->setFillOrder(QCPLegend::foColumnsFirst);
    plot->legend->setBorderPen(Qt::NoPen);
    plot->plotLayout()->setRowStretchFactor(1, 0.001);
    showLegend(plot, false);
}

} // namespace gatehouse
