// SPDX-License-Identifier: MIT
// The console keeps its charts across a restart: a MainWindow writes the
// connection's history file; a new one on the same connection shows the
// earlier samples in the chart's 1 h range (read off the GUI thread).
#include "redisserver.h"
#include "testconsole.h"

#include <actions/actionengine.h>
#include <chartpanel.h>
#include <historyrangebar.h>
#include <mainwindow.h>
#include <monitor/monitor.h>
#include <objecttablemodel.h>
#include <redis/redisclient.h>

#include <QSet>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include <qcustomplot.h>

using namespace gatehouse;
using gatehouse::test::call;
using gatehouse::test::RedisServer;

namespace {

struct Console : gatehouse::test::TestConsole
{
    Console(const RedisEndpoint &endpoint, const QString &historyFile, const QString &audit)
        : TestConsole(endpoint, audit, [&] {
            Options o;
            o.historyFile = historyFile;
            return o;
        }())
    {}
};

bool select(Console &c, const QString &section, const QByteArray &key)
{
    if (!QTest::qWaitFor([&] { return c.window->model(section)->rowOf(key) >= 0; }, 10000))
        return false;
    c.window->showPage(c.window->pageOf(section));
    QTableView *view = c.window->table(section);
    for (int row = 0; row < view->model()->rowCount(); ++row) {
        if (view->model()->index(row, 0).data(ObjectTableModel::KeyRole).toByteArray() == key) {
            view->selectRow(row);
            return true;
        }
    }
    return false;
}

// The in-window chart's points: x (s since the epoch in a history range), y.
QList<QPointF> chartPoints(ChartPanel *chart)
{
    QList<QPointF> out;
    const auto plots = chart->findChildren<QCustomPlot *>();
    if (plots.isEmpty() || plots.first()->graphCount() == 0)
        return out;
    const auto data = plots.first()->graph(0)->data();
    for (auto it = data->constBegin(); it != data->constEnd(); ++it)
        out.append(QPointF(it->key, it->value));
    return out;
}

} // namespace

class tst_HistoryGui : public QObject
{
    Q_OBJECT

private:
    RedisServer m_server;
    QTemporaryDir m_dir;

private slots:
    void initTestCase() { QVERIFY2(m_server.start(), qPrintable(m_server.errorString())); }

    void cleanupTestCase()
    {
        m_server.stop();
        QCOMPARE(RedisServer::runningChildren(), 0);
    }

    void chartsSurviveARestart()
    {
        const QString file = m_dir.filePath(QStringLiteral("history/console.sqlite"));
        const QString audit = m_dir.filePath(QStringLiteral("audit.jsonl"));
        const QString section = QStringLiteral("limiter");
        const QByteArray key = "sim:rl:api:1";
        auto planted = gatehouse::test::connectedClient(m_server);
        QVERIFY(planted);
        int planted_ = 0; // members are unique: two plants in one second add, not update
        const auto plant = [&](int n) {
            const QByteArray now = call(*planted, {"TIME"}).at(0).bytes();
            for (int i = 0; i < n; ++i)
                call(*planted,
                     {"ZADD", key, now + "000", "request-" + QByteArray::number(planted_++)});
        };
        plant(3);

        // The first console: samples for a few seconds, counts changing.
        qint64 firstEnd = 0;
        QSet<qint64> firstTimes; // server ms of the samples the first console charted
        {
            Console c(m_server.endpoint(), file, audit);
            QVERIFY(select(c, section, key));
            QSignalSpy ticks(c.monitor(), &Monitor::tickFinished);
            for (int round = 0; round < 3; ++round) {
                QTRY_VERIFY_WITH_TIMEOUT(ticks.size() >= 4 * (round + 1), 20000);
                plant(2);
            }
            // Until a tick has read all nine (a tick under way when the last
            // ones were planted may not have).
            const auto lastSeen = [&] {
                const Snapshot s = ticks.last().at(0).value<Snapshot>();
                const ObjectHistoryPtr h = s.history.value(key);
                const QList<QPointF> p
                    = h ? h->points(QStringLiteral("inWindow")) : QList<QPointF>();
                return p.isEmpty() ? -1.0 : p.last().y();
            };
            QTRY_VERIFY_WITH_TIMEOUT(ticks.size() >= 16 && lastSeen() == 9.0, 20000);
            const Snapshot last = ticks.last().at(0).value<Snapshot>();
            firstEnd = last.server.timeMs;
            for (const QPointF &p : last.history.value(key) ? last.history.value(key)->points(
                                        QStringLiteral("inWindow"))
                                                            : QList<QPointF>())
                firstTimes.insert(qint64(p.x()));
        } // closed: what was pending is written
        QVERIFY(firstEnd > 0);
        QVERIFY(!firstTimes.isEmpty());

        // The second console, same connection: the 1 h range has them.
        Console c(m_server.endpoint(), file, audit);
        QVERIFY(select(c, section, key));
        ChartPanel *chart = c.window->chart(section);
        QVERIFY(chart);
        QVERIFY(chart->rangeBar()->isEnabled());
        chart->rangeBar()->setMode(HistoryRangeBar::Mode::LastHour);
        // Read asynchronously; then points at or before the first console's
        // last tick (x in seconds since the epoch).
        QTRY_VERIFY_WITH_TIMEOUT(
            [&] {
                const QList<QPointF> points = chartPoints(chart);
                return !chart->isLoading() && !points.isEmpty()
                       && points.first().x() <= double(firstEnd) / 1000.0;
            }(),
            20000);
        const QList<QPointF> points = chartPoints(chart);
        int earlier = 0;
        QList<double> values;
        for (const QPointF &p : points) {
            if (p.x() <= double(firstEnd) / 1000.0) {
                ++earlier;
                values << p.y();
                // A tick of the first console, not an invented point.
                QVERIFY2(firstTimes.contains(qRound64(p.x() * 1000.0)),
                         qPrintable(QString::number(p.x(), 'f', 3)));
            }
        }
        QVERIFY2(earlier >= 10, qPrintable(QString::number(earlier)));
        // The counts the first console saw grow (3 planted, then 2 more a
        // round, all within the 10 s window): real samples.
        QString seen;
        for (double v : std::as_const(values))
            seen += QString::number(v) + QLatin1Char(' ');
        qInfo("in the file: %s; first console: %d samples", qPrintable(seen),
              int(firstTimes.size()));
        QVERIFY(values.first() >= 3);
        QCOMPARE(values.last(), 9.0);
    }
};

QTEST_MAIN(tst_HistoryGui)
#include "tst_historygui.moc"
