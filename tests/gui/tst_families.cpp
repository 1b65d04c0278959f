// SPDX-License-Identifier: MIT
// A family of many objects of one pattern is one row: 300 sliding windows of
// the demo profile's `sim:rl:api:*` on a real server show as one row with
// their count, the sum and maximum in window and the worst state; 5 fixed
// windows of another family stay 5 rows. Expanding lists the worst 200
// first; one member driven over its limit turns the family's state; a filter
// naming a member shows its family; and a snapshot that regroups rows never
// moves the selection.
#include <objecttablemodel.h>
#include <sectionpage.h>

#include "redisserver.h"
#include "testconsole.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QLineEdit>
#include <QPushButton>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

using namespace gatehouse;
using gatehouse::test::call;
using gatehouse::test::RedisServer;

namespace {

const QString LimiterSection = QStringLiteral("limiter");
const QByteArray Glob = "sim:rl:api:*";

// The view's row of the family whose glob is glob; -1 when none.
int familyRow(QTableView *view, const QByteArray &glob)
{
    for (int r = 0; r < view->model()->rowCount(); ++r) {
        if (view->model()->index(r, 0).data(ObjectTableModel::FamilyRole).toByteArray() == glob)
            return r;
    }
    return -1;
}

int keyRow(QTableView *view, const QByteArray &key)
{
    for (int r = 0; r < view->model()->rowCount(); ++r) {
        if (view->model()->index(r, 0).data(ObjectTableModel::KeyRole).toByteArray() == key)
            return r;
    }
    return -1;
}

int column(QTableView *view, const QString &header)
{
    for (int c = 0; c < view->model()->columnCount(); ++c) {
        if (view->model()->headerData(c, Qt::Horizontal).toString() == header)
            return c;
    }
    return -1;
}

QByteArray selectedFamily(QTableView *view)
{
    const QModelIndexList rows = view->selectionModel()->selectedRows();
    return rows.isEmpty() ? QByteArray()
                          : rows.first().data(ObjectTableModel::FamilyRole).toByteArray();
}

QByteArray selectedKey(QTableView *view)
{
    const QModelIndexList rows = view->selectionModel()->selectedRows();
    return rows.isEmpty() ? QByteArray()
                          : rows.first().data(ObjectTableModel::KeyRole).toByteArray();
}

} // namespace

class tst_Families : public QObject
{
    Q_OBJECT

private:
    RedisServer m_server;
    std::unique_ptr<RedisClient> m_redis;
    QTemporaryDir m_dir;
    qint64 m_nowMs = 0;

    // A window of n requests; their times an hour ahead of the server's
    // clock, so they stay in the window for the whole test.
    void plantWindow(const QByteArray &key, int n, const QByteArray &tag = "r")
    {
        QList<QByteArray> zadd{"ZADD", key};
        for (int j = 0; j < n; ++j) {
            zadd << QByteArray::number(m_nowMs + 3'600'000 + j)
                 << tag + QByteArray::number(j); // unique members: n new requests
        }
        QCOMPARE(call(*m_redis, zadd).toInteger(), n);
    }
    void plantCounter(const QByteArray &key)
    {
        QCOMPARE(call(*m_redis, {"SET", key, "5", "PX", "600000"}).bytes(), QByteArray("OK"));
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(m_server.start(), qPrintable(m_server.errorString()));
        m_redis = gatehouse::test::connectedClient(m_server);
        QVERIFY(m_redis);
        const RedisValue time = call(*m_redis, {"TIME"});
        m_nowMs = time.at(0).bytes().toLongLong() * 1000 + time.at(1).bytes().toLongLong() / 1000;
        QVERIFY(m_nowMs > 0);
    }

    void cleanupTestCase()
    {
        m_redis.reset();
        m_server.stop();
        QCOMPARE(RedisServer::runningChildren(), 0);
    }

    void familyOfThousandsIsOneRow()
    {
        // 300 windows of one family, 1..10 requests each (30 of each count):
        // 1,650 in all, at most 10 of the limit of 20. 5 fixed windows of
        // another family, below the threshold.
        for (int i = 0; i < 300; ++i)
            plantWindow("sim:rl:api:" + QByteArray::number(i), 1 + i % 10);
        for (int i = 1; i <= 5; ++i)
            plantCounter("sim:throttle:user:" + QByteArray::number(i));

        test::TestConsole::Options options;
        options.rescanMs = 500; // new keys found within a second
        options.size = QSize(1280, 800);
        test::TestConsole c(m_server, m_dir.filePath(QStringLiteral("audit.jsonl")), options);
        c.window->showPage(c.window->pageOf(LimiterSection));
        SectionPage *page = c.window->sectionPage(LimiterSection);
        QVERIFY(page);
        QTableView *view = c.window->table(LimiterSection);
        QAbstractItemModelTester sourceTester(
            page->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester viewTester(view->model(),
                                            QAbstractItemModelTester::FailureReportingMode::QtTest);

        // One row for the 300, with their count and folded figures.
        QTRY_VERIFY_WITH_TIMEOUT(familyRow(view, Glob) >= 0
                                     && view->model()
                                                ->index(familyRow(view, Glob), 0)
                                                .data(ObjectTableModel::MembersRole)
                                                .toInt()
                                            == 300,
                                 15000);
        const int inWindow = column(view, QStringLiteral("In window / limit"));
        const int status = column(view, QStringLiteral("Status"));
        QVERIFY(inWindow > 0 && status > 0);
        QTRY_COMPARE_WITH_TIMEOUT(
            view->model()->index(familyRow(view, Glob), inWindow).data().toString(),
            QStringLiteral("Σ 1,650 · max 10 / 20"), 10000);
        QModelIndex family = view->model()->index(familyRow(view, Glob), 0);
        QVERIFY2(family.data().toString().contains(QStringLiteral("sim:rl:api:* · 300 limiters")),
                 qPrintable(family.data().toString()));
        QCOMPARE(family.siblingAtColumn(status).data().toString(), QStringLiteral("300 ok"));
        QCOMPARE(family.data(ObjectTableModel::StateIdRole).toString(), states::Ok);
        // No row for any member of the collapsed family; the 5 are 5 rows.
        for (int i = 0; i < 300; i += 37)
            QCOMPARE(page->model()->rowOf("sim:rl:api:" + QByteArray::number(i)), -1);
        QTRY_COMPARE_WITH_TIMEOUT(view->model()->rowCount(), 6, 10000);
        for (int i = 1; i <= 5; ++i)
            QVERIFY(keyRow(view, "sim:throttle:user:" + QByteArray::number(i)) >= 0);
        QCOMPARE(familyRow(view, "sim:throttle:user:*"), -1);

        // Selected, the family row offers no action: it says to expand it.
        view->setFocus();
        view->selectRow(familyRow(view, Glob));
        QVERIFY(page->familySelected());
        QVERIFY(!page->selected());
        auto *reset = page->findChild<QPushButton *>(QStringLiteral("resetLimiterButton"));
        QVERIFY(reset);
        QVERIFY(!reset->isEnabled());
        QVERIFY2(reset->toolTip().contains(QLatin1String("Expand it")),
                 qPrintable(reset->toolTip()));
        QVERIFY(page->whyText().contains(QLatin1String("300 limiters")));

        // Enter lists the worst 200 under it, each an ordinary row.
        QTest::keyClick(view, Qt::Key_Return);
        QTRY_COMPARE(view->model()->rowCount(), 206);
        family = view->model()->index(familyRow(view, Glob), 0);
        QVERIFY(family.data(ObjectTableModel::ExpandedRole).toBool());
        QVERIFY(family.data().toString().contains(QLatin1String("the 200 worst listed")));
        QCOMPARE(selectedFamily(view), Glob); // expanding never moves the selection
        const int first = family.row() + 1;
        double last = 2;
        for (int r = first; r < first + 200; ++r) {
            const QModelIndex member = view->model()->index(r, 0);
            const QByteArray key = member.data(ObjectTableModel::KeyRole).toByteArray();
            QVERIFY2(key.startsWith("sim:rl:api:"), key.constData());
            const ObjectState *s = page->model()->stateAt(page->model()->rowOf(key));
            QVERIFY(s);
            const double occupancy = s->reading.occupancy().value_or(-1);
            QVERIFY2(occupancy <= last, key.constData()); // the fullest first
            last = occupancy;
        }
        QCOMPARE(view->model()->index(first, inWindow).data().toString(),
                 QStringLiteral("10 / 20"));
        // The least full (one request each) are not listed.
        QCOMPARE(page->model()->rowOf("sim:rl:api:10"), -1);
        // A listed member acts as any object: its action is enabled.
        view->selectRow(first);
        QVERIFY(page->selected());
        QVERIFY2(reset->isEnabled(), qPrintable(reset->toolTip()));

        // One member driven over its limit: the family's state says so.
        plantWindow("sim:rl:api:10", 25, "burst");
        QTRY_COMPARE_WITH_TIMEOUT(view->model()
                                      ->index(familyRow(view, Glob), 0)
                                      .data(ObjectTableModel::StateIdRole)
                                      .toString(),
                                  states::OverLimit, 10000);
        const auto familyCell = [&](const QByteArray &glob, int c) {
            return view->model()->index(familyRow(view, glob), c);
        };
        QVERIFY2(familyCell(Glob, status).data().toString()
                     == QStringLiteral("1 over limit · 299 ok"),
                 qPrintable(familyCell(Glob, status).data().toString()));
        QCOMPARE(familyCell(Glob, 0).data(ObjectTableModel::SeverityRole).toInt(),
                 int(Severity::Critical));
        QTRY_COMPARE(familyCell(Glob, inWindow).data().toString(),
                     QStringLiteral("Σ 1,675 · max 26 / 20"));
        // Folded and listed again, it comes first.
        view->selectRow(familyRow(view, Glob));
        QTest::keyClick(view, Qt::Key_Return);
        QTRY_COMPARE(view->model()->rowCount(), 6);
        QTest::keyClick(view, Qt::Key_Return);
        QTRY_COMPARE(view->model()->rowCount(), 206);
        QCOMPARE(view->model()
                     ->index(familyRow(view, Glob) + 1, 0)
                     .data(ObjectTableModel::KeyRole)
                     .toByteArray(),
                 QByteArray("sim:rl:api:10"));
        QTest::keyClick(view, Qt::Key_Return);
        QTRY_COMPARE(view->model()->rowCount(), 6);

        // A filter naming one member of the folded family shows the family.
        auto *filter = page->findChild<QLineEdit *>(QStringLiteral("limiterFilter"));
        QVERIFY(filter);
        filter->setText(QStringLiteral("API:250"));
        QCOMPARE(view->model()->rowCount(), 1);
        QCOMPARE(view->model()->index(0, 0).data(ObjectTableModel::FamilyRole).toByteArray(), Glob);
        QCOMPARE(selectedFamily(view), Glob); // it matches: still selected
        filter->setText(QStringLiteral("throttle:user:3"));
        QCOMPARE(view->model()->rowCount(), 1);
        QCOMPARE(selectedKey(view), QByteArray());
        filter->clear();
        QCOMPARE(view->model()->rowCount(), 6);

        // A click on the arrow lists the members, a second folds them; Right
        // and Left on the family row too.
        const auto clickArrow = [&] {
            const QRect cell = view->visualRect(familyCell(Glob, 0));
            QTest::mouseClick(view->viewport(), Qt::LeftButton, {},
                              QPoint(cell.left() + 6, cell.center().y()));
        };
        clickArrow();
        QTRY_COMPARE(view->model()->rowCount(), 206);
        clickArrow();
        QTRY_COMPARE(view->model()->rowCount(), 6);
        QCOMPARE(selectedFamily(view), Glob); // the click selected it
        QTest::keyClick(view, Qt::Key_Right);
        QTRY_COMPARE(view->model()->rowCount(), 206);
        QTest::keyClick(view, Qt::Key_Left);
        QTRY_COMPARE(view->model()->rowCount(), 6);

        // Going to a member by key (Ctrl+K, the Overview) lists it, past the
        // 200 worst if need be; folding then selects the family, not another.
        QVERIFY(page->selectKey("sim:rl:api:250"));
        QCOMPARE(selectedKey(view), QByteArray("sim:rl:api:250"));
        QCOMPARE(view->model()->rowCount(), 207);
        QVERIFY(familyCell(Glob, 0).data(ObjectTableModel::ExpandedRole).toBool());
        page->toggleFamily(familyCell(Glob, 0));
        QTRY_COMPARE(view->model()->rowCount(), 6);
        QCOMPARE(selectedFamily(view), Glob);

        // A snapshot that forms a new family keeps the selection where it was:
        // on a family row...
        view->selectRow(familyRow(view, Glob));
        for (int i = 0; i < 60; ++i)
            plantWindow("sim:rl:api:batch_" + QByteArray::number(i), 2);
        QTRY_VERIFY_WITH_TIMEOUT(familyRow(view, "sim:rl:api:batch_*") >= 0, 15000);
        QCOMPARE(selectedFamily(view), Glob);
        QVERIFY(page->familySelected());
        QCOMPARE(view->model()->rowCount(), 7);

        // ... and on an object whose rows become a family: it forms expanded,
        // the selected row kept.
        view->selectRow(keyRow(view, "sim:throttle:user:3"));
        QCOMPARE(page->selected()->object->key, QByteArray("sim:throttle:user:3"));
        for (int i = 100; i < 160; ++i)
            plantCounter("sim:throttle:user:" + QByteArray::number(i));
        QTRY_VERIFY_WITH_TIMEOUT(familyRow(view, "sim:throttle:user:*") >= 0, 15000);
        QCOMPARE(selectedKey(view), QByteArray("sim:throttle:user:3"));
        QVERIFY(page->selected());
        QCOMPARE(page->selected()->object->key, QByteArray("sim:throttle:user:3"));
        const QByteArray throttle = "sim:throttle:user:*";
        QVERIFY(familyCell(throttle, 0).data(ObjectTableModel::ExpandedRole).toBool());
        QTRY_COMPARE(familyCell(throttle, 0).data(ObjectTableModel::MembersRole).toInt(), 65);
        QCOMPARE(selectedKey(view), QByteArray("sim:throttle:user:3"));
        // Its members sit under its row.
        QVERIFY(keyRow(view, "sim:throttle:user:3") > familyRow(view, throttle));

        // The Limiters page with its family rows, for the eye: folded (a
        // member of the expanded one selected, its charts shown), then listed.
        view->scrollToTop();
        QTest::qWait(300);
        c.window->grab().save(QStringLiteral(GATEHOUSE_SCREENSHOT_DIR "/limiters-families.png"));
        view->selectRow(familyRow(view, Glob));
        QTest::keyClick(view, Qt::Key_Return);
        QTRY_VERIFY(view->model()->rowCount() > 200);
        // Sorted by requests in window, most first: the family by its sum
        // (1,675, the largest), its listed members under it, worst first.
        view->sortByColumn(inWindow, Qt::DescendingOrder);
        QCOMPARE(familyRow(view, Glob), 0);
        QCOMPARE(view->model()->index(1, 0).data(ObjectTableModel::KeyRole).toByteArray(),
                 QByteArray("sim:rl:api:10"));
        for (int r = 1; r <= 200; ++r) {
            const QByteArray key
                = view->model()->index(r, 0).data(ObjectTableModel::KeyRole).toByteArray();
            QVERIFY2(key.startsWith("sim:rl:api:") && !key.startsWith("sim:rl:api:batch_"),
                     key.constData());
        }
        view->sortByColumn(0, Qt::AscendingOrder);
        QCOMPARE(familyRow(view, Glob), 0);
        view->scrollToTop();
        QTest::qWait(300);
        c.window->grab().save(
            QStringLiteral(GATEHOUSE_SCREENSHOT_DIR "/limiters-families-expanded.png"));
    }
};

QTEST_MAIN(tst_Families)
#include "tst_families.moc"
