// SPDX-License-Identifier: MIT
#pragma once

#include <monitor/snapshot.h>
#include <patterns/presentation.h>

#include <QWidget>

class QComboBox;
class QCustomPlot;
class QLabel;

namespace gatehouse {

// The charts of the selected object as its pattern declares them
// (PatternUnit::charts), from the history its snapshot carries: figures over
// time (a limiter's in-window count with its limit drawn, its retry horizon;
// a queue's length and in flight, its oldest in-flight age) and the live
// window strip (entries in the current window on a time axis ending at now,
// plus the future retry slots). Replotted by refresh() on a timer,
// never per sample. Hover shows values; PNG and PDF export.
class ChartPanel : public QWidget
{
    Q_OBJECT
public:
    ChartPanel(const QString &section, QWidget *parent = nullptr);

    void setObject(const ObjectState *state); // nullptr: nothing selected
    void refresh(const Snapshot &snapshot);
    // Data points drawn in all graphs (the screenshot test checks they carry data).
    int pointCount() const;
    // Each chart of the selected object as dir/<chart>-<key>-<time>.png
    // (chartFileName), the key and time written above it; the files written.
    QStringList exportPngs(const QString &dir, qint64 timeMs);
    // The hover readout ("t = -3.0 s  in window: 12"); empty after a new selection.
    QString hoverText() const;

Q_SIGNALS:
    void message(const QString &text); // where an export went

protected:
    void changeEvent(QEvent *event) override; // follows the desktop's light/dark palette

private:
    void buildPlots(const QList<Chart> &charts);
    QCustomPlot *addPlot(const QString &title, const QString &yLabel);
    void drawStrip(QCustomPlot *plot, const Reading &reading, qint64 nowMs);
    void showHover(QCustomPlot *plot, QMouseEvent *event);

    QString m_section;
    QByteArray m_key;
    QComboBox *m_range;
    QLabel *m_title;
    QLabel *m_hover;
    QWidget *m_export = nullptr;
    QList<Chart> m_charts; // what m_plots show, as the pattern declares them
    QList<QCustomPlot *> m_plots;
};

} // namespace gatehouse
