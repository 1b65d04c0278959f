// SPDX-License-Identifier: MIT
#pragma once

#include <monitor/snapshot.h>

#include <QWidget>

class QComboBox;
class QCustomPlot;
class QLabel;

namespace gatehouse {

// The charts of the selected object, from the history its snapshot carries:
// limiters get occupancy over time with the limit drawn, the retry horizon,
// and the live window strip (entries in the current window on a time axis
// ending at now, plus the future retry slots); queues get length and in
// flight, and the oldest in-flight age. Replotted by refresh() on a timer,
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
    bool exportTo(const QString &fileName); // .png or .pdf

protected:
    void changeEvent(QEvent *event) override; // follows the desktop's light/dark palette

private:
    QCustomPlot *addPlot(const QString &title, const QString &yLabel);
    void showHover(QCustomPlot *plot, QMouseEvent *event);

    QString m_section;
    QByteArray m_key;
    QComboBox *m_range;
    QLabel *m_title;
    QLabel *m_hover;
    QList<QCustomPlot *> m_plots;
};

} // namespace gatehouse
