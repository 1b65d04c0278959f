// SPDX-License-Identifier: MIT
#include "chartpanel.h"

#include "historyrangebar.h"

#include <panels/panelregistry.h>

#include <patterns/patternregistry.h>

#include <patterns/patternunit.h>

#include <QEvent>
#include <QFileDialog>
#include <QFontMetrics>
#include <QFutureWatcher>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include "chartscale.h"
#include "chartseries.h"
#include "chartstyle.h"
#include "theme.h"

#include <QDateTime>
#include <QDir>
#include <QPainter>
#include <QStandardPaths>

#include <algorithm>
#include <climits>

#include <qcustomplot.h>

namespace gatehouse {

ChartPanel::ChartPanel(const QString &section, QWidget *parent)
    : QWidget(parent)
    , m_section(section)
    , m_rangeBar(new HistoryRangeBar(this))
    , m_title(new QLabel(this))
    , m_hover(new QLabel(this))
    , m_folded(new QLabel(this))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto *bar = new QHBoxLayout;
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    bar->addWidget(m_title, 1);
    bar->addWidget(m_hover);
    m_rangeBar->setToolTip(tr("Time range of the charts"));
    m_rangeBar->setEnabled(false); // until a history file is set: live only
    connect(m_rangeBar, &HistoryRangeBar::rangeChanged, this, &ChartPanel::onRangeChanged);
    bar->addWidget(m_rangeBar);
    m_panTimer.setSingleShot(true);
    m_panTimer.setInterval(250);
    connect(&m_panTimer, &QTimer::timeout, this, [this] {
        if (!historyMode() || m_plots.isEmpty() || m_key.isEmpty())
            return;
        const QCPRange x = m_plots.first()->xAxis->range();
        const qint64 from = qint64(x.lower * 1000.0);
        const qint64 to = qint64(x.upper * 1000.0);
        if (from < m_loadedFromMs || to > m_loadedToMs)
            loadHistory(std::min(from, m_loadedFromMs), std::max(to, m_loadedToMs));
    });
    auto *exportButton = new QPushButton(tr("Export…"), this);
    exportButton->setObjectName(section + QStringLiteral("ExportCharts"));
    exportButton->setToolTip(tr("Save each chart as <chart>-<key>-<time>.png in a folder"));
    connect(exportButton, &QPushButton::clicked, this, [this] {
        if (m_key.isEmpty())
            return;
        QString start = QStandardPaths::writableLocation(QStandardPaths::PicturesLocation);
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Export charts to"), start);
        if (dir.isEmpty())
            return;
        const QStringList files = exportPngs(dir, QDateTime::currentMSecsSinceEpoch());
        const QString text
            = files.isEmpty()
                  ? tr("Could not write the charts to %1: check that the folder is writable.")
                        .arg(QDir::toNativeSeparators(dir))
                  : tr("Saved %n chart(s) to %1", nullptr, int(files.size()))
                        .arg(QDir::toNativeSeparators(dir));
        m_hover->setText(text);
        Q_EMIT message(text);
    });
    m_export = exportButton;
    bar->addWidget(exportButton);
    layout->addLayout(bar);
    m_folded->setObjectName(QStringLiteral("foldedCharts"));
    m_folded->hide();
    layout->addWidget(m_folded);

    // The section's charts as its first pattern declares them; an object
    // of a pattern that charts otherwise rebuilds them (setObject).
    const QList<const PatternUnit *> units = PatternRegistry::instance().unitsIn(section);
    if (!units.isEmpty())
        buildPlots(units.first()->charts());
    setObject(nullptr);
}

void ChartPanel::buildPlots(const QList<Chart> &charts)
{
    qDeleteAll(m_plots);
    m_plots.clear();
    m_charts = charts;
    for (const Chart &c : charts)
        addPlot(c.title, c.yLabel);
    // Two history charts side by side, the window strip (and a chart left
    // alone on its row) across both. Every plot keeps its readable height
    // (addPlot): where the pane is shorter than the rows need (1280x800 under
    // a stuck-job table) the charts scroll, never squeezed over each other.
    auto *grid = findChild<QWidget *>(QStringLiteral("chartGrid"));
    if (!grid) {
        auto *scroll = new QScrollArea(this);
        scroll->setObjectName(QStringLiteral("chartScroll"));
        scroll->setFrameShape(QFrame::NoFrame);
        scroll->setWidgetResizable(true);
        scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
        grid = new QWidget(scroll);
        grid->setObjectName(QStringLiteral("chartGrid"));
        auto *gridLayout = new QGridLayout(grid);
        gridLayout->setContentsMargins(0, 0, 0, 0);
        scroll->setWidget(grid);
        static_cast<QVBoxLayout *>(layout())->addWidget(scroll, 1);
    }
    // One row of charts at least, whatever the panes above take.
    findChild<QScrollArea *>(QStringLiteral("chartScroll"))
        ->setMinimumHeight(m_plots.isEmpty() ? 0 : m_plots.first()->minimumHeight());
    auto *gridLayout = static_cast<QGridLayout *>(grid->layout());
    int row = 0, column = 0;
    for (int i = 0; i < m_plots.size(); ++i) {
        const bool last = i == m_plots.size() - 1;
        const bool wide = m_charts.at(i).kind == Chart::Kind::WindowStrip || (last && column == 0);
        if (wide) {
            row += column;
            column = 0;
            gridLayout->addWidget(m_plots.at(i), row++, 0, 1, 2);
        } else {
            gridLayout->addWidget(m_plots.at(i), row, column);
            row += column;
            column = 1 - column;
        }
    }
}

QCustomPlot *ChartPanel::addPlot(const QString &title, const QString &yLabel)
{
    auto *plot = new QCustomPlot(this);
    // About 100 px of plot (the axis rect) under the title, over the x axis;
    // the legend shown at a second series (refresh) or the strip's.
    layOutChart(plot, title, yLabel, 100 + 6 * fontMetrics().height());
    plot->setInteractions(QCP::iRangeZoom | QCP::iRangeDrag);
    plot->axisRect()->setRangeZoom(Qt::Horizontal);
    plot->axisRect()->setRangeDrag(Qt::Horizontal);
    styleForPalette(plot, palette());
    connect(plot->xAxis, qOverload<const QCPRange &>(&QCPAxis::rangeChanged), this,
            [this] { onPanned(); });
    connect(plot, &QCustomPlot::mouseMove, this,
            [this, plot](QMouseEvent *event) { showHover(plot, event); });
    m_plots.append(plot); // placed by buildPlots
    return plot;
}

void ChartPanel::showHover(QCustomPlot *plot, QMouseEvent *event)
{
    const double x = plot->xAxis->pixelToCoord(event->position().x());
    QStringList parts;
    for (int g = 0; g < plot->graphCount(); ++g) {
        QCPGraph *graph = plot->graph(g);
        auto it = graph->data()->findBegin(x);
        if (it != graph->data()->constEnd())
            parts << QStringLiteral("%1: %2").arg(graph->name()).arg(it->value, 0, 'g', 4);
    }
    m_hover->setText(
        QStringLiteral("t = %1 s  %2").arg(x, 0, 'f', 1).arg(parts.join(QLatin1String("  "))));
}

void ChartPanel::setHistoryFile(const QString &path)
{
    m_historyFile = path;
    m_rangeBar->setEnabled(!path.isEmpty());
}

bool ChartPanel::historyMode() const
{
    return !m_historyFile.isEmpty() && m_rangeBar->mode() != HistoryRangeBar::Mode::Live;
}

void ChartPanel::onRangeChanged()
{
    m_loaded.reset();
    m_loadedFromMs = m_loadedToMs = 0;
    ++m_loadGeneration; // a read under way no longer applies
    m_loading = false;
    m_placeX = true;
    for (int i = 0; i < m_plots.size() && i < m_charts.size(); ++i) {
        QCustomPlot *plot = m_plots.at(i);
        if (m_charts.at(i).kind == Chart::Kind::WindowStrip)
            continue; // around now, always
        if (historyMode()) {
            auto ticker = QSharedPointer<QCPAxisTickerDateTime>::create();
            ticker->setDateTimeFormat(QStringLiteral("HH:mm\nMMM d"));
            plot->xAxis->setTicker(ticker);
            plot->xAxis->setLabel(QString());
        } else {
            plot->xAxis->setTicker(QSharedPointer<QCPAxisTicker>::create());
            plot->xAxis->setLabel(tr("seconds (0 = now)"));
        }
    }
    if (m_last.sequence > 0 || !m_last.objects.isEmpty())
        refresh(m_last);
}

void ChartPanel::onPanned()
{
    if (m_settingX || m_plots.isEmpty())
        return;
    auto *axis = qobject_cast<QCPAxis *>(sender());
    if (!axis)
        return;
    // The panel's history charts share one time axis. The window strip has
    // its own (the window around now): it neither leads nor follows, or
    // every refresh would narrow the live 15 minutes to the window's seconds.
    const auto isStrip = [this](const QCustomPlot *plot) {
        const qsizetype i = m_plots.indexOf(plot);
        return i >= 0 && i < m_charts.size() && m_charts.at(i).kind == Chart::Kind::WindowStrip;
    };
    if (isStrip(axis->parentPlot()))
        return;
    m_settingX = true;
    for (QCustomPlot *plot : std::as_const(m_plots)) {
        if (isStrip(plot))
            continue;
        if (plot->xAxis != axis && plot->xAxis->range() != axis->range()) {
            plot->xAxis->setRange(axis->range());
            plot->replot(QCustomPlot::rpQueuedReplot);
        }
    }
    m_settingX = false;
    if (historyMode())
        m_panTimer.start();
}

void ChartPanel::loadHistory(qint64 fromMs, qint64 toMs)
{
    if (m_historyFile.isEmpty() || m_key.isEmpty())
        return;
    const quint64 generation = ++m_loadGeneration;
    m_loading = true;
    m_reread = false;
    const QString path = m_historyFile;
    const QByteArray key = m_key;
    auto *watcher = new QFutureWatcher<std::optional<HistoryRange>>(this);
    connect(watcher, &QFutureWatcher<std::optional<HistoryRange>>::finished, this,
            [this, watcher, generation, key, fromMs, toMs] {
                watcher->deleteLater();
                if (generation != m_loadGeneration || key != m_key)
                    return; // another range or object was asked for since
                m_loading = false;
                m_loaded = watcher->result();
                m_loadedFromMs = fromMs;
                m_loadedToMs = toMs;
                if (!m_loaded && historyMode()) // live: the monitor's samples are enough
                    m_hover->setText(tr("No history could be read."));
                refresh(m_last);
            });
    // The read runs on the thread pool; a file of any size never stalls the GUI.
    watcher->setFuture(QtConcurrent::run([path, key, fromMs, toMs, reader = m_reader]() {
        if (reader)
            return reader(path, key, fromMs, toMs);
        QString error;
        return HistoryStore::read(path, key, fromMs, toMs, &error);
    }));
}

void ChartPanel::showSeries(const QByteArray &key, const QString &title, const QList<Chart> &charts)
{
    if (key != m_key || !m_series) {
        m_loaded.reset();
        m_loadedFromMs = m_loadedToMs = 0;
        ++m_loadGeneration;
        m_loading = false;
        m_placeX = true;
    }
    m_key = key;
    m_series = true;
    m_hover->clear();
    QStringList titles, now;
    for (const Chart &c : charts)
        titles << c.title;
    for (const Chart &c : std::as_const(m_charts))
        now << c.title;
    if (titles != now)
        buildPlots(charts);
    for (QCustomPlot *plot : std::as_const(m_plots))
        plot->setVisible(true);
    m_folded->clear();
    m_folded->hide();
    setMaximumHeight(QWIDGETSIZE_MAX);
    m_rangeBar->setEnabled(!m_historyFile.isEmpty());
    if (m_export)
        m_export->setEnabled(true);
    m_title->setText(QStringLiteral("<b>%1</b>").arg(title.toHtmlEscaped()));
}

void ChartPanel::setObject(const ObjectState *state)
{
    m_series = false;
    const QByteArray key = state ? state->object->key : QByteArray();
    if (key != m_key) {
        m_loaded.reset();
        m_loadedFromMs = m_loadedToMs = 0;
        ++m_loadGeneration;
        m_loading = false;
        m_placeX = true;
    }
    m_key = key;
    m_hover->clear(); // a readout of the previous object would lie
    // No selection: a hint instead of empty axes, and the panel shrinks to
    // it so the table gets the room.
    for (QCustomPlot *plot : std::as_const(m_plots))
        plot->setVisible(state != nullptr);
    m_folded->clear();
    m_folded->hide();
    setMaximumHeight(state ? QWIDGETSIZE_MAX : m_title->sizeHint().height() + 16);
    m_rangeBar->setEnabled(state != nullptr && !m_historyFile.isEmpty());
    if (m_export)
        m_export->setEnabled(state != nullptr);
    if (state) {
        const QList<Chart> charts = PatternUnit::of(state->object->kind).charts();
        QStringList titles, now;
        for (const Chart &c : charts)
            titles << c.title;
        for (const Chart &c : std::as_const(m_charts))
            now << c.title;
        if (titles != now) {
            buildPlots(charts);
            for (QCustomPlot *plot : std::as_const(m_plots))
                plot->setVisible(true);
        }
    }
    m_pattern = state ? patternId(state->object->kind) : QString();
    m_heldBy = state ? m_last.server.heldBy(m_key) : QString();
    updateTitle();
    for (QCustomPlot *plot : std::as_const(m_plots)) {
        plot->clearGraphs();
        plot->clearItems();
        plot->replot(QCustomPlot::rpQueuedReplot);
    }
}

QString ChartPanel::titleText() const
{
    return m_title->text();
}

void ChartPanel::updateTitle()
{
    // Cluster and Sentinel: which node holds the object (it changes with a
    // failover or a reshard, so refresh() keeps it current).
    m_title->setText(m_key.isEmpty()
                         ? tr("Select a row in the table to see its charts.")
                         : QStringLiteral("<b>%1</b> (%2)%3")
                               .arg(printableBytes(m_key).toHtmlEscaped(), m_pattern,
                                    m_heldBy.isEmpty()
                                        ? QString()
                                        : QStringLiteral(" &mdash; ") + m_heldBy.toHtmlEscaped()));
}

void ChartPanel::refresh(const Snapshot &snapshot)
{
    m_last = snapshot;
    if (!m_key.isEmpty()) {
        if (const QString heldBy = snapshot.server.heldBy(m_key); heldBy != m_heldBy) {
            m_heldBy = heldBy;
            updateTitle();
        }
    }
    if (m_key.isEmpty() || !isVisible())
        return;
    const ObjectState *state = nullptr;
    for (const ObjectState &o : snapshot.objects) {
        if (o.object->key == m_key) {
            state = &o;
            break;
        }
    }
    if (!state && !m_series)
        return;
    // The monitor publishes the history of the watched objects (the selected
    // ones) with each snapshot; the first after a selection brings it.
    SeriesPoints::Source source;
    source.history = snapshot.history.value(m_key);
    source.fromFile = historyMode();
    source.custom = m_rangeBar->mode() == HistoryRangeBar::Mode::Custom;
    source.nowMs = double(snapshot.server.timeMs);
    source.rangeS = double(m_rangeBar->spanMs()) / 1000.0;
    readHistoryFor(snapshot.server.timeMs, source);
    source.loaded = m_loaded ? &*m_loaded : nullptr;
    SeriesPoints points(source);
    static const Reading NoReading; // a series' charts: no limit, no strip
    const Reading &r = state ? state->reading : NoReading;
    QStringList foldedLines;
    QList<bool> folded(m_plots.size(), false);
    for (int i = 0; i < m_plots.size() && i < m_charts.size(); ++i) {
        points.startChart();
        QCustomPlot *plot = m_plots.at(i);
        const Chart &chart = m_charts.at(i);
        if (chart.kind == Chart::Kind::WindowStrip) {
            if (state) {
                if (const auto &draw = PanelRegistry::instance().strip(state->object->kind))
                    draw(plot, r, snapshot.server.timeMs, palette());
            }
            showLegend(plot, true);
            plot->replot(QCustomPlot::rpQueuedReplot);
            continue;
        }
        const QString foldedLine = drawChart(plot, chart, points, r, source);
        if (!foldedLine.isEmpty()) {
            folded[i] = true;
            foldedLines << foldedLine;
        }
    }
    fold(foldedLines, folded);
    if (source.fromFile && m_loaded)
        m_placeX = false;
}

void ChartPanel::readHistoryFor(qint64 nowMs, SeriesPoints::Source &source)
{
    // History ranges: x in seconds since the epoch (a date-time axis), the
    // file's points then the live ones after them. The last-N ranges read
    // again once what was read is a minute behind.
    if (source.fromFile) {
        source.wantFrom = source.custom ? m_rangeBar->customFromMs() : nowMs - m_rangeBar->spanMs();
        source.wantTo = source.custom ? m_rangeBar->customToMs() : nowMs;
        const bool behind = !source.custom && nowMs - m_loadedToMs > 60 * 1000;
        if (!m_loading && (!m_loaded || behind || m_reread))
            loadHistory(m_loaded ? std::min(source.wantFrom, m_loadedFromMs) : source.wantFrom,
                        std::max(source.wantTo, m_loadedToMs));
    } else if (!m_historyFile.isEmpty() && !m_loading && (m_loadedToMs == 0 || m_reread)) {
        // Live: the file's last 15 minutes (an earlier run's), read once per
        // object (again when the reader's answer changed), come before the
        // monitor's samples, so a chart starts full instead of with a few
        // points at its right edge, and a throughput is drawn before 10 s of
        // the monitor's own samples.
        loadHistory(nowMs - m_rangeBar->spanMs(), nowMs);
    }
}

QString ChartPanel::drawChart(QCustomPlot *plot, const Chart &chart, SeriesPoints &points,
                              const Reading &r, const SeriesPoints::Source &source)
{
    bool perMinute = false;
    for (int j = 0; j < chart.series.size(); ++j) {
        while (plot->graphCount() <= j) {
            QCPGraph *g = plot->addGraph();
            g->setPen(QPen(theme::series(plot->graphCount() - 1, palette()), 1.5));
        }
        QCPGraph *g = plot->graph(j);
        g->setName(chart.series.at(j).name);
        points.fill(g, chart.series.at(j).figure, chart.series.at(j).scale,
                    chart.series.at(j).perMinute);
        perMinute |= chart.series.at(j).perMinute;
    }
    plot->clearItems();
    const QString hintText = placeholder(plot, points.read, perMinute, source.fromFile);
    // Readings, none of them for this chart (a SETNX lock has no TTL), and
    // nothing on its way (not measuring, not reading the file): a line
    // instead of a page of empty axes.
    QString foldedLine;
    const bool nothingDrawn = drawnPoints(plot) == 0 && !perMinute && !m_loading
                              && (points.read > 0 || (source.fromFile && m_loaded));
    // A figure that has been 0 throughout the range (a limiter that never
    // asked a caller to retry) is one line too: the line says so.
    const bool zeroThroughout = drawnPoints(plot) > 0 && hintText == ZeroThroughout();
    if (nothingDrawn || zeroThroughout)
        foldedLine = tr("%1: %2").arg(chart.title, hintText);
    std::optional<double> limit;
    QCPItemText *limitLabel = nullptr;
    if (chart.limitLine && r.limit) {
        limit = double(*r.limit);
        limitLabel = drawLimit(plot, *limit, source);
    }
    placeAxes(plot, valueRange(points.shown, limit), limit, limitLabel, source);
    return foldedLine;
}

QString ChartPanel::placeholder(QCustomPlot *plot, qsizetype read, bool perMinute, bool fromFile)
{
    // Nothing to draw, or nothing but 0 (a line hidden in the x axis): the
    // plot says so instead of showing empty axes.
    const int drawn = drawnPoints(plot);
    bool allZero = true;
    for (int g = 0; g < plot->graphCount(); ++g) {
        for (auto it = plot->graph(g)->data()->constBegin();
             allZero && it != plot->graph(g)->data()->constEnd(); ++it)
            allZero = it->value == 0;
    }
    QString hintText;
    if (drawn > 0 && allZero)
        hintText = ZeroThroughout();
    else if (drawn == 0 && fromFile)
        hintText
            = m_loading ? tr("reading the history file…") : tr("nothing recorded in this range");
    else if (drawn == 0 && perMinute)
        hintText = tr("measuring… (needs %1 s)").arg(int(RiseLeastS));
    else if (drawn == 0)
        hintText = read > 0 ? tr("none in this range") : tr("no readings yet");
    if (!hintText.isEmpty()) {
        auto *hint = new QCPItemText(plot);
        hint->setObjectName(QStringLiteral("chartPlaceholder"));
        hint->position->setType(QCPItemPosition::ptAxisRectRatio);
        hint->position->setCoords(0.5, 0.5);
        hint->setPositionAlignment(Qt::AlignCenter);
        hint->setColor(palette().color(QPalette::Text));
        hint->setBrush(palette().brush(QPalette::Base)); // over the grid, not crossed by it
        hint->setPadding(QMargins(6, 2, 6, 2));
        hint->setText(hintText);
    }
    return hintText;
}

QCPItemText *ChartPanel::drawLimit(QCustomPlot *plot, double limit,
                                   const SeriesPoints::Source &source)
{
    const QColor color = theme::limit(palette());
    const double from = source.fromFile ? double(source.wantFrom) / 1000.0 : -source.rangeS;
    auto *line = new QCPItemStraightLine(plot);
    line->point1->setCoords(from, limit);
    line->point2->setCoords(source.fromFile ? double(source.wantTo) / 1000.0 : 0, limit);
    line->setPen(QPen(color, 1, Qt::DashLine));
    auto *label = new QCPItemText(plot);
    label->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
    label->position->setCoords(from, limit);
    label->setText(tr("limit %1").arg(limit));
    label->setColor(color);
    label->setPadding(QMargins(4, 0, 0, 1));
    return label;
}

void ChartPanel::placeAxes(QCustomPlot *plot, const ValueRange &y, std::optional<double> limit,
                           QCPItemText *limitLabel, const SeriesPoints::Source &source)
{
    // Every value shown and the limit, zero-based: an overshoot past the
    // limit stays on the chart.
    plot->yAxis->setRange(y.lower, y.upper);
    if (limitLabel && limit && y.upper > y.lower) {
        // The label sits above the line when there is room for it there,
        // else just below it: never cut by the frame.
        const double above = (y.upper - *limit) / (y.upper - y.lower) * plot->axisRect()->height();
        if (above < QFontMetrics(limitLabel->font()).height() + 2) {
            limitLabel->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
            limitLabel->setPadding(QMargins(4, 1, 0, 0));
        }
    }
    plot->yAxis->ticker()->setTickCount(tickCountFor(plot->axisRect()->height()));
    plot->xAxis->ticker()->setTickCount(tickCountFor(plot->axisRect()->width()));
    showLegend(plot, plot->graphCount() > 1);
    // Live: the last 15 minutes, always. History: placed once per range or
    // object, then where the operator pans and zooms it.
    m_settingX = true;
    if (!source.fromFile)
        plot->xAxis->setRange(-liveSpanS(plot, source.rangeS), 0);
    else if (m_placeX)
        plot->xAxis->setRange(double(source.wantFrom) / 1000.0, double(source.wantTo) / 1000.0);
    m_settingX = false;
    plot->replot(QCustomPlot::rpQueuedReplot);
}

void ChartPanel::fold(const QStringList &lines, const QList<bool> &folded)
{
    bool allFolded = !m_plots.isEmpty();
    for (int i = 0; i < m_plots.size(); ++i) {
        const bool hide = folded.value(i);
        allFolded &= hide;
        if (m_plots.at(i)->isHidden() != hide) // only a change relays out
            m_plots.at(i)->setVisible(!hide);
    }
    const QString text = lines.join(QLatin1Char('\n'));
    if (m_folded->text() != text)
        m_folded->setText(text);
    m_folded->setVisible(!lines.isEmpty());
    // Every chart folded: the panel is its title bar and the lines, the
    // tables above take the rest of the page.
    const int height = allFolded ? m_title->sizeHint().height() + 16 + m_folded->sizeHint().height()
                                       + layout()->spacing()
                                 : QWIDGETSIZE_MAX;
    if (maximumHeight() != height)
        setMaximumHeight(height);
}

QStringList ChartPanel::foldedCharts() const
{
    return m_folded->isHidden() || m_folded->text().isEmpty()
               ? QStringList()
               : m_folded->text().split(QLatin1Char('\n'));
}

void ChartPanel::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::PaletteChange) {
        for (QCustomPlot *plot : std::as_const(m_plots)) {
            plot->setPalette(palette());
            styleForPalette(plot, palette());
            plot->replot(QCustomPlot::rpQueuedReplot);
        }
    }
    QWidget::changeEvent(event);
}

QString ChartPanel::hoverText() const
{
    return m_hover->text();
}

QStringList ChartPanel::placeholders() const
{
    QStringList texts;
    for (QCustomPlot *plot : m_plots) {
        QString text;
        for (int i = 0; i < plot->itemCount(); ++i) {
            if (const auto *hint = qobject_cast<QCPItemText *>(plot->item(i));
                hint && hint->objectName() == QLatin1String("chartPlaceholder"))
                text = hint->text();
        }
        texts << text;
    }
    return texts;
}

int ChartPanel::pointCount() const
{
    int n = 0;
    for (QCustomPlot *plot : m_plots) {
        for (int g = 0; g < plot->graphCount(); ++g)
            n += plot->graph(g)->dataCount();
    }
    return n;
}

QStringList ChartPanel::exportPngs(const QString &dir, qint64 timeMs)
{
    // One file per chart, each with the key and the time written into the
    // image: a PNG passed around alone still says what it shows.
    QStringList written;
    if (m_key.isEmpty())
        return written; // nothing selected: the plots are hidden and empty
    const QString key = printableBytes(m_key);
    const QString when = QDateTime::fromMSecsSinceEpoch(timeMs).toString(Qt::ISODate);
    for (int i = 0; i < m_plots.size() && i < m_charts.size(); ++i) {
        QCustomPlot *plot = m_plots.at(i);
        const QSize size = plot->size().expandedTo(QSize(640, 240));
        const QPixmap chart = plot->toPixmap(size.width(), size.height());
        const int band = fontMetrics().height() + 8;
        QImage image(chart.width(), chart.height() + band, QImage::Format_RGB32);
        image.fill(palette().color(QPalette::Base));
        QPainter painter(&image);
        painter.setPen(palette().color(QPalette::Text));
        painter.setFont(font());
        painter.drawText(QRect(8, 0, image.width() - 16, band), Qt::AlignVCenter | Qt::AlignLeft,
                         QStringLiteral("%1 — %2").arg(key, when));
        painter.drawPixmap(0, band, chart);
        painter.end();
        const QString file = QDir(dir).filePath(chartFileName(m_charts.at(i).title, key, timeMs));
        if (image.save(file, "PNG"))
            written << file;
    }
    return written;
}

} // namespace gatehouse
