// SPDX-License-Identifier: MIT
// The Queues page's job search on a real BullMQ queue (npm bullmq,
// tests/libraries/bullmq-app.js) whose real worker completed 30 jobs and
// failed 6: a payload path lists exactly the one job, with its state, and
// its detail decoded as the list's are; the failed jobs found by their
// error, two of them chosen and retried through the confirmation, which
// BullMQ then sees (and the hits follow); an expression that cannot be read
// is said in the bar and sends nothing; Stop ends a search where it is;
// clearing the field or Back goes back to the list.
#include <actions/actionengine.h>
#include <englishplurals.h>
#include <jobsearchbar.h>
#include <mainwindow.h>
#include <monitor/monitor.h>
#include <objecttablemodel.h>
#include <queuejobspanel.h>
#include <redis/redisclient.h>
#include <sectionpage.h>
#include <theme.h>

#include "librarytest.h"
#include "nodeapp.h"
#include "redisserver.h"
#include "testconsole.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPointer>
#include <QProcess>
#include <QPushButton>
#include <QRegularExpression>
#include <QSettings>
#include <QStatusBar>
#include <QTabBar>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

using namespace gatehouse;
using gatehouse::test::call;
using gatehouse::test::NodeApp;
using gatehouse::test::RedisServer;

namespace {

const QString LibrariesDir = QStringLiteral(GATEHOUSE_LIBRARIES_DIR);

// The test's BullMQ queue "orders"; its job ids from idBase + 1.
NodeApp orders(const RedisServer &server, int idBase = 0)
{
    NodeApp app{QStringLiteral("bullmq"), server.url(), QStringLiteral("orders")};
    if (idBase > 0)
        app.env.insert(QStringLiteral("JOB_ID_BASE"), QString::number(idBase));
    return app;
}

QString node(const RedisServer &server, const QStringList &args, int idBase = 0)
{
    return orders(server, idBase).run(args.first(), args.mid(1));
}

QString stateOf(const RedisServer &server, const QString &job)
{
    return node(server, {QStringLiteral("state"), job});
}

// Answers the next modal dialogs: an input dialog (OK as it is) and the
// confirmation (OK); what each was is kept.
class DialogAnswerer : public QObject
{
public:
    QStringList seen; // "input" or "confirm: <text>", in order

    DialogAnswerer()
    {
        m_timer.setInterval(10);
        connect(&m_timer, &QTimer::timeout, this, [this] {
            QWidget *modal = QApplication::activeModalWidget();
            if (!modal || modal == m_last)
                return;
            m_last = modal;
            if (auto *box = qobject_cast<QMessageBox *>(modal)) {
                seen << QStringLiteral("confirm: ") + box->text();
                box->button(QMessageBox::Ok)->click();
            } else if (auto *dialog = qobject_cast<QDialog *>(modal)) {
                seen << QStringLiteral("input");
                dialog->findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok)->click();
            }
        });
        m_timer.start();
    }

private:
    QTimer m_timer;
    QPointer<QWidget> m_last;
};

} // namespace

class tst_JobSearchGui : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QCoreApplication::setOrganizationName(QStringLiteral("GatehouseTest"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_jobsearchgui"));
        QSettings().clear();
        QCoreApplication::installTranslator(new EnglishPlurals(this));
    }

    void searchChooseAndAct()
    {
        QVERIFY2(QFile::exists(LibrariesDir + QStringLiteral("/node_modules/bullmq/package.json")),
                 "npm bullmq is missing: run .ci/install-deps");
        RedisServer server(RedisServer::Options{});
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        // 30 jobs done, 6 failed by a real worker ("failing on purpose").
        QCOMPARE(node(server, {QStringLiteral("produce"), QStringLiteral("30")}), QString());
        QCOMPARE(node(server, {QStringLiteral("produce-failing"), QStringLiteral("6")}, 100),
                 QString());
        std::unique_ptr<RedisClient> redis = gatehouse::test::connectedClient(server);
        QVERIFY(redis);
        {
            std::unique_ptr<QProcess> worker
                = orders(server).start(QStringLiteral("work"), QStringLiteral("ran"), "working");
            QVERIFY(gatehouse::test::pollUntil(
                [&] {
                    return call(*redis, {"ZCARD", "bull:orders:completed"}).toInteger() == 30
                           && call(*redis, {"ZCARD", "bull:orders:failed"}).toInteger() == 6;
                },
                60000));
            gatehouse::test::stopProcess(worker);
        }

        QTemporaryDir dir; // no profile: autodetected
        gatehouse::test::TestConsole console(server, dir.filePath(QStringLiteral("audit.jsonl")),
                                             gatehouse::test::autodetected(QSize(1400, 900)));
        MainWindow &window = *console.window;

        const QString section = QStringLiteral("queue");
        QVERIFY(QTest::qWaitFor(
            [&] {
                const int row = window.model(section)->rowOf("bull:orders");
                return row >= 0 && window.model(section)->stateAt(row)->reading.atMs > 0;
            },
            10000));
        // View > Search jobs with no queue on screen: a sentence, not a jump.
        auto *searchJobs = window.findChild<QAction *>(QStringLiteral("searchJobs"));
        QVERIFY(searchJobs);
        QCOMPARE(searchJobs->shortcut(), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_F));
        searchJobs->trigger();
        QVERIFY2(window.statusBar()->currentMessage().startsWith(
                     QLatin1String("Choose a library queue on the Queues page first")),
                 qPrintable(window.statusBar()->currentMessage()));
        window.showPage(window.pageOf(section));
        SectionPage *page = window.sectionPage(section);
        QTableView *view = window.table(section);
        for (int row = 0; row < view->model()->rowCount(); ++row) {
            if (view->model()->index(row, 0).data(ObjectTableModel::KeyRole).toByteArray()
                == "bull:orders")
                view->selectRow(row);
        }
        auto *panel = page->findChild<QueueJobsPanel *>();
        auto *bar = page->findChild<JobSearchBar *>();
        auto *field = page->findChild<QLineEdit *>(QStringLiteral("queueJobSearch"));
        auto *states = page->findChild<QComboBox *>(QStringLiteral("queueJobSearchState"));
        auto *go = page->findChild<QPushButton *>(QStringLiteral("queueJobSearchGo"));
        auto *stop = page->findChild<QPushButton *>(QStringLiteral("queueJobSearchStop"));
        auto *back = page->findChild<QPushButton *>(QStringLiteral("queueJobSearchBack"));
        auto *status = page->findChild<QLabel *>(QStringLiteral("queueJobSearchStatus"));
        auto *jobs = page->findChild<QTableWidget *>(QStringLiteral("queueJobList"));
        auto *detail = page->findChild<QPlainTextEdit *>(QStringLiteral("queueJobDetail"));
        auto *range = page->findChild<QLabel *>(QStringLiteral("queueJobsRange"));
        auto *stages = page->findChild<QTabBar *>(QStringLiteral("queueJobStages"));
        auto *retry = page->findChild<QPushButton *>(QStringLiteral("queueRequeueDead"));
        auto *purge = page->findChild<QPushButton *>(QStringLiteral("queuePurgeDead"));
        QVERIFY(panel && bar && field && states && go && stop && back && status && jobs && detail
                && range && stages && retry && purge);
        QTRY_VERIFY(bar->isVisible());
        // With a queue chosen it puts the keyboard in the field.
        window.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        view->setFocus();
        searchJobs->trigger();
        QTRY_VERIFY(field->hasFocus());
        QVERIFY(!back->isVisible());
        QVERIFY(!stop->isEnabled());
        QCOMPARE(states->itemText(0), QStringLiteral("All states"));
        QVERIFY(states->findData(QStringLiteral("failed")) > 0);
        QVERIFY(
            QTest::qWaitFor([&] { return range->text().contains(QLatin1String("active")); }, 5000));
        const int stateColumn = jobs->columnCount() - 1;
        QVERIFY(jobs->isColumnHidden(stateColumn)); // a state's list: no State column

        const int listTab = stages->currentIndex(); // shown again after Back
        const int listTabs = stages->count();
        // A payload path, Enter: exactly the one job, with its state.
        QTest::keyClicks(field, QStringLiteral("data.n=17"));
        QTest::keyClick(field, Qt::Key_Return);
        QVERIFY2(QTest::qWaitFor([&] { return status->text().startsWith(QLatin1String("Done")); },
                                 10000),
                 qPrintable(status->text()));
        QCOMPARE(status->text(),
                 QStringLiteral("Done: 1 job found in 36 searched (every state read)."));
        QVERIFY(panel->showsResults());
        QCOMPARE(jobs->rowCount(), 1);
        QCOMPARE(jobs->item(0, 0)->text(), QStringLiteral("job-17"));
        QCOMPARE(jobs->item(0, stateColumn)->text(), QStringLiteral("completed"));
        QVERIFY(!jobs->isColumnHidden(stateColumn));
        QCOMPARE(jobs->horizontalHeader()->visualIndex(stateColumn), 1); // beside the job
        QCOMPARE(jobs->horizontalHeaderItem(stateColumn)->text(), QStringLiteral("State"));
        QVERIFY(back->isVisible());
        // No state of the list's tabs shown beside the hits, no paging.
        QVERIFY(!panel->findChild<QComboBox *>(QStringLiteral("queueJobState"))->isVisible());
        // The hits are a tab of their own, current; the list's tabs wait for Back.
        QCOMPARE(stages->tabText(stages->currentIndex()), QStringLiteral("Search results (1)"));
        for (int t = 0; t < stages->count(); ++t)
            QCOMPARE(stages->isTabEnabled(t), t == stages->currentIndex());
        // Chosen: its detail, read and decoded as a listed job's.
        jobs->selectRow(0);
        QVERIFY2(
            QTest::qWaitFor(
                [&] { return detail->toPlainText().contains(QLatin1String("\"n\": 17")); }, 5000),
            qPrintable(detail->toPlainText()));
        QVERIFY(detail->toPlainText().contains(QLatin1String("\nid: job-17\n")));

        // The error text, in the failed state only: the six failed jobs.
        field->clear();
        QVERIFY(!panel->showsResults()); // clearing the field: the list again
        QVERIFY(jobs->isColumnHidden(stateColumn));
        QTest::keyClicks(field, QStringLiteral("error~\"on purpose\""));
        states->setCurrentIndex(states->findData(QStringLiteral("failed")));
        go->click();
        QVERIFY2(QTest::qWaitFor([&] { return status->text().startsWith(QLatin1String("Done")); },
                                 10000),
                 qPrintable(status->text()));
        QCOMPARE(status->text(),
                 QStringLiteral("Done: 6 jobs found in 6 searched (every failed job read)."));
        QStringList found;
        for (int r = 0; r < jobs->rowCount(); ++r) {
            found << jobs->item(r, 0)->text();
            QCOMPARE(jobs->item(r, stateColumn)->text(), QStringLiteral("failed"));
            QVERIFY2(jobs->item(r, 4)->text().contains(QLatin1String("failing on purpose")),
                     qPrintable(jobs->item(r, 4)->text()));
        }
        found.sort();
        QCOMPARE(found,
                 QStringList({QStringLiteral("failing-101"), QStringLiteral("failing-102"),
                              QStringLiteral("failing-103"), QStringLiteral("failing-104"),
                              QStringLiteral("failing-105"), QStringLiteral("failing-106")}));

        // BullMQ's verb on failed jobs (Job.retry), for the hits chosen;
        // Purge takes a state's old jobs, not the hits: not offered here.
        QVERIFY(retry->isVisible());
        QVERIFY(!retry->isEnabled()); // nothing chosen yet
        QVERIFY2(retry->toolTip().contains(QLatin1String("Choose one or more failed jobs")),
                 qPrintable(retry->toolTip()));
        QVERIFY(!purge->isVisible());
        const auto rowOf = [&](const QString &job) {
            for (int r = 0; r < jobs->rowCount(); ++r) {
                if (jobs->item(r, 0)->text() == job)
                    return r;
            }
            return -1;
        };
        for (const char *job : {"failing-102", "failing-105"}) {
            const int r = rowOf(QLatin1String(job));
            QVERIFY2(r >= 0, job);
            jobs->selectionModel()->select(jobs->model()->index(r, 0),
                                           QItemSelectionModel::Select | QItemSelectionModel::Rows);
        }
        QList<QByteArray> chosen = panel->chosenJobs();
        std::sort(chosen.begin(), chosen.end());
        QCOMPARE(chosen, QList<QByteArray>({"failing-102", "failing-105"}));
        QVERIFY(retry->isEnabled());
        // The detail of the first chosen, its error as BullMQ stored it.
        QVERIFY2(QTest::qWaitFor(
                     [&] {
                         const QString text = detail->toPlainText();
                         return text.contains(
                                    QRegularExpression(QStringLiteral("\nid: failing-10[25]\n")))
                                && text.contains(QLatin1String("failing on purpose"));
                     },
                     5000),
                 qPrintable(detail->toPlainText()));
        const QString shot = QStringLiteral(GATEHOUSE_SCREENSHOT_DIR "/job-search.png");
        QVERIFY(window.grab().save(shot));

        QString outcome;
        connect(&window, &MainWindow::actionFinished, this, [&](const QString &m) { outcome = m; });
        {
            DialogAnswerer answer;
            retry->click();
            QVERIFY2(QTest::qWaitFor([&] { return !outcome.isEmpty(); }, 10000), "no outcome");
            QCOMPARE(answer.seen.size(), 1); // the confirmation only: nothing to type
            QVERIFY2(answer.seen.first().startsWith(QLatin1String("confirm: ")),
                     qPrintable(answer.seen.first()));
        }
        QVERIFY2(outcome.contains(QLatin1String("2 of 2 jobs done")), qPrintable(outcome));
        // The hits follow: the search runs again and finds the four left.
        // (Waited for before asking BullMQ: the node runs below block this
        // thread, and a search paces itself by how long its replies took.)
        QVERIFY2(QTest::qWaitFor(
                     [&] {
                         return status->text()
                                == QLatin1String(
                                    "Done: 4 jobs found in 4 searched (every failed job read).");
                     },
                     10000),
                 qPrintable(status->text()));
        QCOMPARE(jobs->rowCount(), 4);
        QCOMPARE(rowOf(QStringLiteral("failing-102")), -1);
        QCOMPARE(rowOf(QStringLiteral("failing-105")), -1);
        for (const char *job : {"failing-102", "failing-105"})
            QCOMPARE(stateOf(server, QLatin1String(job)), QStringLiteral("waiting"));
        for (const char *job : {"failing-101", "failing-103", "failing-104", "failing-106"})
            QCOMPARE(stateOf(server, QLatin1String(job)), QStringLiteral("failed"));

        // An expression that cannot be read: said in the bar, in the
        // error colour, and nothing sent (the hits shown stay).
        field->selectAll();
        QTest::keyClicks(field, QStringLiteral("age>soon"));
        QTest::keyClick(field, Qt::Key_Return);
        QVERIFY2(status->text().startsWith(QLatin1String("Cannot search: ")),
                 qPrintable(status->text()));
        QVERIFY2(status->text().contains(QLatin1String("age>30s")), qPrintable(status->text()));
        QVERIFY(status->text().endsWith(QLatin1String("Nothing was sent.")));
        QCOMPARE(status->palette().color(QPalette::WindowText),
                 theme::badge(Severity::Critical, status->palette()).text);
        QVERIFY(status->isVisible());
        QVERIFY(!bar->isSearching());
        QVERIFY(QApplication::activeModalWidget() == nullptr); // no dialog
        QCOMPARE(jobs->rowCount(), 4);
        QTest::qWait(300);
        QCOMPARE(jobs->rowCount(), 4);

        // Back: the list by state again.
        back->click();
        QVERIFY(!panel->showsResults());
        QVERIFY(jobs->isColumnHidden(stateColumn));
        QCOMPARE(stages->count(), listTabs);
        QCOMPARE(stages->currentIndex(), listTab);
        for (int t = 0; t < stages->count(); ++t) {
            QVERIFY(stages->isTabEnabled(t));
            QVERIFY(!stages->tabText(t).startsWith(QLatin1String("Search results")));
        }
        QVERIFY(!status->isVisible());
        QVERIFY(panel->findChild<QComboBox *>(QStringLiteral("queueJobState"))->isVisible());

        // Stop: a search of 2,036 jobs, each record read (a payload term
        // that matches none), stopped part way; nothing arrives after.
        QCOMPARE(node(server, {QStringLiteral("produce"), QStringLiteral("2000")}, 1000),
                 QString());
        field->setText(QStringLiteral("data.n=-1"));
        states->setCurrentIndex(0); // every state
        QTest::keyClick(field, Qt::Key_Return);
        QVERIFY(bar->isSearching());
        QVERIFY(stop->isEnabled());
        const QRegularExpression partWay(QStringLiteral("^Searched [1-9][0-9,]* of "));
        QVERIFY2(QTest::qWaitFor([&] { return partWay.match(status->text()).hasMatch(); }, 10000),
                 qPrintable(status->text()));
        QVERIFY(bar->isSearching());
        stop->click();
        QVERIFY(!bar->isSearching());
        QVERIFY(!stop->isEnabled());
        const QRegularExpression stopped(
            QStringLiteral("^Stopped: 0 jobs found in ([0-9,]+) of ([0-9,]+) searched\\.$"));
        const QRegularExpressionMatch m = stopped.match(status->text());
        QVERIFY2(m.hasMatch(), qPrintable(status->text()));
        QVERIFY2(m.captured(1).remove(QLatin1Char(',')).toInt() < 2036, qPrintable(status->text()));
        const QString said = status->text();
        QTest::qWait(500);
        QCOMPARE(status->text(), said);
        QCOMPARE(jobs->rowCount(), 0);
        QVERIFY(panel->showsResults());

        // Escape in the field: a running search stops; pressed again, the
        // list by state.
        QTest::keyClick(field, Qt::Key_Return);
        QVERIFY(bar->isSearching());
        QTest::keyClick(field, Qt::Key_Escape);
        QVERIFY(!bar->isSearching());
        QVERIFY2(status->text().startsWith(QLatin1String("Stopped: ")), qPrintable(status->text()));
        QVERIFY(panel->showsResults());
        QTest::keyClick(field, Qt::Key_Escape);
        QVERIFY(!panel->showsResults());
        QCOMPARE(stages->count(), listTabs); // its results' tab gone with them

        console.monitor()->stop();
    }
};

QTEST_MAIN(tst_JobSearchGui)
#include "tst_jobsearchgui.moc"
