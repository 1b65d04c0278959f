// SPDX-License-Identifier: MIT
// Live charts are full from the first second: the axis fits the data until
// the 15-minute range fills, a chart starts from what the history file
// already holds for the object (an earlier run's), and a figure that has
// been 0 throughout folds to one line. Real widgets (offscreen) on a real
// redis-server.

#include "redisserver.h"
#include "testconsole.h"

#include <chartpanel.h>
#include <sectionpage.h>

#include <qcustomplot.h>

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QtTest>

using namespace gatehouse;
using gatehouse::test::call;
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

private:
    RedisServer m_server;
    std::unique_ptr<RedisClient> m_client;
};

QTEST_MAIN(TestChartsFill)
#include "tst_chartsfill.moc"
