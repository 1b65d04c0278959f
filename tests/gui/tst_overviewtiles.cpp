// SPDX-License-Identifier: MIT
// The Overview's tiles against a real redis-server, offscreen: each counts
// the planted structures the way their pages show them (stuck and dead jobs,
// legacy locks past their expiry), draws a trend of the count, and a click
// opens the page on the worst object; the attention list leaves out locks
// held briefly. (The limiter tile is not asserted here yet: see the report.)
#include <actions/actionengine.h>
#include <chartpanel.h>
#include <mainwindow.h>
#include <monitor/monitor.h>
#include <overviewpage.h>
#include <overviewtiles.h>
#include <queueactivity.h>
#include <redis/redisclient.h>
#include <sectionpage.h>

#include "redisserver.h"
#include "testconsole.h"

#include <QListWidget>
#include <QTemporaryDir>
#include <QTest>

#include <qcustomplot.h>

using namespace gatehouse;
using gatehouse::test::call;
using gatehouse::test::RedisServer;

namespace {

using Console = gatehouse::test::TestConsole;

} // namespace

class tst_OverviewTiles : public QObject
{
    Q_OBJECT

private:
    RedisServer m_server;
    std::unique_ptr<RedisClient> m_client;
    QTemporaryDir m_dir;

    qint64 serverNow()
    {
        const RedisValue t = call(*m_client, {"TIME"});
        return t.at(0).toInteger() * 1000 + t.at(1).toInteger() / 1000;
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(m_server.start(), qPrintable(m_server.errorString()));
        m_client = gatehouse::test::connectedClient(m_server);
        QVERIFY(m_client);
        // Keyspace events: a changed key is read again at once.
        call(*m_client, {"CONFIG", "SET", "notify-keyspace-events", "KEA"});
    }
    void init() { call(*m_client, {"FLUSHALL"}); }

    void tilesCountPlantedStructures()
    {
        const qint64 now = serverNow();
        // Queues: two jobs claimed 90 s ago (stuck after 30 s) and three
        // dead in sim:jobs:mail; one dead in sim:jobs:other.
        call(*m_client, {"RPUSH", "sim:jobs:mail", "waiting"});
        call(*m_client, {"LPUSH", "sim:jobs:mail:processing", "j1", "j2"});
        call(*m_client, {"ZADD", "sim:jobs:mail:claims", QByteArray::number(now - 90000), "j1",
                         QByteArray::number(now - 90000), "j2"});
        call(*m_client, {"RPUSH", "sim:jobs:mail:dead", "d1", "d2", "d3"});
        call(*m_client, {"RPUSH", "sim:jobs:other", "waiting"});
        call(*m_client, {"RPUSH", "sim:jobs:other:dead", "d4"});
        // Legacy locks: one ten minutes past its expiry (its holder crashed),
        // one not yet expired; a lock just taken (routine churn).
        call(*m_client, {"SET", "sim:lock.legacy:0", QByteArray::number(now / 1000 - 600)});
        call(*m_client, {"SET", "sim:lock.legacy:1", QByteArray::number(now / 1000 + 600)});
        call(*m_client, {"SET", "sim:lock:1", "a1b2c3d4e5f6a7b8", "PX", "60000"});
        // Limiters (the demo profile's api windows allow 20 in 10 s): one
        // full, one at 85 %, one at half. Two count, once each.
        for (const auto &[key, n] : {std::pair{"sim:rl:api:1", 20}, std::pair{"sim:rl:api:2", 17},
                                     std::pair{"sim:rl:api:3", 10}}) {
            for (int i = 0; i < n; ++i)
                call(*m_client,
                     {"ZADD", key, QByteArray::number(now - i * 10), "r" + QByteArray::number(i)});
            call(*m_client, {"PEXPIRE", key, "600000"});
        }

        Console c(m_server, m_dir.filePath(QStringLiteral("audit.jsonl")));
        auto *overview = qobject_cast<OverviewPage *>(c.window->page(0));
        QVERIFY(overview);
        OverviewTiles *tiles = overview->tiles();
        const auto counts = [&] {
            return QStringLiteral("stuck %1, dead %2, limiters %3, expired %4")
                .arg(tiles->tile(QStringLiteral("tileStuck"))->count())
                .arg(tiles->tile(QStringLiteral("tileDead"))->count())
                .arg(tiles->tile(QStringLiteral("tileLimited"))->count())
                .arg(tiles->tile(QStringLiteral("tileExpired"))->count());
        };
        QTRY_COMPARE_WITH_TIMEOUT(counts(),
                                  QStringLiteral("stuck 2, dead 4, limiters 2, expired 1"), 10000);
        QCOMPARE(tiles->tile(QStringLiteral("tileLimited"))->tile().worst,
                 QByteArray("sim:rl:api:1"));
        QCOMPARE(tiles->tile(QStringLiteral("tileStuck"))->tile().worst,
                 QByteArray("sim:jobs:mail"));
        QCOMPARE(tiles->tile(QStringLiteral("tileDead"))->tile().worst,
                 QByteArray("sim:jobs:mail"));
        QCOMPARE(tiles->tile(QStringLiteral("tileExpired"))->tile().worst,
                 QByteArray("sim:lock.legacy:0"));
        // A trend: one point per snapshot, the count over time.
        QTRY_VERIFY_WITH_TIMEOUT(tiles->tile(QStringLiteral("tileDead"))->trend().size() >= 3,
                                 5000);
        QCOMPARE(tiles->tile(QStringLiteral("tileDead"))->trend().last().y(), 4.0);

        // The attention list: the crashed legacy lock in words, the lock
        // just taken left out.
        QListWidget *list = overview->attentionList();
        bool legacy = false;
        for (int i = 0; i < list->count(); ++i) {
            const QString text = list->item(i)->text();
            QVERIFY2(!text.contains(QLatin1String("sim:lock:1")), qPrintable(text));
            legacy = legacy
                     || (text.contains(QLatin1String("sim:lock.legacy:0"))
                         && text.contains(QLatin1String("holder crashed")));
        }
        QVERIFY(legacy);

        // A click opens the page on the worst object.
        QTest::mouseClick(tiles->tile(QStringLiteral("tileDead")), Qt::LeftButton);
        QCOMPARE(c.window->currentPage(), c.window->pageOf(QStringLiteral("queue")));
        QTRY_VERIFY(c.window->sectionPage(QStringLiteral("queue"))->selected());
        QCOMPARE(c.window->sectionPage(QStringLiteral("queue"))->selected()->object->key,
                 QByteArray("sim:jobs:mail"));
        c.window->showPage(0);
        QTest::mouseClick(tiles->tile(QStringLiteral("tileExpired")), Qt::LeftButton);
        QCOMPARE(c.window->currentPage(), c.window->pageOf(QStringLiteral("lock")));
        QTRY_VERIFY(c.window->sectionPage(QStringLiteral("lock"))->selected());
        QCOMPARE(c.window->sectionPage(QStringLiteral("lock"))->selected()->object->key,
                 QByteArray("sim:lock.legacy:0"));
    }

    // Nothing to count: every tile says 0 and a click opens nothing.
    void emptyTilesOpenNothing()
    {
        Console c(m_server, m_dir.filePath(QStringLiteral("audit.jsonl")));
        auto *overview = qobject_cast<OverviewPage *>(c.window->page(0));
        OverviewTiles *tiles = overview->tiles();
        QTRY_VERIFY_WITH_TIMEOUT(tiles->tile(QStringLiteral("tileStuck"))->trend().size() >= 2,
                                 10000);
        for (OverviewTile *t :
             {tiles->tile(QStringLiteral("tileStuck")), tiles->tile(QStringLiteral("tileDead")),
              tiles->tile(QStringLiteral("tileLimited")),
              tiles->tile(QStringLiteral("tileExpired"))})
            QCOMPARE(t->count(), 0);
        QTest::mouseClick(tiles->tile(QStringLiteral("tileDead")), Qt::LeftButton);
        QCOMPARE(c.window->currentPage(), 0);
    }

    // Issue 19: at 1280x800 the Overview's queue charts have a readable
    // plot (at least 120 px high each), and the attention list still shows
    // five of its items.
    void queueChartsAreReadableAt1280x800()
    {
        const qint64 now = serverNow();
        for (int i = 0; i < 6; ++i) { // windows 90 % full: six items to attend to
            QList<QByteArray> zadd{"ZADD", "sim:rl:api:" + QByteArray::number(i)};
            for (int j = 0; j < 18; ++j)
                zadd << QByteArray::number(now + 3'600'000 + j) << "r" + QByteArray::number(j);
            QCOMPARE(call(*m_client, zadd).toInteger(), 18);
        }
        // Jobs in flight: the charts have something to draw (idle queues
        // fold them to a line each).
        QCOMPARE(call(*m_client, {"RPUSH", "sim:jobs:busy:processing", "j1", "j2"}).toInteger(), 2);
        Console::Options o;
        o.size = QSize(1280, 800);
        Console c(m_server, m_dir.filePath(QStringLiteral("audit.jsonl")), o);
        auto *overview = qobject_cast<OverviewPage *>(c.window->page(0));
        QVERIFY(overview);
        c.window->showPage(0);
        QListWidget *list = overview->attentionList();
        QTRY_VERIFY_WITH_TIMEOUT(list->count() >= 6, 10000);
        QTest::qWait(300); // the page's layout settles
        QCOMPARE(c.window->size(), QSize(1280, 800));
        const QList<QCustomPlot *> plots = overview->queueChart()->findChildren<QCustomPlot *>();
        QVERIFY(!plots.isEmpty());
        QTRY_VERIFY(overview->queueChart()->pointCount() > 0);
        QVERIFY(!overview->queueChart()->foldedCharts().contains(
            QStringLiteral("Stuck and in flight: 0 throughout this range")));
        int shown = 0;
        for (QCustomPlot *plot : plots) {
            if (!plot->isVisible())
                continue; // folded (the throughput once 0 for 10 s)
            ++shown;
            plot->replot(); // lays the plot out at its size now
            QVERIFY2(plot->axisRect()->height() >= 120,
                     qPrintable(QStringLiteral("%1: %2 px of plot (the plot widget %3 px high)")
                                    .arg(plot->objectName())
                                    .arg(plot->axisRect()->height())
                                    .arg(plot->height())));
        }
        QVERIFY(shown >= 1);
        QVERIFY2(list->viewport()->height() >= 5 * list->sizeHintForRow(0),
                 qPrintable(QStringLiteral("the attention list %1 px, a row %2 px")
                                .arg(list->viewport()->height())
                                .arg(list->sizeHintForRow(0))));
    }

    // A queue that keeps no count of finished jobs (a reliable queue: its
    // rate from LREM events) counts in the Overview's throughput: the demo's
    // said "0 throughout this range" while the Queues page said 2.0 /s.
    void everyQueueCountsAReliableQueuesRate()
    {
        QueueActivity activity;
        ObjectState q;
        q.object.edit().kind = PatternKind("reliable-queue");
        q.object.edit().key = "sim:jobs:mail";
        q.reading.editQueue().length = 3;
        q.throughputPerS = 2.0;
        ObjectState idle = q;
        idle.object.edit().key = "sim:jobs:idle";
        idle.throughputPerS = -1; // no events yet: unknown, not counted
        for (int tick = 0; tick <= 10; ++tick) {
            Snapshot snapshot;
            snapshot.server.timeMs = 1'700'000'000'000 + tick * 1000;
            q.reading.atMs = idle.reading.atMs = snapshot.server.timeMs;
            snapshot.objects = {q, idle};
            activity.record(snapshot);
        }
        const ObjectHistoryPtr history = activity.history();
        const int processed = int(history->figures.indexOf(QStringLiteral("processed")));
        QVERIFY(processed >= 0);
        const QList<QPointF> &finished = history->series.at(processed);
        QCOMPARE(finished.size(), 11);
        // Finished jobs so far: 2 a second for 10 s.
        QCOMPARE(finished.first().y(), 0.0);
        QVERIFY2(qAbs(finished.last().y() - 20.0) < 1e-9,
                 qPrintable(QString::number(finished.last().y())));
    }

    void cleanupTestCase()
    {
        m_client.reset();
        m_server.stop();
        QCOMPARE(RedisServer::runningChildren(), 0);
    }
};

QTEST_MAIN(tst_OverviewTiles)
#include "tst_overviewtiles.moc"
