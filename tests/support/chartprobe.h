// SPDX-License-Identifier: MIT
#pragma once
// What the GUI tests read of a chart: the plot a panel titles so, and the
// series a plot's legend names so. Header-only.

#include <qcustomplot.h>

#include <QString>
#include <QWidget>

namespace gatehouse::test {

// The plot under panel whose title element reads title; null when none.
inline QCustomPlot *plotTitled(QWidget *panel, const QString &title)
{
    for (QCustomPlot *plot : panel->findChildren<QCustomPlot *>()) {
        for (int i = 0; i < plot->plotLayout()->elementCount(); ++i) {
            auto *text = qobject_cast<QCPTextElement *>(plot->plotLayout()->elementAt(i));
            if (text && text->text() == title)
                return plot;
        }
    }
    return nullptr;
}

// The graph of plot named name (its legend's); null when none.
inline QCPGraph *graphNamed(QCustomPlot *plot, const QString &name)
{
    for (int g = 0; plot && g < plot->graphCount(); ++g) {
        if (plot->graph(g)->name() == name)
            return plot->graph(g);
    }
    return nullptr;
}

} // namespace gatehouse::test
