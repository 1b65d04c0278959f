// SPDX-License-Identifier: MIT
// The Queues page's job list and job detail on a real BullMQ queue (npm
// bullmq, tests/libraries/bullmq-app.js): found with no profile, each state's
// jobs a page at a time (never the whole list), a job's data as formatted
// JSON, and an action on the job chosen in the list, through its
// confirmation, that BullMQ itself then sees.
#include <actioninputdialog.h>
#include <actions/actionengine.h>
#include <mainwindow.h>
#include <monitor/monitor.h>
#include <objecttablemodel.h>
#include <redis/redisclient.h>
#include <sectionpage.h>

#include "redisserver.h"
#include "testconsole.h"

#include <QApplication>
#include <QComboBox>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProcess>
#include <QPushButton>
#include <QTabBar>
#include <QTableView>
#include <QTableWidget>
#include <QTest>
#include <QTimer>

using namespace gatehouse;
using gatehouse::test::call;
using gatehouse::test::RedisServer;

namespace {

const QString LibrariesDir = QStringLiteral(GATEHOUSE_LIBRARIES_DIR);

QString node(const RedisServer &server, const QString &command, const QString &arg)
{
    QProcess p;
    p.start(QStringLiteral("node"),
            {LibrariesDir + QStringLiteral("/bullmq-app.js"), QStringLiteral("bullmq"),
             server.url(), QStringLiteral("emails"), command, arg});
    if (!p.waitForFinished(60000) || p.exitCode() != 0)
        return QStringLiteral("<failed: %1>").arg(QString::fromUtf8(p.readAllStandardError()));
    return QString::fromUtf8(p.readAllStandardOutput()).trimmed();
}

} // namespace

class tst_QueueJobs : public QObject
{
    Q_OBJECT

private slots:
    void jobListDetailAndAction()
    {
        QVERIFY2(QFile::exists(LibrariesDir + QStringLiteral("/node_modules/bullmq/package.json")),
                 "npm packages missing: run .ci/install-deps");
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        std::unique_ptr<RedisClient> redis = gatehouse::test::connectedClient(server);
        QVERIFY(redis);
        QCOMPARE(node(server, QStringLiteral("produce"), QStringLiteral("120")), QString());
        QCOMPARE(node(server, QStringLiteral("produce-delayed"), QStringLiteral("3")), QString());

        QTemporaryDir dir; // no profile: autodetected
        gatehouse::test::TestConsole console(server, dir.filePath(QStringLiteral("audit.jsonl")),
                                             gatehouse::test::autodetected(QSize(1400, 900)));
        MainWindow &window = *console.window;

        const QString section = QStringLiteral("queue");
        QVERIFY(QTest::qWaitFor(
            [&] {
                const int row = window.model(section)->rowOf("bull:emails");
                return row >= 0 && window.model(section)->stateAt(row)->reading.atMs > 0;
            },
            10000));
        window.showPage(window.pageOf(section));
        SectionPage *page = window.sectionPage(section);
        QTableView *view = window.table(section);
        for (int row = 0; row < view->model()->rowCount(); ++row) {
            if (view->model()->index(row, 0).data(ObjectTableModel::KeyRole).toByteArray()
                == "bull:emails")
                view->selectRow(row);
        }
        auto *state = page->findChild<QComboBox *>(QStringLiteral("queueJobState"));
        auto *jobs = page->findChild<QTableWidget *>(QStringLiteral("queueJobList"));
        auto *range = page->findChild<QLabel *>(QStringLiteral("queueJobsRange"));
        auto *older = page->findChild<QPushButton *>(QStringLiteral("queueJobsNext"));
        auto *detail = page->findChild<QPlainTextEdit *>(QStringLiteral("queueJobDetail"));
        auto *stages = page->findChild<QTabBar *>(QStringLiteral("queueJobStages"));
        QVERIFY(state && jobs && range && older && detail && stages);
        // The library's states in the Waiting, In flight, Dead and Finished
        // tabs, In flight (where stuck work is) shown first.
        QCOMPARE(stages->count(), 4);
        QCOMPARE(stages->tabText(stages->currentIndex()), QStringLiteral("In flight (0)"));
        QCOMPARE(state->count(), 1);
        QCOMPARE(state->itemData(0).toString(), QStringLiteral("active"));
        // A state by its name: its tab, then the state in the tab's list.
        const auto show = [&](const char *s) {
            for (int t = 0; t < stages->count(); ++t) {
                stages->setCurrentIndex(t);
                const int i = state->findData(QLatin1String(s));
                if (i >= 0) {
                    state->setCurrentIndex(i);
                    return true;
                }
            }
            return false;
        };
        QVERIFY(show("completed"));

        // Each state with BullMQ's own count of it (Queue.getJobCounts).
        const QJsonObject counts
            = QJsonDocument::fromJson(node(server, QStringLiteral("counts"), QString()).toUtf8())
                  .object();
        QCOMPARE(counts.value(QStringLiteral("waiting")).toInt(), 120);
        const auto label = [&](const char *s) {
            show(s);
            return state->itemText(state->findData(QLatin1String(s)));
        };
        QTRY_COMPARE(
            label("wait"),
            QStringLiteral("wait (%1)").arg(counts.value(QStringLiteral("waiting")).toInt()));
        QCOMPARE(
            label("delayed"),
            QStringLiteral("delayed (%1)").arg(counts.value(QStringLiteral("delayed")).toInt()));
        QCOMPARE(label("active"),
                 QStringLiteral("active (%1)").arg(counts.value(QStringLiteral("active")).toInt()));

        // 120 waiting: 50 at a time, the newest first.
        QVERIFY(show("wait"));
        QVERIFY2(
            QTest::qWaitFor([&] { return range->text().contains(QLatin1String("of 120")); }, 5000),
            qPrintable(range->text()));
        QCOMPARE(range->text(), QStringLiteral("1–50 of 120 wait"));
        QCOMPARE(jobs->rowCount(), SectionPage::JobPageSize);
        QCOMPARE(jobs->item(0, 0)->text(), QStringLiteral("job-120"));
        QCOMPARE(jobs->item(0, 1)->text(), QStringLiteral("work"));
        QVERIFY(older->isEnabled());
        older->click();
        QVERIFY(QTest::qWaitFor([&] { return range->text().startsWith(QStringLiteral("51–100")); },
                                5000));
        older->click();
        QVERIFY(QTest::qWaitFor(
            [&] { return range->text() == QStringLiteral("101–120 of 120 wait"); }, 5000));
        QCOMPARE(jobs->rowCount(), 20);
        QCOMPARE(jobs->item(19, 0)->text(), QStringLiteral("job-1"));
        QVERIFY(!older->isEnabled());

        // A job's detail: its data and options as JSON.
        jobs->selectRow(19);
        QVERIFY2(
            QTest::qWaitFor(
                [&] { return detail->toPlainText().contains(QLatin1String("\"n\": 1")); }, 5000),
            qPrintable(detail->toPlainText()));
        // A field per line (JobDetailText), the payloads as indented JSON.
        QVERIFY2(detail->toPlainText().contains(QLatin1String("\nid: job-1\n")),
                 qPrintable(detail->toPlainText()));
        QVERIFY(detail->toPlainText().contains(QLatin1String("\nopts:\n  {")));
        // Pretty-printed (indented, not one escaped line), in a fixed font and
        // the normal text colour.
        QVERIFY2(detail->toPlainText().contains(QRegularExpression(QStringLiteral("\n +\"n\": 1"))),
                 qPrintable(detail->toPlainText()));
        QVERIFY(QFontInfo(detail->font()).fixedPitch());
        QCOMPARE(detail->palette().color(QPalette::Text), window.palette().color(QPalette::Text));
        // Which decoders read the payloads, named above them; the bytes as
        // stored one click away, and the decoded form back with the next.
        auto *decoder = page->findChild<QLabel *>(QStringLiteral("queueJobDecoder"));
        auto *raw = page->findChild<QPushButton *>(QStringLiteral("queueJobRaw"));
        QVERIFY(decoder && raw);
        QVERIFY2(decoder->text().contains(QLatin1String("data: JSON")),
                 qPrintable(decoder->text()));
        QVERIFY(raw->isEnabled());
        raw->click();
        QVERIFY2(detail->toPlainText().contains(QLatin1String("data: "))
                     && detail->toPlainText().contains(QLatin1String("bytes as stored")),
                 qPrintable(detail->toPlainText()));
        QVERIFY2(detail->toPlainText().contains(QLatin1String("7b 22")), // {"
                 qPrintable(detail->toPlainText()));
        raw->click();
        QVERIFY(detail->toPlainText().contains(QRegularExpression(QStringLiteral("\n +\"n\": 1"))));

        // Promote the delayed job chosen in the list; BullMQ sees it waiting.
        QVERIFY(show("delayed"));
        QVERIFY(QTest::qWaitFor([&] { return range->text() == QStringLiteral("1–3 of 3 delayed"); },
                                5000));
        const auto rowOf = [&](const QString &job) {
            for (int r = 0; r < jobs->rowCount(); ++r) {
                if (jobs->item(r, 0)->text() == job)
                    return r;
            }
            return -1;
        };
        QVERIFY(rowOf(QStringLiteral("delayed-1")) >= 0);
        jobs->selectRow(rowOf(QStringLiteral("delayed-1")));
        QVERIFY2(
            QTest::qWaitFor(
                [&] { return detail->toPlainText().contains(QLatin1String("\nid: delayed-1\n")); },
                5000),
            qPrintable(detail->toPlainText()));
        QVERIFY(detail->toPlainText().contains(QLatin1String("\ndelay: 3600000\n")));
        QString outcome;
        connect(&window, &MainWindow::actionFinished, this, [&](const QString &m) { outcome = m; });
        QObject owner;
        gatehouse::test::acceptNextConfirmation(&owner);
        auto *promote = page->findChild<QPushButton *>(QStringLiteral("promoteButton"));
        QVERIFY(promote);
        promote->click();
        QVERIFY2(QTest::qWaitFor([&] { return !outcome.isEmpty(); }, 5000), "no outcome");
        QVERIFY2(outcome.contains(QLatin1String("promoted")), qPrintable(outcome));
        QCOMPARE(node(server, QStringLiteral("state"), QStringLiteral("delayed-1")),
                 QStringLiteral("waiting"));
        QCOMPARE(node(server, QStringLiteral("state"), QStringLiteral("delayed-2")),
                 QStringLiteral("delayed"));
        // The list follows.
        QVERIFY2(QTest::qWaitFor(
                     [&] { return range->text() == QStringLiteral("1–2 of 2 delayed"); }, 5000),
                 qPrintable(range->text()));

        // A selection: both remaining promoted, one confirmation, one script each.
        jobs->selectAll();
        QCOMPARE(jobs->selectionModel()->selectedRows().size(), 2);
        outcome.clear();
        gatehouse::test::acceptNextConfirmation(&owner);
        promote->click();
        QVERIFY2(QTest::qWaitFor([&] { return !outcome.isEmpty(); }, 5000), "no outcome");
        QVERIFY2(outcome.contains(QLatin1String("2 of 2 jobs done")), qPrintable(outcome));
        for (const char *job : {"delayed-2", "delayed-3"})
            QCOMPARE(node(server, QStringLiteral("state"), QLatin1String(job)),
                     QStringLiteral("waiting"));
        QVERIFY2(QTest::qWaitFor([&] { return range->text() == QLatin1String("No delayed jobs."); },
                                 5000),
                 qPrintable(range->text()));
        QCOMPARE(jobs->rowCount(), 0);
        // Each job's action is in the audit log on its own.
        QFile audit(dir.filePath(QStringLiteral("audit.jsonl")));
        QVERIFY(audit.open(QIODevice::ReadOnly));
        const QByteArray log = audit.readAll();
        for (const char *job : {"delayed-1", "delayed-2", "delayed-3"})
            QVERIFY2(log.contains(job), log.constData());
        // The selected queue's active jobs under its own headers.
        auto *items = page->findChild<QTableWidget *>(QStringLiteral("queueItems"));
        QVERIFY(items);
        QCOMPARE(items->horizontalHeaderItem(4)->text(), QStringLiteral("Lock"));

        const QString shot = QStringLiteral(GATEHOUSE_SCREENSHOT_DIR "/queue-jobs.png");
        window.grab().save(shot);
        console.monitor()->stop();
    }
};

QTEST_MAIN(tst_QueueJobs)
#include "tst_queuejobs.moc"
