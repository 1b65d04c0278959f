// SPDX-License-Identifier: MIT
// The Nodes page in the main window (offscreen), fed by a real monitor: the
// six nodes of a Cluster with their roles and slots, the master and replica
// of a Sentinel deployment, and a SENTINEL FAILOVER followed as it happens;
// a standalone server's figures as the Overview shows them; each node charted.
#include <actions/actionengine.h>
#include <chartpanel.h>
#include <mainwindow.h>
#include <monitor/monitor.h>
#include <nodecharts.h>
#include <nodespage.h>
#include <objecttablemodel.h>
#include <redis/hashslot.h>
#include <redis/redisclient.h>
#include <serverpanel.h>

#include "rediscluster.h"
#include "redissentinel.h"
#include "testconsole.h"

#include <QApplication>
#include <QFontMetrics>
#include <QHeaderView>
#include <QLocale>
#include <QScrollBar>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

#include <qcustomplot.h>

using namespace gatehouse;
using gatehouse::test::RedisCluster;
using gatehouse::test::RedisSentinel;
using gatehouse::test::RedisServer;

namespace {

struct Console : gatehouse::test::TestConsole
{
    using TestConsole::TestConsole;
    NodesPage *nodes() const { return page<NodesPage>(QStringLiteral("Nodes")); }
};

QString cell(NodesPage *page, int row, int column)
{
    const QTableWidgetItem *item = page->table()->item(row, column);
    return item ? item->text() : QString();
}

// Selects key's row on the locks page, as an operator would; false if it
// never shows up.
bool selectLock(Console &c, const QByteArray &key)
{
    const QString section = QStringLiteral("lock");
    if (!QTest::qWaitFor([&] { return c.window->model(section)->rowOf(key) >= 0; }, 20000))
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

// Sets a lock through a client of its own (routed on a Cluster).
bool plantLock(const RedisEndpoint &endpoint, const QByteArray &key)
{
    auto client = gatehouse::test::connectedClient(endpoint);
    return client
           && gatehouse::test::call(*client, {"SET", key, "t0k3n", "PX", "600000"})
                  == RedisValue::status("OK");
}

} // namespace

class tst_NodesPage : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;

private slots:
    void cleanupTestCase() { QCOMPARE(RedisServer::runningChildren(), 0); }

    void clusterNodes()
    {
        RedisCluster cluster;
        QVERIFY2(cluster.start(), qPrintable(cluster.errorString()));
        RedisEndpoint ep = cluster.endpoint(0);
        ep.discoverTopology = true;
        const QByteArray lock = "sim:lock:held";
        QVERIFY(plantLock(ep, lock));
        const int holder = cluster.masterOf(keyHashSlot(lock));
        QVERIFY(holder >= 0);
        Console c(ep, m_dir.filePath(QStringLiteral("audit-cluster.jsonl")));
        NodesPage *page = c.nodes();
        QVERIFY(page);
        QTRY_COMPARE_WITH_TIMEOUT(page->table()->rowCount(), RedisCluster::NodeCount, 20000);
        QTRY_VERIFY_WITH_TIMEOUT(page->headline().startsWith(QStringLiteral("Cluster: 3 masters")),
                                 10000);
        int masters = 0;
        int slotTotal = 0;
        for (int row = 0; row < page->table()->rowCount(); ++row) {
            QVERIFY(cluster.indexOfPort(
                        quint16(cell(page, row, NodesPage::Address).section(':', -1).toUInt()))
                    >= 0);
            if (cell(page, row, NodesPage::Role) == QLatin1String("master")) {
                ++masters;
                const QString s = cell(page, row, NodesPage::Slots);
                slotTotal += s.section('(', -1).chopped(1).toInt();
            } else {
                QVERIFY(!cell(page, row, NodesPage::MasterOf).isEmpty());
            }
        }
        QCOMPARE(masters, 3);
        QCOMPARE(slotTotal, 16384);
        // INFO figures arrive for every node.
        QTRY_VERIFY_WITH_TIMEOUT(
            [&] {
                for (int row = 0; row < page->table()->rowCount(); ++row) {
                    if (!cell(page, row, NodesPage::Version).startsWith(QLatin1String("Redis 7.")))
                        return false;
                }
                return true;
            }(),
            20000);
        // Charted over time: a line per node, named by its address, in every
        // chart; the replicas' lag too.
        c.window->showPage(int(c.window->pageNames().indexOf(QStringLiteral("Nodes"))));
        NodeCharts *charts = page->charts();
        const auto charted = [&] {
            for (int f = 0; f < NodeCharts::FigureCount; ++f) {
                QCustomPlot *plot = charts->plot(NodeCharts::Figure(f));
                if (plot->graphCount() != RedisCluster::NodeCount)
                    return false;
                for (int g = 0; g < plot->graphCount(); ++g) {
                    if (plot->graph(g)->data()->size() < 2)
                        return false;
                }
            }
            return true;
        };
        QTRY_VERIFY_WITH_TIMEOUT(charted(), 20000);
        QCustomPlot *memory = charts->plot(NodeCharts::Memory);
        for (int row = 0; row < page->table()->rowCount(); ++row) {
            QCOMPARE(memory->graph(row)->name(), cell(page, row, NodesPage::Address));
            QVERIFY(memory->graph(row)->data()->constBegin()->value > 0); // MiB, read
        }
        QVERIFY(charts->plot(NodeCharts::Lag)->isVisible());
        QVERIFY(charts->note().isEmpty()); // all six charted
        // Every address whole in the legends of a window 1040 px wide (six
        // in one row were cut to "127.0"), and the table three rows high.
        c.window->resize(1040, 720);
        const auto legendWhole = [memory] {
            memory->replot();
            for (int g = 0; g < memory->graphCount(); ++g) {
                QCPAbstractLegendItem *item = memory->legend->itemWithPlottable(memory->graph(g));
                // As wide as its address, and drawn inside the plot (an item
                // past its edge is clipped there).
                if (!item
                    || item->rect().width()
                           < QFontMetrics(item->font()).horizontalAdvance(memory->graph(g)->name())
                    || !memory->viewport().contains(item->rect()))
                    return false;
            }
            return true;
        };
        QTRY_VERIFY_WITH_TIMEOUT(legendWhole(), 5000);
        QVERIFY(page->table()->height()
                >= 3 * page->table()->verticalHeader()->minimumSectionSize());
        // Each master says what a failover and a crash would lose now.
        QTRY_VERIFY_WITH_TIMEOUT(
            [&] {
                for (int row = 0; row < page->table()->rowCount(); ++row) {
                    const bool master = cell(page, row, NodesPage::Role) == QLatin1String("master");
                    const QString risk = cell(page, row, NodesPage::AtRisk);
                    if (master
                        && !(risk.startsWith(QLatin1String("replica 127.0.0.1:"))
                             && risk.contains(QLatin1String(": a failover now loses"))
                             && !cell(page, row, NodesPage::Persistence).isEmpty()))
                        return false;
                    if (!master && !risk.isEmpty())
                        return false;
                }
                return true;
            }(),
            20000);
        // The lock's detail names the master holding it and its slots.
        QVERIFY(selectLock(c, lock));
        QTRY_VERIFY_WITH_TIMEOUT(
            c.window->chart(QStringLiteral("lock"))
                ->titleText()
                .contains(
                    QStringLiteral("held by %1 (master, slots ").arg(cluster.address(holder))),
            10000);
    }

    // A standalone server (the demo's): memory, clients and ops/s are the
    // figures the Overview's server panel shows (they were "–"), and the
    // persistence and "if it fails now" sentences show whole at 1280x800.
    void standaloneFigures()
    {
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        Console::Options options;
        options.size = QSize(1280, 800);
        Console c(server, m_dir.filePath(QStringLiteral("audit-standalone.jsonl")), options);
        NodesPage *page = c.nodes();
        QVERIFY(page);
        auto *panel = c.window->findChild<ServerPanel *>();
        QVERIFY(panel);
        QTRY_COMPARE_WITH_TIMEOUT(page->table()->rowCount(), 1, 20000);
        // The Overview (shown first) has read the server's figures.
        QTRY_VERIFY_WITH_TIMEOUT(panel->figures().usedMemoryBytes > 0, 10000);
        c.window->showPage(int(c.window->pageNames().indexOf(QStringLiteral("Nodes"))));
        QTRY_VERIFY_WITH_TIMEOUT(page->isVisible(), 5000);
        // The cells follow the panel's latest read (the page asks for one
        // when shown): the same figures, not "–".
        const auto same = [&] {
            const ServerFigures &f = panel->figures();
            return f.usedMemoryBytes > 0
                   && cell(page, 0, NodesPage::Memory) == ServerPanel::bytes(f.usedMemoryBytes)
                   && cell(page, 0, NodesPage::Clients) == QLocale().toString(f.clients)
                   && cell(page, 0, NodesPage::OpsPerSec) == QLocale().toString(f.opsPerSec);
        };
        QTRY_VERIFY_WITH_TIMEOUT(same(), 10000);
        QVERIFY(panel->figures().clients >= 1); // the console itself is a client
        // Charted from the reads: the memory the panel read, in MiB; no lag
        // chart without replicas.
        NodeCharts *charts = page->charts();
        QCustomPlot *memory = charts->plot(NodeCharts::Memory);
        QTRY_VERIFY_WITH_TIMEOUT(memory->graphCount() == 1 && !memory->graph(0)->data()->isEmpty(),
                                 10000);
        QTRY_COMPARE_WITH_TIMEOUT((memory->graph(0)->data()->constEnd() - 1)->value,
                                  double(panel->figures().usedMemoryBytes) / (1024.0 * 1024.0),
                                  10000);
        QVERIFY(!charts->plot(NodeCharts::Lag)->isVisible());
        QVERIFY(charts->plot(NodeCharts::OpsPerSec)->isVisible());

        // The sentences, whole: each fits its cell wrapped at its column's
        // width, and the table needs no horizontal scroll bar.
        QTableWidget *table = page->table();
        QTRY_VERIFY_WITH_TIMEOUT(!cell(page, 0, NodesPage::Persistence).isEmpty()
                                     && !cell(page, 0, NodesPage::AtRisk).isEmpty(),
                                 10000);
        const auto fits = [&](int column) {
            const QString text = cell(page, 0, column);
            const int width = table->columnWidth(column) - 10; // the cell's text margins
            const QRect needed = table->fontMetrics().boundingRect(QRect(0, 0, width, 100000),
                                                                   Qt::TextWordWrap, text);
            return width > 0 && table->rowHeight(0) >= needed.height()
                   && table->visualItemRect(table->item(0, column)).right()
                          <= table->viewport()->width();
        };
        QTRY_VERIFY2_WITH_TIMEOUT(fits(NodesPage::Persistence),
                                  qPrintable(cell(page, 0, NodesPage::Persistence)), 5000);
        QTRY_VERIFY2_WITH_TIMEOUT(fits(NodesPage::AtRisk),
                                  qPrintable(cell(page, 0, NodesPage::AtRisk)), 5000);
        QVERIFY(!table->horizontalScrollBar()->isVisible());
        // Long enough that one line at 1280 px could not hold them: the
        // check above is about wrapping, not about short sentences.
        QVERIFY(table->fontMetrics().horizontalAdvance(cell(page, 0, NodesPage::AtRisk))
                > table->columnWidth(NodesPage::AtRisk));
    }

    void sentinelFailover()
    {
        RedisSentinel sentinel(1);
        QVERIFY2(sentinel.start(), qPrintable(sentinel.errorString()));
        QString error;
        const auto ep = RedisEndpoint::fromUrl(sentinel.url(), &error);
        QVERIFY2(ep, qPrintable(error));
        const QByteArray lock = "sim:lock:held";
        QVERIFY(plantLock(*ep, lock));
        Console c(*ep, m_dir.filePath(QStringLiteral("audit-sentinel.jsonl")));
        NodesPage *page = c.nodes();
        QVERIFY(page);
        QTRY_COMPARE_WITH_TIMEOUT(page->table()->rowCount(), 2, 20000);
        QTRY_COMPARE_WITH_TIMEOUT(cell(page, 0, NodesPage::Address), sentinel.nodeAddress(0),
                                  10000);
        QCOMPARE(cell(page, 0, NodesPage::Role), QStringLiteral("master"));
        QCOMPARE(cell(page, 1, NodesPage::Address), sentinel.nodeAddress(1));
        QCOMPARE(cell(page, 1, NodesPage::Role), QStringLiteral("replica"));
        QCOMPARE(cell(page, 1, NodesPage::MasterOf), sentinel.nodeAddress(0));
        QVERIFY(page->headline().startsWith(
            QStringLiteral("Sentinel: master %1").arg(sentinel.nodeAddress(0))));
        QVERIFY(page->lastFailover().isEmpty());
        QVERIFY(selectLock(c, lock));
        ChartPanel *chart = c.window->chart(QStringLiteral("lock"));
        QTRY_VERIFY_WITH_TIMEOUT(
            chart->titleText().contains(
                QStringLiteral("held by %1 (master)").arg(sentinel.nodeAddress(0))),
            10000);

        const int promoted = sentinel.failover();
        QCOMPARE(promoted, 1);
        QTRY_COMPARE_WITH_TIMEOUT(cell(page, 0, NodesPage::Address), sentinel.nodeAddress(1),
                                  20000);
        QCOMPARE(cell(page, 0, NodesPage::Role), QStringLiteral("master"));
        QTRY_VERIFY_WITH_TIMEOUT(page->lastFailover().contains(
                                     QStringLiteral("%1 is master now (was %2)")
                                         .arg(sentinel.nodeAddress(1), sentinel.nodeAddress(0))),
                                 10000);
        // The old master comes back as the new one's replica: the sentinels
        // reconfigure it and see it replicate on their next INFO of it (every
        // 10 s), and the console reads the replicas every 2 s.
        QTRY_COMPARE_WITH_TIMEOUT(cell(page, 1, NodesPage::MasterOf), sentinel.nodeAddress(1),
                                  45000);
        // The detail follows: the lock is held by the new master now.
        QTRY_VERIFY_WITH_TIMEOUT(
            chart->titleText().contains(
                QStringLiteral("held by %1 (master)").arg(sentinel.nodeAddress(1))),
            10000);
        c.window.reset();
        c.deployment.reset();
    }
};

QTEST_MAIN(tst_NodesPage)
#include "tst_nodespage.moc"
