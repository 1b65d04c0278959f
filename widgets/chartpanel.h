// SPDX-License-Identifier: MIT
#pragma once

#include "chartseries.h"

#include <history/historystore.h>
#include <monitor/snapshot.h>
#include <patterns/presentation.h>

#include <QTimer>
#include <QWidget>

#include <functional>
#include <optional>

class QCPItemText;
class QCustomPlot;
class QLabel;

namespace gatehouse {

class HistoryRangeBar;
struct ValueRange;

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
    // Figures that are no object's (the Overview's sums over every queue):
    // charts drawn from snapshot.history[key] of the snapshots given to
    // refresh, titled title.
    void showSeries(const QByteArray &key, const QString &title, const QList<Chart> &charts);
    // How ranges beyond the live 15 minutes are read (on the thread pool,
    // so thread-safe): by default the key's history from the file.
    using HistoryReader = std::function<std::optional<HistoryRange>(
        const QString &path, const QByteArray &key, qint64 fromMs, qint64 toMs)>;
    void setHistoryReader(HistoryReader reader) { m_reader = std::move(reader); }
    // What the reader returns for the key has changed (the Overview's sums
    // now cover queues it did not know of): the next refresh reads the file
    // again, live or a range; what is drawn stays until the read ends.
    void rereadHistory() { m_reread = true; }
    void refresh(const Snapshot &snapshot);
    // Data points drawn in all graphs (the screenshot test checks they carry data).
    int pointCount() const;
    // Per chart, what it says instead of drawing when it has nothing to draw
    // ("measuring… (needs 10 s)" for a throughput's first seconds); empty
    // for a chart with data.
    QStringList placeholders() const;
    // The charts with nothing to draw for the selected object (a SETNX
    // lock's ages: it has no TTL), folded to one line each ("Ages and
    // countdowns: none in this range") so the page's tables get the room.
    QStringList foldedCharts() const;
    // The connection's history file: ranges beyond the live 15 minutes
    // (HistoryRangeBar) are read from it, off the GUI thread. Empty: live only.
    void setHistoryFile(const QString &path);
    HistoryRangeBar *rangeBar() const { return m_rangeBar; }
    // A history read is under way (tests wait for it to end).
    bool isLoading() const { return m_loading; }
    // Each chart of the selected object as dir/<chart>-<key>-<time>.png
    // (chartFileName), the key and time written above it; the files written.
    QStringList exportPngs(const QString &dir, qint64 timeMs);
    // The hover readout ("t = -3.0 s  in window: 12"); empty after a new selection.
    QString hoverText() const;
    // "<b>key</b> (pattern) — held by 127.0.0.1:7002 (master, slots ...)"
    QString titleText() const;

Q_SIGNALS:
    void message(const QString &text); // where an export went

protected:
    void changeEvent(QEvent *event) override; // follows the desktop's light/dark palette

private:
    void buildPlots(const QList<Chart> &charts);
    QCustomPlot *addPlot(const QString &title, const QString &yLabel);
    // A history range: what it wants of the file (source's wantFrom and
    // wantTo), read when not read yet or a minute behind; live, with a
    // throughput, the file's last minutes once.
    void readHistoryFor(qint64 nowMs, SeriesPoints::Source &source);
    // One chart of figures: its series, a placeholder when there is nothing
    // to draw, its limit, its axes. The line it folds to when it has nothing
    // to show; empty otherwise.
    QString drawChart(QCustomPlot *plot, const Chart &chart, SeriesPoints &points,
                      const Reading &reading, const SeriesPoints::Source &source);
    // "no readings yet", "0 throughout this range"... over the plot; the text.
    QString placeholder(QCustomPlot *plot, qsizetype read, bool perMinute, bool fromFile);
    QCPItemText *drawLimit(QCustomPlot *plot, double limit, const SeriesPoints::Source &source);
    void placeAxes(QCustomPlot *plot, const ValueRange &y, std::optional<double> limit,
                   QCPItemText *limitLabel, const SeriesPoints::Source &source);
    static QString ZeroThroughout() { return tr("0 throughout this range"); }
    void showHover(QCustomPlot *plot, QMouseEvent *event);
    bool historyMode() const;
    void updateTitle();
    // Shows the plots not folded, the folded ones' line, and sizes the
    // panel to what it shows.
    void fold(const QStringList &lines, const QList<bool> &folded);
    // Reads [fromMs, toMs] of the selected object from the history file;
    // the result is applied only if it is still the current request.
    void loadHistory(qint64 fromMs, qint64 toMs);
    void onRangeChanged();
    void onPanned(); // a plot's x range moved (drag, wheel): the others follow, data loads

    QString m_section;
    QByteArray m_key;
    HistoryRangeBar *m_rangeBar;
    QLabel *m_title;
    QString m_pattern; // of the selected object
    QString m_heldBy;  // ServerStatus::heldBy of the selected object
    QLabel *m_hover;
    QLabel *m_folded; // the folded charts' lines
    QWidget *m_export = nullptr;
    QList<Chart> m_charts; // what m_plots show, as the pattern declares them
    QList<QCustomPlot *> m_plots;
    QString m_historyFile;
    std::optional<HistoryRange> m_loaded; // the selected object's, read from the file
    qint64 m_loadedFromMs = 0;
    qint64 m_loadedToMs = 0;
    quint64 m_loadGeneration = 0; // a read's result applies only to the latest request
    bool m_loading = false;
    bool m_reread = false;   // rereadHistory: read again at the next refresh
    bool m_placeX = true;    // the next refresh sets the x range (new range or object)
    bool m_settingX = false; // the panel itself moves the x ranges
    QTimer m_panTimer;       // single shot: loads what a pan brought into view
    Snapshot m_last;         // the latest snapshot refreshed from
    bool m_series = false;   // showSeries: m_key is a series' of the snapshots, no object's
    HistoryReader m_reader;
};

} // namespace gatehouse
