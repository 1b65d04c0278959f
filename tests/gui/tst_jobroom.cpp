// SPDX-License-Identifier: MIT
// The job browser with room: job details an operator reads (payloads
// pretty-printed, stack traces as lines, epoch times as dates), counts never
// cut in the middle of a state, messages longer than the status bar reachable
// whole, plurals in English, and on a real BullMQ queue (npm bullmq,
// tests/libraries/bullmq-app.js) the key columns whole at 1280x800 and
// 1920x1080, ages that move with the clock and splitter sizes that persist;
// a job stuck under a killed worker counted and listed where the operator looks.
#include <actions/actionengine.h>
#include <chartpanel.h>
#include <englishplurals.h>
#include <jobdetailtext.h>
#include <mainwindow.h>
#include <monitor/monitor.h>
#include <objecttablemodel.h>
#include <objecttableview.h>
#include <redis/redisclient.h>
#include <sectionpage.h>
#include <statusdetails.h>
#include <theme.h>

#include "redisserver.h"
#include "testconsole.h"

#include <QApplication>
#include <QComboBox>
#include <QDateTime>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QMainWindow>
#include <QPlainTextEdit>
#include <QProcess>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QTabBar>
#include <QTableView>
#include <QTableWidget>
#include <QTest>

using namespace gatehouse;
using gatehouse::test::RedisServer;
using gatehouse::test::TestConsole;
using gatehouse::test::TestConsoleOptions;

namespace {

const QString LibrariesDir = QStringLiteral(GATEHOUSE_LIBRARIES_DIR);

QString node(const RedisServer &server, const QString &queue, const QString &command,
             const QString &arg)
{
    QProcess p;
    p.start(QStringLiteral("node"), {LibrariesDir + QStringLiteral("/bullmq-app.js"),
                                     QStringLiteral("bullmq"), server.url(), queue, command, arg});
    if (!p.waitForFinished(60000) || p.exitCode() != 0)
        return QStringLiteral("<failed: %1>").arg(QString::fromUtf8(p.readAllStandardError()));
    return QString::fromUtf8(p.readAllStandardOutput()).trimmed();
}

// Whether a cell is drawn whole in its column: its delegate's size hint
// (text and margins) fits, so nothing is elided.
bool whole(const QAbstractItemView *view, const QModelIndex &index, int width)
{
    return view->sizeHintForIndex(index).width() <= width;
}

} // namespace

class tst_JobRoom : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QCoreApplication::setOrganizationName(QStringLiteral("GatehouseTest"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_jobroom"));
        QSettings().clear();
        QCoreApplication::installTranslator(new EnglishPlurals(this));
    }

    void detailReadsAsText()
    {
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        const qint64 processed = now - 5 * 60 * 1000;
        const QString detail
            = QStringLiteral(
                  "{\"data\": \"{\\\"to\\\":\\\"ops@example.com\\\",\\\"n\\\":1}\", "
                  "\"processedOn\": \"%1\", \"timestamp\": %2, \"attemptsMade\": \"1\", "
                  "\"stacktrace\": \"[\\\"Error: boom\\\\n    at work (w.js:3:9)\\\"]\", "
                  "\"failedReason\": \"boom\"}")
                  .arg(processed)
                  .arg(processed - 1000);
        const QString text = jobDetailText(detail, now);
        QVERIFY2(text.contains(QLatin1String("\"to\": \"ops@example.com\"")), qPrintable(text));
        QVERIFY2(text.contains(QLatin1String("stacktrace:\n    Error: boom\n        at work")),
                 qPrintable(text));
        QVERIFY2(!text.contains(QLatin1String("\\n")), qPrintable(text));
        const QString date = QDateTime::fromMSecsSinceEpoch(processed).toLocalTime().toString(
            QStringLiteral("yyyy-MM-dd HH:mm:ss"));
        QVERIFY2(text.contains(QStringLiteral("processedOn: %1 (5.0 min ago)").arg(date)),
                 qPrintable(text));
        QVERIFY2(!text.contains(QString::number(processed)), qPrintable(text));
        QVERIFY2(text.contains(QLatin1String("attemptsMade: 1")), qPrintable(text));
        // Not JSON: as it came.
        QCOMPARE(jobDetailText(QStringLiteral("plain"), now), QStringLiteral("plain"));
    }

    void countsNeverCutMidState()
    {
        const QString counts = QStringLiteral("wait 5 · active 1 · waiting-children 0 · "
                                              "delayed 3 · failed 2");
        const QFontMetrics fm(QApplication::font());
        for (int width = 20; width < fm.horizontalAdvance(counts) + 20; width += 7) {
            const QString shown = PartsElideDelegate::fitted(counts, fm, width);
            if (shown == counts)
                continue;
            for (const QString &part : shown.split(QStringLiteral(" · "))) {
                QVERIFY2(counts.contains(part) || part.startsWith(QLatin1Char('+'))
                             || part.endsWith(QLatin1String("states")),
                         qPrintable(shown));
            }
        }
    }

    void longMessageHasDetails()
    {
        QMainWindow window;
        window.resize(500, 300);
        auto *details = new StatusDetails(window.statusBar());
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.statusBar()->showMessage(QStringLiteral("Requeued."));
        QVERIFY(!details->linkShown());
        const QString text = QStringLiteral("Requeue: 3 of 4 done. Not done: job 17 changed "
                                            "since the list was read (its worker took it "
                                            "back); it was left as it is.");
        window.statusBar()->showMessage(text, 100);
        QVERIFY(details->linkShown());
        QCOMPARE(details->text(), text);
        QTRY_VERIFY(window.statusBar()->currentMessage().isEmpty());
        QVERIFY(details->linkShown()); // still reachable after the bar cleared it
        details->open();
        auto *box = window.findChild<QWidget *>(QStringLiteral("statusDetailsBox"));
        QVERIFY(box && box->isVisible());
    }

    void plurals()
    {
        QCOMPARE(QCoreApplication::translate("x", "%n job(s)", nullptr, 1),
                 QStringLiteral("1 job"));
        QCOMPARE(QCoreApplication::translate("x", "%n job(s)", nullptr, 3),
                 QStringLiteral("3 jobs"));
        QCOMPARE(QCoreApplication::translate("x", "no plural"), QStringLiteral("no plural"));
    }

    void windowSizes_data()
    {
        QTest::addColumn<QSize>("size");
        QTest::addColumn<bool>("dark");
        QTest::newRow("1280x800-light") << QSize(1280, 800) << false;
        QTest::newRow("1280x800-dark") << QSize(1280, 800) << true;
        QTest::newRow("1920x1080-light") << QSize(1920, 1080) << false;
        QTest::newRow("1920x1080-dark") << QSize(1920, 1080) << true;
    }

    // Key columns whole at both sizes; the last column, not the key's, takes
    // a wide window's room; ages move on between readings.
    void windowSizes()
    {
        QFETCH(QSize, size);
        QFETCH(bool, dark);
        theme::apply(dark ? theme::Scheme::Dark : theme::Scheme::Light);
        // Each size from the default splits: the last row's moved splitter
        // (persisted at its end) is not this one's.
        QSettings().remove(QStringLiteral("splitters"));
        if (!QFile::exists(LibrariesDir + QStringLiteral("/node_modules/bullmq/package.json")))
            QFAIL("npm packages missing: run .ci/install-deps");
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        const QString queue = QStringLiteral("notifications-high-priority-emails");
        QCOMPARE(node(server, queue, QStringLiteral("produce"), QStringLiteral("12")), QString());
        QCOMPARE(node(server, QStringLiteral("rq"), QStringLiteral("produce"), QStringLiteral("2")),
                 QString());

        QTemporaryDir dir; // no profile: autodetected
        gatehouse::test::TestConsole console(server, dir.filePath(QStringLiteral("audit.jsonl")),
                                             gatehouse::test::autodetected(size));
        MainWindow &window = *console.window;
        const QString section = QStringLiteral("queue");
        const QByteArray key = "bull:" + queue.toUtf8();
        QVERIFY(QTest::qWaitFor(
            [&] {
                const int row = window.model(section)->rowOf(key);
                return row >= 0 && window.model(section)->stateAt(row)->reading.atMs > 0;
            },
            10000));
        // The Overview's header and the side list count the same snapshot.
        window.showPage(0);
        auto *side = window.findChild<QListWidget *>(QStringLiteral("sideList"));
        QVERIFY(side);
        const auto overviewSays = [&] {
            return gatehouse::test::overviewCounts(window, QStringLiteral("Queues"));
        };
        const auto sideSays = [&] {
            return gatehouse::test::sideListCount(window, QStringLiteral("Queues"));
        };
        QTRY_VERIFY(overviewSays().contains(QStringLiteral("Queues: %1").arg(sideSays())));
        QCOMPARE(sideSays(), QString::number(window.model(section)->rowCount()));
        window.showPage(window.pageOf(section));
        SectionPage *page = window.sectionPage(section);
        QTableView *view = window.table(section);
        for (int row = 0; row < view->model()->rowCount(); ++row) {
            if (view->model()->index(row, 0).data(ObjectTableModel::KeyRole).toByteArray() == key)
                view->selectRow(row);
        }
        QTest::qWait(300);
        for (int row = 0; row < view->model()->rowCount(); ++row) {
            const QString text = view->model()->index(row, 0).data().toString();
            QVERIFY2(whole(view, view->model()->index(row, 0), view->columnWidth(0)),
                     qPrintable(QStringLiteral("%1 in %2 px").arg(text).arg(view->columnWidth(0))));
        }
        // Sized to its content, not half the window.
        QVERIFY2(view->columnWidth(0) < size.width() / 3,
                 qPrintable(QString::number(view->columnWidth(0))));
        // Every queue's row whole above the horizontal scroll bar.
        for (int row = 0; row < view->model()->rowCount(); ++row) {
            const QRect r = view->visualRect(view->model()->index(row, 0));
            QVERIFY2(r.bottom() < view->viewport()->height(),
                     qPrintable(QStringLiteral("row %1 ends at %2 in %3 px")
                                    .arg(row)
                                    .arg(r.bottom())
                                    .arg(view->viewport()->height())));
        }

        auto *stages = page->findChild<QTabBar *>(QStringLiteral("queueJobStages"));
        auto *state = page->findChild<QComboBox *>(QStringLiteral("queueJobState"));
        auto *jobs = page->findChild<QTableWidget *>(QStringLiteral("queueJobList"));
        QVERIFY(stages && state && jobs);
        for (int t = 0; t < stages->count(); ++t) {
            stages->setCurrentIndex(t);
            const int i = state->findData(QStringLiteral("wait"));
            if (i >= 0) {
                state->setCurrentIndex(i);
                break;
            }
        }
        QTRY_COMPARE(jobs->rowCount(), 12);
        for (int row = 0; row < jobs->rowCount(); ++row) {
            for (int c : {0, 1}) {
                const QString text = jobs->item(row, c)->text();
                QVERIFY2(
                    whole(jobs, jobs->model()->index(row, c), jobs->columnWidth(c)),
                    qPrintable(QStringLiteral("%1 in %2 px").arg(text).arg(jobs->columnWidth(c))));
            }
        }
        // Ages move with the clock between readings.
        const QString age = jobs->item(0, 2)->text();
        QTRY_VERIFY_WITH_TIMEOUT(jobs->item(0, 2)->text() != age, 5000);

        // The first job's detail, as the operator reads it; the window as a
        // screenshot when asked (GATEHOUSE_JOBROOM_SHOTS=DIR).
        jobs->selectRow(0);
        auto *detail = page->findChild<QPlainTextEdit *>(QStringLiteral("queueJobDetail"));
        QTRY_VERIFY(detail->toPlainText().contains(QLatin1String("timestamp:")));
        QVERIFY2(detail->toPlainText().contains(QLatin1String(" ago)")),
                 qPrintable(detail->toPlainText()));
        if (const QString shots = qEnvironmentVariable("GATEHOUSE_JOBROOM_SHOTS");
            !shots.isEmpty()) {
            // The charts drawn, as an operator sees them after a moment.
            QTRY_VERIFY_WITH_TIMEOUT(window.chart(section)->pointCount() > 2, 10000);
            window.grab().save(QStringLiteral("%1/jobbrowser-%2.png")
                                   .arg(shots, QString::fromLatin1(QTest::currentDataTag())));
        }

        // Sizes the operator chose persist.
        auto *splitter = page->findChild<QSplitter *>(QStringLiteral("queuePageSplitter"));
        QVERIFY(splitter);
        QList<int> sizes = splitter->sizes();
        QVERIFY(sizes.size() >= 2);
        Q_EMIT splitter->splitterMoved(10, 1);
        QVERIFY(!QSettings().value(QStringLiteral("splitters/queuePageSplitter")).isNull());
        console.monitor()->stop();
    }

    // A job whose worker was killed mid-job (npm bullmq's own worker, a
    // short lock) is what an operator opens the job browser for: the queue's
    // row counts it stuck, In flight is the tab shown, and the job is listed
    // there with its data. The window as a screenshot when asked
    // (GATEHOUSE_JOBROOM_SHOTS=DIR: jobbrowser-stuck-1920x1080-light.png).
    void stuckJobInTheBrowser()
    {
        theme::apply(theme::Scheme::Light);
        QSettings().remove(QStringLiteral("splitters"));
        if (!QFile::exists(LibrariesDir + QStringLiteral("/node_modules/bullmq/package.json")))
            QFAIL("npm packages missing: run .ci/install-deps");
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        const QString queue = QStringLiteral("payments");
        QCOMPARE(node(server, queue, QStringLiteral("produce"), QStringLiteral("6")), QString());
        QCOMPARE(
            node(server, QStringLiteral("emails"), QStringLiteral("produce"), QStringLiteral("3")),
            QString());
        // The worker takes the first job and hangs; killed (SIGKILL), its
        // lock (1.5 s) runs out with the job still active.
        QProcess worker;
        worker.start(QStringLiteral("node"),
                     {LibrariesDir + QStringLiteral("/bullmq-app.js"), QStringLiteral("bullmq"),
                      server.url(), queue, QStringLiteral("hang"), QStringLiteral("done")});
        QVERIFY(worker.waitForStarted(10000));
        QTRY_VERIFY_WITH_TIMEOUT(
            (worker.waitForReadyRead(100), worker.peek(4096).contains("taken job-1")), 30000);
        worker.kill();
        QVERIFY(worker.waitForFinished(10000));

        QTemporaryDir dir;
        TestConsoleOptions o;
        o.autodetect = true;
        o.size = QSize(1920, 1080);
        TestConsole console(server, dir.filePath(QStringLiteral("audit.jsonl")), o);
        MainWindow &window = *console.window;
        const QString section = QStringLiteral("queue");
        const QByteArray key = "bull:" + queue.toUtf8();
        const auto stuck = [&]() -> qint64 {
            const int row = window.model(section)->rowOf(key);
            return row < 0 ? -1 : window.model(section)->stateAt(row)->reading.queue().stuck;
        };
        QTRY_COMPARE_WITH_TIMEOUT(stuck(), qint64(1), 20000);
        QVERIFY(console.select(section, key));
        SectionPage *page = window.sectionPage(section);
        auto *stages = page->findChild<QTabBar *>(QStringLiteral("queueJobStages"));
        auto *jobs = page->findChild<QTableWidget *>(QStringLiteral("queueJobList"));
        auto *detail = page->findChild<QPlainTextEdit *>(QStringLiteral("queueJobDetail"));
        QVERIFY(stages && jobs && detail);
        QTRY_COMPARE(stages->tabText(stages->currentIndex()), QStringLiteral("In flight (1)"));
        QTRY_COMPARE(jobs->rowCount(), 1);
        QCOMPARE(jobs->item(0, 0)->text(), QStringLiteral("job-1"));
        jobs->selectRow(0);
        QTRY_VERIFY(detail->toPlainText().contains(QLatin1String("\"n\": 1")));
        // The detail's times say how long ago as the clock moves, not as
        // when the job was read.
        const auto processedOn = [&] {
            const QStringList lines = detail->toPlainText().split(QLatin1Char('\n'));
            for (const QString &l : lines) {
                if (l.startsWith(QLatin1String("processedOn:")))
                    return l;
            }
            return QString();
        };
        const QString first = processedOn();
        QVERIFY2(first.contains(QLatin1String(" ago)")), qPrintable(first));
        QTRY_VERIFY_WITH_TIMEOUT(processedOn() != first, 5000);
        if (const QString shots = qEnvironmentVariable("GATEHOUSE_JOBROOM_SHOTS");
            !shots.isEmpty()) {
            QTest::qWait(15000); // charts with a little history, as an operator finds them
            window.grab().save(shots + QStringLiteral("/jobbrowser-stuck-1920x1080-light.png"));
        }
    }
};

QTEST_MAIN(tst_JobRoom)
#include "tst_jobroom.moc"
