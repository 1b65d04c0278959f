// SPDX-License-Identifier: MIT
// A stream read by consumer groups on the Queues page (backend/patterns/
// stream-group/): found with no profile, its row with the stuck count, its
// groups, consumers and pending entries listed under the table, and a
// dead-letter of the entry chosen there, through its confirmation, that
// Redis then shows copied and acknowledged.
#include <actions/actionengine.h>
#include <mainwindow.h>
#include <monitor/monitor.h>
#include <objecttablemodel.h>
#include <redis/redisclient.h>
#include <sectionpage.h>

#include "redisserver.h"
#include "testconsole.h"

#include <QApplication>
#include <QMessageBox>
#include <QPushButton>
#include <QTableView>
#include <QTableWidget>
#include <QTest>
#include <QTimer>

using namespace gatehouse;
using gatehouse::test::call;
using gatehouse::test::RedisServer;

namespace {

// Accepts the confirmation of the next action.
void confirmNext(QObject *owner)
{
    auto *timer = new QTimer(owner);
    timer->setInterval(10);
    QObject::connect(timer, &QTimer::timeout, timer, [timer] {
        auto *box = qobject_cast<QMessageBox *>(QApplication::activeModalWidget());
        if (!box)
            return;
        timer->stop();
        box->button(QMessageBox::Ok)->click();
    });
    timer->start();
}

} // namespace

class tst_StreamGroupGui : public QObject
{
    Q_OBJECT

private slots:
    void stuckEntriesListedAndDeadLettered()
    {
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        std::unique_ptr<RedisClient> redis = gatehouse::test::connectedClient(server);
        QVERIFY(redis);
        QList<QByteArray> ids;
        for (int n = 1; n <= 3; ++n)
            ids << call(*redis, {"XADD", "orders", "*", "order", QByteArray::number(n)}).bytes();
        QCOMPARE(call(*redis, {"XGROUP", "CREATE", "orders", "billing", "0"}),
                 RedisValue::status("OK"));
        QCOMPARE(call(*redis, {"XREADGROUP", "GROUP", "billing", "worker-1", "COUNT", "2",
                               "STREAMS", "orders", ">"})
                     .size(),
                 1);
        // Delivered ten minutes ago as far as the PEL knows (XCLAIM's IDLE):
        // past the default threshold of five.
        call(*redis, {"XCLAIM", "orders", "billing", "worker-1", "0", ids.at(0), ids.at(1), "IDLE",
                      "600000", "JUSTID"});

        QTemporaryDir dir; // no profile: autodetected
        gatehouse::test::TestConsole console(server, dir.filePath(QStringLiteral("audit.jsonl")),
                                             gatehouse::test::autodetected(QSize(1400, 900)));
        MainWindow &window = *console.window;

        const QString section = QStringLiteral("queue");
        QVERIFY(QTest::qWaitFor(
            [&] {
                const int row = window.model(section)->rowOf("orders");
                return row >= 0 && window.model(section)->stateAt(row)->reading.atMs > 0;
            },
            10000));
        const ObjectState *s
            = window.model(section)->stateAt(window.model(section)->rowOf("orders"));
        QCOMPARE(s->object->kind.id(), QStringLiteral("stream-group"));
        QCOMPARE(s->reading.queue().stuck, qint64(2));
        QCOMPARE(s->reading.queue().inFlight, qint64(2));
        QCOMPARE(s->reading.queue().length, qint64(3));

        window.showPage(window.pageOf(section));
        SectionPage *page = window.sectionPage(section);
        QTableView *view = window.table(section);
        for (int row = 0; row < view->model()->rowCount(); ++row) {
            if (view->model()->index(row, 0).data(ObjectTableModel::KeyRole).toByteArray()
                == "orders")
                view->selectRow(row);
        }
        // The group, its consumer, then its two pending entries, stuck.
        auto *items = page->findChild<QTableWidget *>(QStringLiteral("queueItems"));
        QVERIFY(items);
        QTRY_COMPARE(items->rowCount(), 4);
        QCOMPARE(items->horizontalHeaderItem(0)->text(),
                 QStringLiteral("Group, consumer or entry"));
        QCOMPARE(items->item(0, 0)->text(), QStringLiteral("group billing"));
        QCOMPARE(items->item(1, 0)->text(), QStringLiteral("consumer worker-1"));
        QCOMPARE(items->item(2, 0)->text(), QString::fromLatin1(ids.at(0)));
        QCOMPARE(items->item(2, 5)->text(), QStringLiteral("stuck"));
        QCOMPARE(items->item(3, 0)->text(), QString::fromLatin1(ids.at(1)));
        for (const char *button :
             {"claimEntriesButton", "deadLetterButton", "deleteConsumerButton", "trimStreamButton"})
            QVERIFY2(page->findChild<QPushButton *>(QLatin1String(button)), button);

        // Dead-letter the first entry, chosen in the list: its group and id
        // come from the row; one confirmation.
        items->selectRow(2);
        QString outcome;
        connect(&window, &MainWindow::actionFinished, this, [&](const QString &m) { outcome = m; });
        QObject owner;
        confirmNext(&owner);
        page->findChild<QPushButton *>(QStringLiteral("deadLetterButton"))->click();
        QVERIFY2(QTest::qWaitFor([&] { return !outcome.isEmpty(); }, 5000), "no outcome");
        QVERIFY2(outcome.contains(QLatin1String("copied to \"orders:dead\"")), qPrintable(outcome));
        QCOMPARE(call(*redis, {"XLEN", "orders:dead"}).toInteger(), 1);
        const RedisValue pel = call(*redis, {"XPENDING", "orders", "billing", "-", "+", "10"});
        QCOMPARE(pel.size(), 1);
        QCOMPARE(pel.at(0).at(0).bytes(), ids.at(1));
        // The list follows: one entry left.
        QTRY_COMPARE(items->rowCount(), 3);
        console.monitor()->stop();
    }
};

QTEST_MAIN(tst_StreamGroupGui)
#include "tst_streamgroupgui.moc"
