// SPDX-License-Identifier: MIT
#pragma once

#include <QHash>
#include <QList>
#include <QString>
#include <QStringList>
#include <QTimer>
#include <QWidget>

#include <cmath>

class QCustomPlot;
class QLabel;

namespace gatehouse {

// The Nodes page's charts: every node's memory, clients, ops/s and
// replication lag over the last 15 minutes, one line per node (the first
// MaxCharted in the table's order), x in seconds back from the server's
// time now. Fed one sample per node per snapshot (at most one a second is
// kept); bounded: MaxSamples per node, MaxNodes nodes remembered.
class NodeCharts : public QWidget
{
    Q_OBJECT
public:
    enum Figure { Memory, Clients, OpsPerSec, Lag, FigureCount };

    // One node's figures at one moment; NaN: not known then.
    struct Sample
    {
        QString node; // its address
        double memoryMiB = std::nan("");
        double clients = std::nan("");
        double opsPerSec = std::nan("");
        double lagBytes = std::nan(""); // replicas: behind their master
    };

    static constexpr qint64 SpanMs = 15 * 60 * 1000;
    static constexpr qint64 EveryMs = 1000; // the least time between two kept samples
    static constexpr int MaxSamples = int(SpanMs / EveryMs) + 1;
    static constexpr int MaxNodes = 64;
    static constexpr int MaxCharted = 16;
    static constexpr int LegendColumns = 3; // addresses a legend row holds

    explicit NodeCharts(QWidget *parent = nullptr);

    // The nodes' figures at server time nowMs, in the table's order.
    void addSamples(qint64 nowMs, const QList<Sample> &samples);

    QCustomPlot *plot(Figure figure) const { return m_plots.at(figure); }
    // Points drawn in all the charts (tests).
    int pointCount() const;
    // What the charts leave out ("Charted: 16 of 30 nodes."); empty when none.
    QString note() const;

protected:
    void changeEvent(QEvent *event) override;
    void showEvent(QShowEvent *event) override;

private:
    struct Point
    {
        qint64 atMs = 0;
        double value[FigureCount];
    };
    void redraw();
    void restyle();

    QHash<QString, QList<Point>> m_points; // by node, oldest first
    QStringList m_order;                   // the table's order at the last samples
    QList<QCustomPlot *> m_plots;
    QLabel *m_note;
    qint64 m_nowMs = 0;
    bool m_dirty = false;
    QTimer m_redraw; // at most one redraw a second, and only when shown
};

} // namespace gatehouse
