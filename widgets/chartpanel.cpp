// SPDX-License-Identifier: MIT
#include "chartpanel.h"

#include "historyrangebar.h"

#include <patterns/patternregistry.h>

#include <patterns/patternunit.h>

#include <QEvent>
#include <QFileDialog>
#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <qcustomplot.h>

namespace gatehouse {

namespace {

QColor seriesColor(int i)
{
    static const QColor colors[] = {QColor(0x1f, 0x77, 0xb4), QColor(0xd6, 0x27, 0x28),
                                    QColor(0x2c, 0xa0, 0x2c), QColor(0xff, 0x7f, 0x0e)};
    return colors[i % 4];
}

void styleForPalette(QCustomPlot *plot)
{
    const QPalette pal = plot->palette();
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

} // namespace

ChartPanel::ChartPanel(const QString &section, QWidget *parent)
    : QWidget(parent)
    , m_section(section)
    , m_rangeBar(new HistoryRangeBar(this))
    , m_title(new QLabel(this))
    , m_hover(new QLabel(this))
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
    exportButton->setToolTip(tr("Save the charts as PNG or PDF"));
    connect(exportButton, &QPushButton::clicked, this, [this] {
        const QString file = QFileDialog::getSaveFileName(this, tr("Export charts"), QString(),
                                                          tr("PNG image (*.png);;PDF (*.pdf)"));
        if (!file.isEmpty())
            exportTo(file);
    });
    bar->addWidget(exportButton);
    layout->addLayout(bar);

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
}

QCustomPlot *ChartPanel::addPlot(const QString &title, const QString &yLabel)
{
    auto *plot = new QCustomPlot(this);
    plot->setMinimumHeight(120);
    plot->plotLayout()->insertRow(0);
    plot->plotLayout()->addElement(0, 0, new QCPTextElement(plot, title));
    plot->yAxis->setLabel(yLabel);
    plot->xAxis->setLabel(tr("seconds (0 = now)"));
    plot->setInteractions(QCP::iRangeZoom | QCP::iRangeDrag);
    plot->axisRect()->setRangeZoom(Qt::Horizontal);
    plot->axisRect()->setRangeDrag(Qt::Horizontal);
    styleForPalette(plot);
    connect(plot->xAxis, qOverload<const QCPRange &>(&QCPAxis::rangeChanged), this,
            [this] { onPanned(); });
    connect(plot, &QCustomPlot::mouseMove, this,
            [this, plot](QMouseEvent *event) { showHover(plot, event); });
    layout()->addWidget(plot);
    m_plots.append(plot);
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
    // The panel's charts share one time axis.
    m_settingX = true;
    for (QCustomPlot *plot : std::as_const(m_plots)) {
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
                if (!m_loaded)
                    m_hover->setText(tr("No history could be read."));
                refresh(m_last);
            });
    // The read runs on the thread pool; a file of any size never stalls the GUI.
    watcher->setFuture(QtConcurrent::run([path, key, fromMs, toMs]() {
        QString error;
        return HistoryStore::read(path, key, fromMs, toMs, &error);
    }));
}

void ChartPanel::setObject(const ObjectState *state)
{
    const QByteArray key = state ? state->object.key : QByteArray();
    if (key != m_key) {
        m_loaded.reset();
        m_loadedFromMs = m_loadedToMs = 0;
        ++m_loadGeneration;
        m_loading = false;
        m_placeX = true;
    }
    m_key = key;
    if (state) {
        const QList<Chart> charts = PatternUnit::of(state->object.kind).charts();
        QStringList titles, now;
        for (const Chart &c : charts)
            titles << c.title;
        for (const Chart &c : std::as_const(m_charts))
            now << c.title;
        if (titles != now)
            buildPlots(charts);
    }
    m_title->setText(
        state ? QStringLiteral("<b>%1</b> (%2)")
                    .arg(printableBytes(m_key).toHtmlEscaped(), patternId(state->object.kind))
              : tr("Select a row to see its charts."));
    for (QCustomPlot *plot : std::as_const(m_plots)) {
        plot->clearGraphs();
        plot->clearItems();
        plot->replot(QCustomPlot::rpQueuedReplot);
    }
}

void ChartPanel::refresh(const Snapshot &snapshot)
{
    m_last = snapshot;
    if (m_key.isEmpty() || !isVisible())
        return;
    const ObjectState *state = nullptr;
    for (const ObjectState &o : snapshot.objects) {
        if (o.object.key == m_key) {
            state = &o;
            break;
        }
    }
    if (!state)
        return;
    const double now = double(snapshot.server.timeMs);
    // The monitor publishes the history of the watched objects (the selected
    // ones) with each snapshot; the first after a selection brings it.
    const ObjectHistoryPtr history = snapshot.history.value(m_key);
    const bool fromFile = historyMode();
    const HistoryRangeBar::Mode mode = m_rangeBar->mode();
    const double range = double(m_rangeBar->spanMs()) / 1000.0;
    // History ranges: x in seconds since the epoch (a date-time axis), the
    // file's points then the live ones after them. The last-N ranges read
    // again once what was read is a minute behind.
    qint64 wantFrom = 0, wantTo = 0;
    if (fromFile) {
        wantFrom = mode == HistoryRangeBar::Mode::Custom
                       ? m_rangeBar->customFromMs()
                       : snapshot.server.timeMs - m_rangeBar->spanMs();
        wantTo = mode == HistoryRangeBar::Mode::Custom ? m_rangeBar->customToMs()
                                                       : snapshot.server.timeMs;
        const bool behind = mode != HistoryRangeBar::Mode::Custom
                            && snapshot.server.timeMs - m_loadedToMs > 60 * 1000;
        if (!m_loading && (!m_loaded || behind))
            loadHistory(m_loaded ? std::min(wantFrom, m_loadedFromMs) : wantFrom,
                        std::max(wantTo, m_loadedToMs));
    }
    auto series = [&](QCustomPlot *plot, int index, const QString &figure, const QString &name,
                      double scale) {
        while (plot->graphCount() <= index) {
            QCPGraph *g = plot->addGraph();
            g->setPen(QPen(seriesColor(plot->graphCount() - 1), 1.5));
        }
        QCPGraph *g = plot->graph(index);
        g->setName(name);
        QVector<double> keys, values;
        const QList<QPointF> points = history ? history->points(figure) : QList<QPointF>();
        double lastKey = -qInf();
        if (fromFile && m_loaded) {
            for (const QPointF &p : m_loaded->points(figure)) {
                if (std::isnan(p.y()))
                    continue;
                keys.append(p.x() / 1000.0);
                values.append(p.y() * scale);
                lastKey = p.x() / 1000.0;
            }
        }
        for (const QPointF &p : points) {
            if (std::isnan(p.y()))
                continue;
            if (fromFile) {
                if (p.x() / 1000.0 <= lastKey)
                    continue; // the file has it already
                if (mode == HistoryRangeBar::Mode::Custom && (p.x() < wantFrom || p.x() > wantTo))
                    continue;
                keys.append(p.x() / 1000.0);
            } else {
                keys.append((p.x() - now) / 1000.0);
            }
            values.append(p.y() * scale);
        }
        g->setData(keys, values, true);
    };
    const Reading &r = state->reading;
    for (int i = 0; i < m_plots.size() && i < m_charts.size(); ++i) {
        QCustomPlot *plot = m_plots.at(i);
        const Chart &chart = m_charts.at(i);
        if (chart.kind == Chart::Kind::WindowStrip) {
            drawStrip(plot, r, snapshot.server.timeMs);
            plot->replot(QCustomPlot::rpQueuedReplot);
            continue;
        }
        for (int j = 0; j < chart.series.size(); ++j)
            series(plot, j, chart.series.at(j).figure, chart.series.at(j).name,
                   chart.series.at(j).scale);
        plot->clearItems();
        if (chart.limitLine) {
            if (r.limit) {
                auto *line = new QCPItemStraightLine(plot);
                line->point1->setCoords(fromFile ? double(wantFrom) / 1000.0 : -range,
                                        double(*r.limit));
                line->point2->setCoords(fromFile ? double(wantTo) / 1000.0 : 0, double(*r.limit));
                line->setPen(QPen(Qt::red, 1, Qt::DashLine));
            }
            plot->yAxis->setRange(
                0, std::max<double>(1.0, double(r.limit.value_or(r.inWindow)) * 1.2));
        } else {
            plot->yAxis->rescale();
            plot->yAxis->setRangeLower(0);
        }
        plot->legend->setVisible(plot->graphCount() > 1);
        // Live: the last 15 minutes, always. History: placed once per range
        // or object, then where the operator pans and zooms it.
        m_settingX = true;
        if (!fromFile)
            plot->xAxis->setRange(-range, 0);
        else if (m_placeX)
            plot->xAxis->setRange(double(wantFrom) / 1000.0, double(wantTo) / 1000.0);
        m_settingX = false;
        plot->replot(QCustomPlot::rpQueuedReplot);
    }
    if (fromFile && m_loaded)
        m_placeX = false;
}

void ChartPanel::drawStrip(QCustomPlot *strip, const Reading &r, qint64 nowMs)
{
    // One point per request in the window, one per retry slot, around now.
    while (strip->graphCount() < 2) {
        QCPGraph *g = strip->addGraph();
        g->setLineStyle(QCPGraph::lsNone);
        g->setScatterStyle(
            QCPScatterStyle(QCPScatterStyle::ssDisc, seriesColor(strip->graphCount() - 1), 6));
    }
    strip->graph(0)->setName(tr("requests"));
    strip->graph(1)->setName(tr("retry slots"));
    QVector<double> wx, wy, rx, ry;
    for (qint64 t : r.windowTimes) {
        wx.append(double(t - nowMs) / 1000.0);
        wy.append(1.0);
    }
    for (qint64 t : r.retryTimes) {
        rx.append(double(t - nowMs) / 1000.0);
        ry.append(1.0);
    }
    strip->graph(0)->setData(wx, wy, true);
    strip->graph(1)->setData(rx, ry, true);
    strip->clearItems();
    auto *nowLine = new QCPItemStraightLine(strip);
    nowLine->point1->setCoords(0, 0);
    nowLine->point2->setCoords(0, 1);
    nowLine->setPen(QPen(palette().color(QPalette::Text), 1, Qt::DashLine));
    const double window = r.windowMs > 0 ? double(r.windowMs) / 1000.0 : 10.0;
    const double future = rx.isEmpty() ? window * 0.25 : std::max(window * 0.25, rx.last() + 0.5);
    strip->xAxis->setRange(-window, future);
    strip->yAxis->setRange(0, 2);
    strip->yAxis->setTicks(false);
    strip->legend->setVisible(true);
}

void ChartPanel::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::PaletteChange) {
        for (QCustomPlot *plot : std::as_const(m_plots)) {
            plot->setPalette(palette());
            styleForPalette(plot);
            plot->replot(QCustomPlot::rpQueuedReplot);
        }
    }
    QWidget::changeEvent(event);
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

bool ChartPanel::exportTo(const QString &fileName)
{
    // One image per plot, stacked: render the panel's plots into one file each
    // (name-N.ext) so every chart is kept at its on-screen size.
    bool ok = true;
    for (int i = 0; i < m_plots.size(); ++i) {
        QString name = fileName;
        if (i > 0)
            name.insert(name.lastIndexOf(QLatin1Char('.')), QStringLiteral("-%1").arg(i + 1));
        ok &= name.endsWith(QLatin1String(".pdf"), Qt::CaseInsensitive) ? m_plots[i]->savePdf(name)
                                                                        : m_plots[i]->savePng(name);
    }
    return ok;
}

} // namespace gatehouse
