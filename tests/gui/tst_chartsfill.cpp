// SPDX-License-Identifier: MIT
// Live charts are full from the first second: the axis fits the data until
// the 15-minute range fills, a chart starts from what the history file
// already holds for the object (an earlier run's), and a figure that has
// been 0 throughout folds to one line. A limiter's charts, a queue's (a
// hand-written reliable queue of the demo profile) and the Overview's sums
// over every queue. Real widgets (offscreen) on a real redis-server.

#include "chartprobe.h"
#include "redisserver.h"
#include "testconsole.h"

#include <chartpanel.h>
#include <chartscale.h>
#include <history/historystore.h>
#include <overviewpage.h>
#include <patterns/reliable-queue/reliablequeueunit.h>
#include <sectionpage.h>

#include <qcustomplot.h>

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QtTest>

using namespace gatehouse;
using gatehouse::test::call;
using gatehouse::test::graphNamed;
using gatehouse::test::plotTitled;
using gatehouse::test::RedisServer;
using gatehouse::test::TestConsole;

namespace {

// The plots of the chart panel that draw figures over time (not the window strip).
QList<QCustomPlot *> plots(ChartPanel *chart)
{
    return chart->findChildren<QCustomPlot *>();
}

double oldestKey(QCustomPlot *plot)
{
    double oldest = 0;
    for (int g = 0; g < plot->graphCount(); ++g) {
        if (!plot->graph(g)->data()->isEmpty())
            oldest = std::min(oldest, plot->graph(g)->data()->constBegin()->key);
    }
    return oldest;
}

// What an earlier run wrote for a reliable queue: one tick a second over
// [fromMs, toMs] (server time), each of ReliableQueueUnit's figures by its
// id, written by the history store the console itself uses, then closed.
void plantQueueHistory(const QString &path, const QByteArray &key, qint64 fromMs, qint64 toMs,
                       const QHash<QString, double> &values)
{
    const QList<Figure> figures = PatternUnit::of(ReliableQueueUnit::Kind).figures();
    HistoryStore store(path);
    store.open();
    for (qint64 t = fromMs; t <= toMs; t += 1000) {
        HistoryTick tick;
        tick.atMs = t;
        HistoryTick::Entry e;
        e.key = key;
        e.kind = ReliableQueueUnit::Kind;
        e.figures = int(figures.size());
        for (int f = 0; f < figures.size(); ++f)
            e.values[f] = values.value(figures.at(f).id, -1.0);
        tick.entries.append(e);
        store.append(std::move(tick));
        if ((t - fromMs) % 60000 == 59000)
            store.flush(); // never more pending than it keeps (maxPendingTicks)
    }
    store.flush();
}

// "x axis -252.1 .. 0 s, oldest point -240.3 s"
QString axisText(QCustomPlot *plot)
{
    return QStringLiteral("x axis %1 .. %2 s, oldest point %3 s")
        .arg(plot->xAxis->range().lower)
        .arg(plot->xAxis->range().upper)
        .arg(oldestKey(plot));
}

// Waits until plot's series named series holds an earlier run's samples
// (its oldest point before olderThanS, more than filePoints + 2 points) and
// then this console's own, its newest value live; false on timeout.
bool waitForFileThenLive(QCustomPlot *plot, const QString &series, double olderThanS,
                         qsizetype filePoints, double live, int timeoutMs)
{
    return QTest::qWaitFor(
        [&] {
            const QCPGraph *g = gatehouse::test::graphNamed(plot, series);
            return g && oldestKey(plot) < olderThanS && g->dataCount() > filePoints + 2
                   && (g->data()->constEnd() - 1)->value == live;
        },
        timeoutMs);
}

} // namespace

class TestChartsFill : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(m_server.start(), qPrintable(m_server.errorString()));
        m_client = gatehouse::test::connectedClient(m_server);
        QVERIFY(m_client);
    }

    void init() { QCOMPARE(call(*m_client, {"FLUSHALL"}).bytes(), QByteArray("OK")); }
    void cleanupTestCase() { m_client.reset(); }

    // A limiter watched for a few seconds: its "In window" chart spans about
    // the seconds it has data for (10 s at least), not 15 minutes with the
    // points in its last pixels; the axis ends at now.
    void liveAxisFitsTheData()
    {
        const qint64 now = call(*m_client, {"TIME"}).at(0).toInteger() * 1000;
        for (int i = 0; i < 3; ++i)
            call(*m_client, {"ZADD", "sim:rl:api:1", QByteArray::number(now - i * 100),
                             QByteArray("r") + QByteArray::number(i)});
        QTemporaryDir dir;
        TestConsole c(m_server, dir.filePath(QStringLiteral("audit.jsonl")));
        const QString section = QStringLiteral("limiter");
        QVERIFY(c.select(section, "sim:rl:api:1"));
        ChartPanel *chart = c.window->sectionPage(section)->chart();
        QTRY_VERIFY_WITH_TIMEOUT(chart->pointCount() > 4, 10000);
        QCustomPlot *inWindow = plots(chart).value(0);
        QVERIFY(inWindow && inWindow->isVisible());
        QTRY_VERIFY_WITH_TIMEOUT(inWindow->graph(0)->dataCount() > 2, 10000);
        inWindow->replot();
        const QCPRange x = inWindow->xAxis->range();
        QVERIFY2(x.lower > -120 && x.lower <= -10 && qFuzzyIsNull(x.upper),
                 qPrintable(QStringLiteral("x axis %1 .. %2 s").arg(x.lower).arg(x.upper)));
        QVERIFY(oldestKey(inWindow) >= x.lower);
    }

    // A limiter whose requests all left the window and that never asked a
    // caller to retry: its figures are 0 throughout, so both charts are one
    // line each and only the window strip is drawn.
    void zeroThroughoutFolds()
    {
        const qint64 now = call(*m_client, {"TIME"}).at(0).toInteger() * 1000;
        call(*m_client, {"ZADD", "sim:rl:api:2", QByteArray::number(now - 60000), "old"});
        QTemporaryDir dir;
        TestConsole c(m_server, dir.filePath(QStringLiteral("audit.jsonl")));
        const QString section = QStringLiteral("limiter");
        QVERIFY(c.select(section, "sim:rl:api:2"));
        ChartPanel *chart = c.window->sectionPage(section)->chart();
        QTRY_VERIFY_WITH_TIMEOUT(
            chart->foldedCharts().contains(QStringLiteral("In window: 0 throughout this range")),
            10000);
        const QStringList folded = chart->foldedCharts();
        QVERIFY2(folded.size() == 2 && folded.at(1).startsWith(QLatin1String("Retry horizon: ")),
                 qPrintable(folded.join(QLatin1String(" | "))));
        int visible = 0;
        for (QCustomPlot *p : plots(chart))
            visible += p->isVisible() ? 1 : 0;
        QCOMPARE(visible, 1); // the window strip

        // A request in the window: the chart is drawn again.
        call(*m_client, {"ZADD", "sim:rl:api:2", QByteArray::number(now + 1000), "new"});
        QTRY_VERIFY_WITH_TIMEOUT(
            !chart->foldedCharts().contains(QStringLiteral("In window: 0 throughout this range")),
            10000);
        QVERIFY(plots(chart).value(0)->isVisible());
    }

    // A console opened on an object an earlier console watched: its chart
    // starts from the earlier run's points in the history file, older than
    // anything this console has read itself.
    void liveChartStartsFromHistoryFile()
    {
        const qint64 now = call(*m_client, {"TIME"}).at(0).toInteger() * 1000;
        call(*m_client, {"ZADD", "sim:rl:api:3", QByteArray::number(now), "a"});
        call(*m_client, {"PEXPIRE", "sim:rl:api:3", "600000"});
        QTemporaryDir dir;
        TestConsole::Options o;
        o.historyFile = dir.filePath(QStringLiteral("history.sqlite"));
        const QString section = QStringLiteral("limiter");
        {
            TestConsole first(m_server, dir.filePath(QStringLiteral("audit.jsonl")), o);
            QVERIFY(first.select(section, "sim:rl:api:3"));
            ChartPanel *chart = first.window->sectionPage(section)->chart();
            QTRY_VERIFY_WITH_TIMEOUT(chart->pointCount() > 10, 10000);
            QTest::qWait(3000);
        } // closed: its samples are in the file
        QTest::qWait(3000);

        QElapsedTimer opened;
        opened.start();
        TestConsole second(m_server, dir.filePath(QStringLiteral("audit.jsonl")), o);
        QVERIFY(second.select(section, "sim:rl:api:3"));
        ChartPanel *chart = second.window->sectionPage(section)->chart();
        QCustomPlot *inWindow = plots(chart).value(0);
        QVERIFY(inWindow);
        QVERIFY2(QTest::qWaitFor(
                     [&] {
                         return inWindow->graphCount() > 0
                                && oldestKey(inWindow) < -(opened.elapsed() / 1000.0 + 2.0);
                     },
                     10000),
                 qPrintable(QStringLiteral("oldest point %1 s, console open %2 s")
                                .arg(oldestKey(inWindow))
                                .arg(opened.elapsed() / 1000.0)));
    }

    // A queue an earlier console watched for two minutes, four minutes
    // ago (8 jobs waiting then): its "Length and in flight" chart starts at
    // the file's first sample, the time axis beginning just before it (5%),
    // not 15 minutes back with the data in its last pixels; the file's
    // points come before this console's own (3 waiting now). Nothing was
    // ever in flight: "Oldest in flight" is one line.
    void queueChartStartsFromHistoryFile()
    {
        const QByteArray key = "sim:jobs:fill";
        const qint64 now = call(*m_client, {"TIME"}).at(0).toInteger() * 1000;
        QTemporaryDir dir;
        TestConsole::Options o;
        o.historyFile = dir.filePath(QStringLiteral("history.sqlite"));
        plantQueueHistory(o.historyFile, key, now - 240000, now - 120000,
                          {{QStringLiteral("length"), 8},
                           {QStringLiteral("inFlight"), 0},
                           {QStringLiteral("stuck"), 0}});
        call(*m_client, {"RPUSH", key, "j1", "j2", "j3"});

        TestConsole c(m_server, dir.filePath(QStringLiteral("audit.jsonl")), o);
        const QString section = QStringLiteral("queue");
        QVERIFY(c.select(section, key));
        ChartPanel *chart = c.window->sectionPage(section)->chart();
        QCustomPlot *lengths = plotTitled(chart, QStringLiteral("Length and in flight"));
        QVERIFY(lengths);
        const auto length = [&] {
            return graphNamed(lengths, QStringLiteral("length"));
        };
        // The file's first sample, about 240 s back, and this console's own.
        QVERIFY2(waitForFileThenLive(lengths, QStringLiteral("length"), -230, 121, 3, 10000),
                 qPrintable(axisText(lengths)));
        lengths->replot();
        QVERIFY(lengths->isVisible());
        const double first = length()->data()->constBegin()->key;
        QVERIFY2(first < -240 && first > -260, qPrintable(axisText(lengths)));
        QCOMPARE(length()->data()->constBegin()->value, 8.0);
        const QCPRange x = lengths->xAxis->range();
        QVERIFY2(x.lower <= first && x.lower >= first * 1.05 - 1 && qFuzzyIsNull(x.upper),
                 qPrintable(axisText(lengths)));
        QCustomPlot *oldest = plotTitled(chart, QStringLiteral("Oldest in flight"));
        QVERIFY(oldest);
        QTRY_COMPARE(chart->foldedCharts(),
                     QStringList{QStringLiteral("Oldest in flight: none in this range")});
        QVERIFY(!oldest->isVisible());
    }

    // A queue drained long ago, with a dead letter left (the list that
    // names it): nothing waiting, nothing in flight, throughout. Both its
    // charts fold to a line each; a job pushed draws the chart again.
    void queueZeroThroughoutFolds()
    {
        const QByteArray key = "sim:jobs:drained";
        call(*m_client, {"RPUSH", key + ":dead", "lost"});
        QTemporaryDir dir;
        TestConsole c(m_server, dir.filePath(QStringLiteral("audit.jsonl")));
        const QString section = QStringLiteral("queue");
        QVERIFY(c.select(section, key));
        ChartPanel *chart = c.window->sectionPage(section)->chart();
        const QString zero = QStringLiteral("Length and in flight: 0 throughout this range");
        QTRY_VERIFY_WITH_TIMEOUT(chart->foldedCharts().contains(zero), 10000);
        QCOMPARE(chart->foldedCharts(),
                 (QStringList{zero, QStringLiteral("Oldest in flight: none in this range")}));
        for (QCustomPlot *p : plots(chart))
            QVERIFY(!p->isVisible());
        QCustomPlot *lengths = plotTitled(chart, QStringLiteral("Length and in flight"));
        QVERIFY(lengths && drawnPoints(lengths) > 0); // zeros drawn, then folded

        call(*m_client, {"RPUSH", key, "j1"});
        QTRY_VERIFY_WITH_TIMEOUT(!chart->foldedCharts().contains(zero), 10000);
        QVERIFY(lengths->isVisible());
        QCOMPARE(chart->foldedCharts(),
                 QStringList{QStringLiteral("Oldest in flight: none in this range")});
    }

    // The Overview's "every queue" charts, live, start from what the
    // history file holds for the queues (an earlier run's), although the
    // chart's first read of the file comes before the console knows any
    // queue: when the first queues are summed, the file is read again.
    void overviewChartStartsFromHistoryFile()
    {
        const QByteArray key = "sim:jobs:overview";
        const qint64 now = call(*m_client, {"TIME"}).at(0).toInteger() * 1000;
        QTemporaryDir dir;
        TestConsole::Options o;
        o.historyFile = dir.filePath(QStringLiteral("history.sqlite"));
        plantQueueHistory(o.historyFile, key, now - 240000, now - 120000,
                          {{QStringLiteral("length"), 8},
                           {QStringLiteral("inFlight"), 5},
                           {QStringLiteral("stuck"), 0}});
        call(*m_client, {"RPUSH", key, "j1"});
        call(*m_client, {"RPUSH", key + ":processing", "j2", "j3"});

        TestConsole c(m_server, dir.filePath(QStringLiteral("audit.jsonl")), o);
        auto *overview = qobject_cast<OverviewPage *>(c.window->page(0));
        QVERIFY(overview);
        c.window->showPage(0);
        ChartPanel *chart = overview->queueChart();
        QCustomPlot *plot = plotTitled(chart, QStringLiteral("Stuck and in flight"));
        QVERIFY(plot);
        const auto inFlight = [&] {
            return graphNamed(plot, QStringLiteral("in flight"));
        };
        // The file's 121 samples, about 240 s back, then this console's own
        // (2 in flight now).
        QVERIFY2(waitForFileThenLive(plot, QStringLiteral("in flight"), -230, 121, 2, 15000),
                 qPrintable(axisText(plot)));
        QCOMPARE(inFlight()->data()->constBegin()->value, 5.0);
        QVERIFY(plot->isVisible());
        QVERIFY(!chart->foldedCharts().contains(
            QStringLiteral("Stuck and in flight: 0 throughout this range")));
    }

    // Every queue idle (a drained queue with a dead letter left): nothing
    // stuck, nothing in flight, nothing finished. The Overview's charts fold
    // to a line each, as an object's do, and the attention list gets the
    // room; a job taken (in flight) draws the chart again.
    void overviewChartsFoldWhenEveryQueueIsIdle()
    {
        const QByteArray key = "sim:jobs:idle";
        call(*m_client, {"RPUSH", key + ":dead", "lost"});
        QTemporaryDir dir;
        TestConsole c(m_server, dir.filePath(QStringLiteral("audit.jsonl")));
        auto *overview = qobject_cast<OverviewPage *>(c.window->page(0));
        QVERIFY(overview);
        c.window->showPage(0);
        ChartPanel *chart = overview->queueChart();
        const QStringList idle{QStringLiteral("Stuck and in flight: 0 throughout this range"),
                               QStringLiteral("Throughput: 0 throughout this range")};
        // The throughput needs 10 s of samples before it says anything.
        QTRY_COMPARE_WITH_TIMEOUT(chart->foldedCharts(), idle, 20000);
        for (QCustomPlot *p : plots(chart))
            QVERIFY(!p->isVisible());
        QVERIFY(chart->maximumHeight() < 200);

        call(*m_client, {"RPUSH", key + ":processing", "j1"});
        QTRY_COMPARE_WITH_TIMEOUT(chart->foldedCharts(), idle.mid(1), 10000);
        QVERIFY(plotTitled(chart, QStringLiteral("Stuck and in flight"))->isVisible());
    }

private:
    RedisServer m_server;
    std::unique_ptr<RedisClient> m_client;
};

QTEST_MAIN(TestChartsFill)
#include "tst_chartsfill.moc"
