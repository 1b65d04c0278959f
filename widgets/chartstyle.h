// SPDX-License-Identifier: MIT
#pragma once

class QCustomPlot;
class QPalette;
class QString;

namespace gatehouse {

// A plot's titles, axes, grid, legend and series in the palette's colours
// (theme: >= 4.5:1 on Base in light and dark), never QCustomPlot's black.
// pal: the owning widget's (a plot's own palette may not have followed yet:
// the owner hears of a change before the layout between them passes it on).
void styleForPalette(QCustomPlot *plot, const QPalette &pal);

// Shows or hides a plot's legend placed in its own layout row; hidden, the
// row is squeezed to a pixel (QCustomPlot sizes a row from every element in
// it, visible or not).
void showLegend(QCustomPlot *plot, bool shown);

// A chart's frame: about 100 px of plot under the title, the legend in its
// own row under the title (outside the data: it never covers the newest
// points; hidden until shown), the axes labelled, x in seconds back from now.
// minimumHeight: the plot's, title and axes included.
void layOutChart(QCustomPlot *plot, const QString &title, const QString &yLabel, int minimumHeight);

} // namespace gatehouse
