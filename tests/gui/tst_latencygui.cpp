// SPDX-License-Identifier: MIT
// Wait and run times in the console: a real BullMQ worker (npm) ran timed
// jobs after they waited, and the queue's "Wait time" and "Run time" charts
// draw their quantiles and the oldest waiting job; a Sidekiq job (Debian's
// ruby-sidekiq client) waits in the same server with no Sidekiq process, and
// the Overview says "no worker seen". Its screenshot is the docs'.
#include <chartpanel.h>
#include <englishplurals.h>
#include <overviewpage.h>

#include "chartprobe.h"
#include "librarytest.h"
#include "nodeapp.h"
#include "redisserver.h"
#include "testconsole.h"

#include <qcustomplot.h>

#include <QListWidget>
#include <QScrollArea>
#include <QSettings>
#include <QTemporaryDir>
#include <QtTest>

using namespace gatehouse;
using namespace gatehouse::test;

namespace {

const QString LibrariesDir = QStringLiteral(GATEHOUSE_LIBRARIES_DIR);

} // namespace

class tst_LatencyGui : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QCoreApplication::setOrganizationName(QStringLiteral("GatehouseTest"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_latencygui"));
        QSettings().clear();
        QCoreApplication::installTranslator(new EnglishPlurals(this));
    }

    void chartAndNoWorker()
    {
        QVERIFY2(QFile::exists(LibrariesDir + QStringLiteral("/node_modules/bullmq/package.json")),
                 "npm bullmq is missing: run .ci/install-deps");
        RedisServer server(RedisServer::Options{});
        QVERIFY(server.start());
        NodeApp app{QStringLiteral("bullmq"), server.url(), QStringLiteral("orders")};
        QCOMPARE(
            app.run(QStringLiteral("produce-timed"), {QStringLiteral("12"), QStringLiteral("150")}),
            QString());
        QTest::qWait(1000);
        {
            auto worker = app.start(QStringLiteral("work"), QStringLiteral("ran"), "working");
            std::unique_ptr<RedisClient> redis = connectedClient(server);
            QVERIFY(pollUntil(
                [&] {
                    return call(*redis, {"ZCARD", "bull:orders:completed"}).toInteger() == 12;
                },
                60000));
            stopProcess(worker);
        }
        QCOMPARE(app.run(QStringLiteral("produce"), QStringLiteral("2")), QString());
        // Sidekiq's own client enqueues a job no process will run.
        QProcess push;
        push.start(QStringLiteral("/usr/bin/ruby"),
                   {LibrariesDir + QStringLiteral("/sidekiq_app.rb"), server.url(),
                    QStringLiteral("push"), QStringLiteral("HangJob"), QStringLiteral("t1")});
        QVERIFY(push.waitForFinished(60000) && push.exitCode() == 0);

        QTemporaryDir dir;
        TestConsoleOptions options;
        options.autodetect = true;
        options.size = QSize(1400, 900);
        TestConsole console(server, dir.filePath(QStringLiteral("audit.jsonl")), options);

        // The Overview: the Sidekiq deployment waits on nobody.
        auto *attention = console.window->findChild<QListWidget *>(QStringLiteral("attention"));
        QVERIFY(attention);
        QString said;
        QVERIFY2(QTest::qWaitFor(
                     [&] {
                         for (int i = 0; i < attention->count(); ++i) {
                             said = attention->item(i)->text();
                             if (said.contains(QLatin1String("no worker seen")))
                                 return true;
                         }
                         return false;
                     },
                     15000),
                 qPrintable(said));
        QVERIFY2(said.contains(QLatin1String("no worker seen, 1 job waiting, oldest ")),
                 qPrintable(said));

        // The queue's wait and run charts: their quantiles and the oldest waiting.
        QVERIFY(console.select(QStringLiteral("queue"), "bull:orders"));
        ChartPanel *panel = console.window->chart(QStringLiteral("queue"));
        QCustomPlot *waitPlot = plotTitled(panel, QStringLiteral("Wait time"));
        QCustomPlot *runPlot = plotTitled(panel, QStringLiteral("Run time"));
        QCustomPlot *oldestPlot = plotTitled(panel, QStringLiteral("Oldest waiting"));
        QVERIFY(waitPlot && runPlot && oldestPlot);
        // The oldest job's minutes do not share an axis with the quantiles'
        // milliseconds (it would flatten them onto zero).
        QVERIFY(!graphNamed(waitPlot, QStringLiteral("oldest waiting")));
        const auto pointsOf = [&](QCustomPlot *plot, const QString &name) {
            QCPGraph *g = graphNamed(plot, name);
            return g ? g->dataCount() : -1;
        };
        QVERIFY2(QTest::qWaitFor(
                     [&] {
                         return pointsOf(waitPlot, QStringLiteral("p95")) >= 3
                                && pointsOf(runPlot, QStringLiteral("p50")) >= 3
                                && pointsOf(oldestPlot, QStringLiteral("oldest waiting")) >= 3;
                     },
                     15000),
                 qPrintable(QStringLiteral("points: wait p95 %1, run p50 %2")
                                .arg(pointsOf(waitPlot, QStringLiteral("p95")))
                                .arg(pointsOf(runPlot, QStringLiteral("p50")))));
        // In seconds: every job waited a second for the worker, ran 150 ms;
        // two jobs wait now, since before the console started.
        const auto last = [&](QCustomPlot *plot, const QString &name) {
            QCPGraph *g = graphNamed(plot, name);
            return (g->data()->constEnd() - 1)->value;
        };
        const double wait = last(waitPlot, QStringLiteral("p95"));
        const double run = last(runPlot, QStringLiteral("p50"));
        const double oldest = last(oldestPlot, QStringLiteral("oldest waiting"));
        QVERIFY2(wait >= 1.0 && wait < 10.0, qPrintable(QString::number(wait)));
        QVERIFY2(run >= 0.15 && run < 2.0, qPrintable(QString::number(run)));
        QVERIFY2(oldest > 0 && oldest < 60.0, qPrintable(QString::number(oldest)));

        // The Queues page says what the Overview says: the Sidekiq queue's
        // Status (the row beside the chart's in the picture).
        ObjectTableModel *queues = console.window->model(QStringLiteral("queue"));
        int sidekiqRow = -1;
        for (int r = 0; r < queues->rowCount(); ++r) {
            const ObjectState *s = queues->stateAt(r);
            if (s && s->object->kind.id() == QLatin1String("sidekiq"))
                sidekiqRow = r;
        }
        QVERIFY(sidekiqRow >= 0);
        QTRY_COMPARE(queues->index(sidekiqRow, queues->statusColumn()).data().toString(),
                     QStringLiteral("no worker seen"));

        // The picture is of the wait and run charts: the chart area under
        // the job browser scrolled to them, as an operator scrolls it.
        auto *scroll = panel->findChild<QScrollArea *>(QStringLiteral("chartScroll"));
        QVERIFY(scroll);
        scroll->ensureWidgetVisible(waitPlot, 0, 0);

        QTest::qWait(1500); // a few more points, for the picture
        const QString shot = QStringLiteral(GATEHOUSE_SCREENSHOT_DIR "/job-latency.png");
        QVERIFY(console.window->grab().save(shot));
    }
};

QTEST_MAIN(tst_LatencyGui)
#include "tst_latencygui.moc"
