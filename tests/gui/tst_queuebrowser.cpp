// SPDX-License-Identifier: MIT
// The Queues page's job browser and the queue charts on a real BullMQ queue
// (npm bullmq, tests/libraries/bullmq-app.js) with a real worker: the
// Waiting / In flight / Dead / Finished tabs carry BullMQ's own counts;
// requeue from dead moves exactly the jobs chosen and purge removes only the
// dead jobs older than the age given, both through the confirmation and
// checked through BullMQ; the library's missing verb (BullMQ cannot fail a
// job from outside a worker) has no button; the queue's throughput chart and
// the Overview's chart of every queue get points once the worker has run
// jobs, live and from the history file; before 10 s of samples the
// throughput chart says it is measuring, or, on a console started again,
// starts from the history file's.
#include <actions/actionengine.h>
#include <chartpanel.h>
#include <historyrangebar.h>
#include <mainwindow.h>
#include <monitor/monitor.h>
#include <objecttablemodel.h>
#include <overviewpage.h>
#include <redis/redisclient.h>
#include <sectionpage.h>

#include "chartprobe.h"
#include "redisserver.h"
#include "testconsole.h"

#include <QApplication>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QProcess>
#include <QPushButton>
#include <QRegularExpression>
#include <QTabBar>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <qcustomplot.h>

using namespace gatehouse;
using gatehouse::test::plotTitled;
using gatehouse::test::RedisServer;

namespace {

const QString LibrariesDir = QStringLiteral(GATEHOUSE_LIBRARIES_DIR);

QProcess *bullmq(const RedisServer &server, const QStringList &args, int idBase = 0)
{
    auto *p = new QProcess;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    if (idBase > 0)
        env.insert(QStringLiteral("JOB_ID_BASE"), QString::number(idBase));
    p->setProcessEnvironment(env);
    p->start(QStringLiteral("node"),
             QStringList{LibrariesDir + QStringLiteral("/bullmq-app.js"), QStringLiteral("bullmq"),
                         server.url(), QStringLiteral("emails")}
                 + args);
    return p;
}

QString node(const RedisServer &server, const QStringList &args, int idBase = 0)
{
    std::unique_ptr<QProcess> p(bullmq(server, args, idBase));
    if (!p->waitForFinished(60000) || p->exitCode() != 0)
        return QStringLiteral("<failed: %1>").arg(QString::fromUtf8(p->readAllStandardError()));
    return QString::fromUtf8(p->readAllStandardOutput()).trimmed();
}

const QString Ruby = QStringLiteral("/usr/bin/ruby");
const QString SidekiqBin = QStringLiteral("/usr/bin/sidekiq");
const QString SidekiqApp = LibrariesDir + QStringLiteral("/sidekiq_app.rb");

QString sidekiq(const QString &url, const QStringList &args)
{
    QProcess p;
    p.start(Ruby, QStringList{SidekiqApp, url} + args);
    if (!p.waitForFinished(60000) || p.exitCode() != 0)
        return QStringLiteral("<failed: %1>").arg(QString::fromUtf8(p.readAllStandardError()));
    return QString::fromUtf8(p.readAllStandardOutput()).trimmed();
}

QJsonObject sidekiqStats(const QString &url)
{
    return QJsonDocument::fromJson(sidekiq(url, {QStringLiteral("stats")}).toUtf8()).object();
}

QString stateOf(const RedisServer &server, const QString &job)
{
    return node(server, {QStringLiteral("state"), job});
}

QJsonObject counts(const RedisServer &server)
{
    return QJsonDocument::fromJson(node(server, {QStringLiteral("counts")}).toUtf8()).object();
}

// Answers the next modal dialogs: the input dialog (its fields set from
// inputs, then OK) and the confirmation (OK); what each said is kept.
class DialogAnswerer : public QObject
{
public:
    QHash<QString, QString> inputs;
    QStringList seen; // "input" or "confirm: <text>", in order

    DialogAnswerer()
    {
        m_timer.setInterval(10);
        connect(&m_timer, &QTimer::timeout, this, [this] {
            QWidget *modal = QApplication::activeModalWidget();
            if (!modal || modal == m_last)
                return;
            if (auto *box = qobject_cast<QMessageBox *>(modal)) {
                m_last = modal;
                seen << QStringLiteral("confirm: ") + box->text();
                box->button(QMessageBox::Ok)->click();
            } else if (auto *dialog = qobject_cast<QDialog *>(modal)) {
                m_last = modal;
                seen << QStringLiteral("input");
                for (auto it = inputs.cbegin(); it != inputs.cend(); ++it) {
                    if (auto *edit = dialog->findChild<QLineEdit *>(it.key()))
                        edit->setText(it.value());
                }
                auto *box = dialog->findChild<QDialogButtonBox *>();
                box->button(QDialogButtonBox::Ok)->click();
            }
        });
        m_timer.start();
    }

private:
    QTimer m_timer;
    QPointer<QWidget> m_last;
};

// The largest value any graph of the plot titled title draws; -1 when none.
double largest(QWidget *panel, const QString &title)
{
    QCustomPlot *plot = plotTitled(panel, title);
    double most = -1;
    for (int g = 0; plot && g < plot->graphCount(); ++g) {
        for (auto it = plot->graph(g)->data()->constBegin();
             it != plot->graph(g)->data()->constEnd(); ++it)
            most = std::max(most, it->value);
    }
    return most;
}

// The points the plot titled title draws.
int pointsOf(QWidget *panel, const QString &title)
{
    QCustomPlot *plot = plotTitled(panel, title);
    int n = 0;
    for (int g = 0; plot && g < plot->graphCount(); ++g)
        n += plot->graph(g)->dataCount();
    return n;
}

// How long the monitor's own samples of key's figure span (ms), as the
// window's latest snapshot carries them.
double liveSpanMs(const MainWindow &window, const QByteArray &key, const QString &figure)
{
    const std::shared_ptr<const Snapshot> s = window.snapshot();
    const ObjectHistoryPtr h = s ? s->history.value(key) : ObjectHistoryPtr();
    const QList<QPointF> points = h ? h->points(figure) : QList<QPointF>();
    return points.size() < 2 ? 0.0 : points.last().x() - points.first().x();
}

const QString Measuring = QStringLiteral("measuring… (needs 10 s)");

// Selects key's row on the Queues page once it has been read.
bool selectQueue(MainWindow &window, const QByteArray &key)
{
    const QString section = QStringLiteral("queue");
    if (!QTest::qWaitFor(
            [&] {
                const int row = window.model(section)->rowOf(key);
                return row >= 0 && window.model(section)->stateAt(row)->reading.atMs > 0;
            },
            10000))
        return false;
    window.showPage(window.pageOf(section));
    QTableView *view = window.table(section);
    for (int row = 0; row < view->model()->rowCount(); ++row) {
        if (view->model()->index(row, 0).data(ObjectTableModel::KeyRole).toByteArray() == key) {
            view->selectRow(row);
            return true;
        }
    }
    return false;
}

// A console on server with its history in dir, the queues autodetected.
struct QueueConsole : test::TestConsole
{
    QueueConsole(const RedisServer &server, const QString &dir)
        : test::TestConsole(server, dir + QStringLiteral("/audit.jsonl"), options(dir))
    {}
    static test::TestConsoleOptions options(const QString &dir)
    {
        test::TestConsoleOptions o = test::autodetected(QSize(1400, 1000));
        o.historyFile = dir + QStringLiteral("/history.sqlite");
        return o;
    }
};

} // namespace

class tst_QueueBrowser : public QObject
{
    Q_OBJECT

private slots:
    void bullmqTabsVerbsAndCharts()
    {
        QVERIFY2(QFile::exists(LibrariesDir + QStringLiteral("/node_modules/bullmq/package.json")),
                 "npm packages missing: run .ci/install-deps");
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        QCOMPARE(node(server, {QStringLiteral("produce"), QStringLiteral("4")}), QString());

        QTemporaryDir dir;
        QueueConsole console(server, dir.path());
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
        auto *stages = page->findChild<QTabBar *>(QStringLiteral("queueJobStages"));
        auto *state = page->findChild<QComboBox *>(QStringLiteral("queueJobState"));
        auto *jobs = page->findChild<QTableWidget *>(QStringLiteral("queueJobList"));
        auto *range = page->findChild<QLabel *>(QStringLiteral("queueJobsRange"));
        auto *requeueDead = page->findChild<QPushButton *>(QStringLiteral("queueRequeueDead"));
        auto *deadLetter = page->findChild<QPushButton *>(QStringLiteral("queueDeadLetter"));
        auto *purge = page->findChild<QPushButton *>(QStringLiteral("queuePurgeDead"));
        QVERIFY(stages && state && jobs && range && requeueDead && deadLetter && purge);
        const auto tabOf = [&](const QString &name) {
            for (int t = 0; t < stages->count(); ++t) {
                if (stages->tabText(t).startsWith(name + QStringLiteral(" (")))
                    return t;
            }
            return -1;
        };
        QVERIFY(tabOf(QStringLiteral("Waiting")) >= 0);
        QVERIFY(tabOf(QStringLiteral("In flight")) >= 0);
        QVERIFY(tabOf(QStringLiteral("Dead")) >= 0);
        QVERIFY(tabOf(QStringLiteral("Finished")) >= 0);

        // The queue's charts are being drawn (its history is kept) before
        // any job runs.
        QVERIFY(QTest::qWaitFor([&] { return page->chart()->pointCount() > 10; }, 10000));
        // Its throughput is a rise per minute over at least 10 s of samples;
        // before that (and with nothing from an earlier run in the new
        // history file) the chart says it is measuring instead of staying
        // empty. A slow start may be past 10 s: then it draws.
        double span = liveSpanMs(window, "bull:emails", QStringLiteral("completed"));
        if (span >= 9000 && span <= 11000) { // refreshes every 500 ms: not at the edge
            QTest::qWait(2500);
            span = liveSpanMs(window, "bull:emails", QStringLiteral("completed"));
        }
        QVERIFY2(page->chart()->placeholders().contains(Measuring) == (span < 9000),
                 qPrintable(QStringLiteral("samples over %1 ms; the charts say: %2")
                                .arg(span)
                                .arg(page->chart()->placeholders().join(QLatin1String(" | ")))));
        // A real worker runs the 4 jobs and fails 3 more; 6 s later, 3 more
        // fail: two generations of dead jobs for the purge to tell apart.
        std::unique_ptr<QProcess> worker(
            bullmq(server, {QStringLiteral("work"), QStringLiteral("ran")}));
        QVERIFY(worker->waitForReadyRead(30000)); // "working"
        QCOMPARE(node(server, {QStringLiteral("produce-failing"), QStringLiteral("3")}), QString());
        QTRY_COMPARE_WITH_TIMEOUT(counts(server).value(QStringLiteral("failed")).toInt(), 3, 20000);
        QTRY_COMPARE_WITH_TIMEOUT(counts(server).value(QStringLiteral("completed")).toInt(), 4,
                                  20000);
        // The queue's throughput chart: the jobs finished per minute, from
        // the rises of BullMQ's completed and failed counts.
        QVERIFY2(
            QTest::qWaitFor(
                [&] { return largest(page->chart(), QStringLiteral("Throughput")) > 0; }, 30000),
            "the throughput chart got no point above 0 after the worker ran 7 jobs");
        QVERIFY(!page->chart()->placeholders().contains(Measuring));
        QTest::qWait(6000);
        QCOMPARE(node(server, {QStringLiteral("produce-failing"), QStringLiteral("3")}, 3),
                 QString());
        QTRY_COMPARE_WITH_TIMEOUT(counts(server).value(QStringLiteral("failed")).toInt(), 6, 20000);
        worker->terminate();
        QVERIFY(worker->waitForFinished(30000));

        // Each tab with BullMQ's own counts (Queue.getJobCounts), summed
        // over the states it holds, each state with its own.
        const QJsonObject library = counts(server);
        const int waiting = library.value(QStringLiteral("waiting")).toInt()
                            + library.value(QStringLiteral("paused")).toInt()
                            + library.value(QStringLiteral("prioritized")).toInt()
                            + library.value(QStringLiteral("delayed")).toInt()
                            + library.value(QStringLiteral("waiting-children")).toInt();
        QTRY_COMPARE(
            stages->tabText(tabOf(QStringLiteral("Dead"))),
            QStringLiteral("Dead (%1)").arg(library.value(QStringLiteral("failed")).toInt()));
        QCOMPARE(stages->tabText(tabOf(QStringLiteral("Finished"))),
                 QStringLiteral("Finished (%1)")
                     .arg(library.value(QStringLiteral("completed")).toInt()));
        QCOMPARE(stages->tabText(tabOf(QStringLiteral("Waiting"))),
                 QStringLiteral("Waiting (%1)").arg(waiting));
        QCOMPARE(
            stages->tabText(tabOf(QStringLiteral("In flight"))),
            QStringLiteral("In flight (%1)").arg(library.value(QStringLiteral("active")).toInt()));

        // Waiting: BullMQ offers no verb there that the browser names.
        stages->setCurrentIndex(tabOf(QStringLiteral("Waiting")));
        QCOMPARE(state->itemData(0).toString(), QStringLiteral("wait"));
        QVERIFY(requeueDead->isHidden() && purge->isHidden() && deadLetter->isHidden());

        // Dead: BullMQ's failed set, newest first.
        stages->setCurrentIndex(tabOf(QStringLiteral("Dead")));
        QCOMPARE(state->count(), 1);
        QCOMPARE(state->currentText(), QStringLiteral("failed (6)"));
        QVERIFY2(QTest::qWaitFor([&] { return range->text() == QStringLiteral("1–6 of 6 failed"); },
                                 5000),
                 qPrintable(range->text()));
        // Requeue from dead and purge are BullMQ's (Job.retry, Queue.clean);
        // BullMQ cannot fail a job from outside its worker: no such button.
        QVERIFY(!requeueDead->isHidden());
        QVERIFY(!purge->isHidden());
        QVERIFY(deadLetter->isHidden());
        QVERIFY(!requeueDead->isEnabled()); // nothing chosen yet
        QVERIFY(requeueDead->toolTip().contains(QLatin1String("Choose")));
        QVERIFY(purge->isEnabled());

        // Requeue from dead: exactly the two jobs chosen, one confirmation.
        const auto rowOf = [&](const QString &job) {
            for (int r = 0; r < jobs->rowCount(); ++r) {
                if (jobs->item(r, 0)->text() == job)
                    return r;
            }
            return -1;
        };
        for (const char *job : {"failing-2", "failing-5"}) {
            const int r = rowOf(QLatin1String(job));
            QVERIFY2(r >= 0, job);
            jobs->selectionModel()->select(jobs->model()->index(r, 0),
                                           QItemSelectionModel::Select | QItemSelectionModel::Rows);
        }
        QVERIFY(requeueDead->isEnabled());
        QString outcome;
        connect(&window, &MainWindow::actionFinished, this, [&](const QString &m) { outcome = m; });
        {
            DialogAnswerer answer;
            requeueDead->click();
            QVERIFY2(QTest::qWaitFor([&] { return !outcome.isEmpty(); }, 10000), "no outcome");
            QCOMPARE(answer.seen.size(), 1); // the confirmation only: nothing to type
            QVERIFY2(answer.seen.first().startsWith(QLatin1String("confirm: ")),
                     qPrintable(answer.seen.first()));
        }
        QVERIFY2(outcome.contains(QLatin1String("2 of 2 jobs done")), qPrintable(outcome));
        // Said in the button's words, not the action's id.
        QVERIFY2(QRegularExpression(QStringLiteral("^[A-Z][a-z ]*: 2 of 2 jobs done"))
                     .match(outcome)
                     .hasMatch(),
                 qPrintable(outcome));
        for (const char *job : {"failing-2", "failing-5"})
            QCOMPARE(stateOf(server, QLatin1String(job)), QStringLiteral("waiting"));
        for (const char *job : {"failing-1", "failing-3", "failing-4", "failing-6"})
            QCOMPARE(stateOf(server, QLatin1String(job)), QStringLiteral("failed"));
        QVERIFY2(QTest::qWaitFor([&] { return range->text() == QStringLiteral("1–4 of 4 failed"); },
                                 5000),
                 qPrintable(range->text()));

        // Purge: asks the age, confirms, then removes only the dead jobs
        // that failed longer ago than that (the first generation), as
        // BullMQ's Queue.clean does; the requeued and completed ones stay.
        std::unique_ptr<RedisClient> redis = gatehouse::test::connectedClient(server);
        QVERIFY(redis);
        const RedisValue failed = gatehouse::test::call(
            *redis, {"ZRANGE", "bull:emails:failed", "0", "-1", "WITHSCORES"});
        QCOMPARE(failed.size(), 8);
        QHash<QByteArray, qint64> failedAt;
        for (int i = 0; i + 1 < failed.size(); i += 2)
            failedAt.insert(failed.at(i).bytes(), failed.at(i + 1).bytes().toLongLong());
        const qint64 oldest = std::max(failedAt.value("failing-1"), failedAt.value("failing-3"));
        const qint64 newest = std::min(failedAt.value("failing-4"), failedAt.value("failing-6"));
        QVERIFY2(newest - oldest >= 4000, "the two generations failed too close together");
        const RedisValue time = gatehouse::test::call(*redis, {"TIME"});
        const qint64 nowMs
            = time.at(0).bytes().toLongLong() * 1000 + time.at(1).bytes().toLongLong() / 1000;
        const qint64 olderThan = nowMs - (oldest + newest) / 2;
        outcome.clear();
        {
            DialogAnswerer answer;
            answer.inputs.insert(QStringLiteral("input_older-than"), QString::number(olderThan));
            purge->click();
            QVERIFY2(QTest::qWaitFor([&] { return !outcome.isEmpty(); }, 10000), "no outcome");
            QCOMPARE(answer.seen.size(), 2);
            QCOMPARE(answer.seen.at(0), QStringLiteral("input"));
            QVERIFY2(answer.seen.at(1).contains(QLatin1String("failed")),
                     qPrintable(answer.seen.at(1)));
        }
        QVERIFY2(outcome.contains(QLatin1String("Removed 2 jobs")), qPrintable(outcome));
        for (const char *job : {"failing-1", "failing-3"})
            QCOMPARE(stateOf(server, QLatin1String(job)), QStringLiteral("missing"));
        for (const char *job : {"failing-4", "failing-6"})
            QCOMPARE(stateOf(server, QLatin1String(job)), QStringLiteral("failed"));
        for (const char *job : {"failing-2", "failing-5"})
            QCOMPARE(stateOf(server, QLatin1String(job)), QStringLiteral("waiting"));
        QCOMPARE(counts(server).value(QStringLiteral("completed")).toInt(), 4);
        QTRY_COMPARE(stages->tabText(tabOf(QStringLiteral("Dead"))), QStringLiteral("Dead (2)"));

        QTest::qWait(300); // the queued replot
        const QString shot = QStringLiteral(GATEHOUSE_SCREENSHOT_DIR "/queue-browser.png");
        window.grab().save(shot);

        // The queue's throughput from the history file too (the last hour).
        page->chart()->rangeBar()->setMode(HistoryRangeBar::Mode::LastHour);
        QVERIFY2(QTest::qWaitFor(
                     [&] {
                         return !page->chart()->isLoading()
                                && largest(page->chart(), QStringLiteral("Throughput")) > 0;
                     },
                     15000),
                 "no throughput from the history file");

        // The Overview: stuck, in flight and throughput of every queue.
        auto *overview = window.findChild<OverviewPage *>();
        QVERIFY(overview);
        window.showPage(0);
        QCOMPARE(window.page(0), static_cast<QWidget *>(overview));
        ChartPanel *chart = overview->queueChart();
        QVERIFY2(QTest::qWaitFor([&] { return largest(chart, QStringLiteral("Throughput")) > 0; },
                                 10000),
                 "the Overview's throughput got no point above 0");
        QVERIFY(largest(chart, QStringLiteral("Stuck and in flight")) >= 0);
        QTest::qWait(300); // the queued replot
        window.grab().save(QStringLiteral(GATEHOUSE_SCREENSHOT_DIR "/overview-queues.png"));
        // Older ranges: every queue's figures summed from the history file.
        chart->rangeBar()->setMode(HistoryRangeBar::Mode::LastHour);
        QVERIFY2(QTest::qWaitFor(
                     [&] {
                         return !chart->isLoading()
                                && largest(chart, QStringLiteral("Throughput")) > 0;
                     },
                     15000),
                 "the Overview's throughput got nothing from the history file");
        console.monitor()->stop();
    }

    // A console started again on a history file: the queue's throughput
    // starts from the earlier run's samples in the file, at once, not after
    // 10 s of its own.
    void throughputStartsFromHistoryFile()
    {
        QVERIFY2(QFile::exists(LibrariesDir + QStringLiteral("/node_modules/bullmq/package.json")),
                 "npm packages missing: run .ci/install-deps");
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        QCOMPARE(node(server, {QStringLiteral("produce"), QStringLiteral("5")}), QString());
        QTemporaryDir dir;
        const QString throughput = QStringLiteral("Throughput");
        {
            QueueConsole first(server, dir.path());
            QVERIFY(selectQueue(*first.window, "bull:emails"));
            ChartPanel *chart = first.window->sectionPage(QStringLiteral("queue"))->chart();
            // Samples before the jobs run: the rise is seen.
            QVERIFY(QTest::qWaitFor([&] { return chart->pointCount() > 10; }, 10000));
            std::unique_ptr<QProcess> worker(
                bullmq(server, {QStringLiteral("work"), QStringLiteral("ran")}));
            QVERIFY(worker->waitForReadyRead(30000)); // "working"
            QTRY_COMPARE_WITH_TIMEOUT(counts(server).value(QStringLiteral("completed")).toInt(), 5,
                                      20000);
            QVERIFY2(QTest::qWaitFor([&] { return largest(chart, throughput) > 0; }, 30000),
                     "the first run's throughput chart got no point above 0");
            worker->terminate();
            QVERIFY(worker->waitForFinished(30000));
        } // closed: its samples are in the file

        QueueConsole second(server, dir.path());
        QVERIFY(selectQueue(*second.window, "bull:emails"));
        ChartPanel *chart = second.window->sectionPage(QStringLiteral("queue"))->chart();
        QVERIFY2(QTest::qWaitFor([&] { return pointsOf(chart, throughput) > 0; }, 10000),
                 qPrintable(chart->placeholders().join(QLatin1String(" | "))));
        // Drawn while the second run's own samples span too little for a rise.
        const double span = liveSpanMs(*second.window, "bull:emails", QStringLiteral("completed"));
        QVERIFY2(span < 10000, qPrintable(QString::number(span)));
        QVERIFY(largest(chart, throughput) > 0); // the jobs done in the first run
        QVERIFY(!chart->placeholders().contains(Measuring));
    }

    // Sidekiq (Debian ruby-sidekiq 6.x): kill (to the dead set) from the
    // retry set, and retry from the dead set, through Sidekiq Web's own
    // moves; no purge button (Sidekiq has no "dead jobs older than").
    void sidekiqDeadLetterAndRequeueFromDead()
    {
        QVERIFY2(QFile::exists(Ruby) && QFile::exists(SidekiqBin),
                 "/usr/bin/ruby or /usr/bin/sidekiq is missing: run .ci/install-deps "
                 "(Debian ruby-sidekiq)");
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        const QString url = server.url();
        // Three jobs a real worker fails once each: into the retry set, to
        // run again in an hour.
        for (const char *tag : {"a", "b", "c"})
            QCOMPARE(sidekiq(url, {QStringLiteral("push"), QStringLiteral("FailOnceJob"),
                                   QLatin1String(tag)})
                         .size(),
                     24);
        {
            QProcess worker;
            QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
            env.insert(QStringLiteral("REDIS_URL"), url);
            worker.setProcessEnvironment(env);
            worker.setStandardOutputFile(server.dir() + QStringLiteral("/sidekiq.log"));
            worker.setStandardErrorFile(server.dir() + QStringLiteral("/sidekiq.log"));
            worker.start(SidekiqBin, {QStringLiteral("-r"), SidekiqApp, QStringLiteral("-c"),
                                      QStringLiteral("1")});
            QVERIFY(worker.waitForStarted(10000));
            QTRY_COMPARE_WITH_TIMEOUT(sidekiqStats(url).value(QStringLiteral("retry")).toInt(), 3,
                                      60000);
            worker.kill();
            QVERIFY(worker.waitForFinished(10000));
        }

        QTemporaryDir dir; // no profile: autodetected
        gatehouse::test::TestConsole console(server, dir.filePath(QStringLiteral("audit.jsonl")),
                                             gatehouse::test::autodetected(QSize(1400, 1000)));
        MainWindow &window = *console.window;
        const QString section = QStringLiteral("queue");
        QByteArray key;
        QVERIFY(QTest::qWaitFor(
            [&] {
                ObjectTableModel *model = window.model(section);
                for (int row = 0; row < model->rowCount(); ++row) {
                    const ObjectState *s = model->stateAt(row);
                    if (s->object->kind.id() == QLatin1String("sidekiq") && s->reading.atMs > 0)
                        key = s->object->key;
                }
                return !key.isEmpty();
            },
            15000));
        window.showPage(window.pageOf(section));
        SectionPage *page = window.sectionPage(section);
        QVERIFY(page->selectKey(key));
        auto *stages = page->findChild<QTabBar *>(QStringLiteral("queueJobStages"));
        auto *state = page->findChild<QComboBox *>(QStringLiteral("queueJobState"));
        auto *jobs = page->findChild<QTableWidget *>(QStringLiteral("queueJobList"));
        auto *range = page->findChild<QLabel *>(QStringLiteral("queueJobsRange"));
        auto *requeueDead = page->findChild<QPushButton *>(QStringLiteral("queueRequeueDead"));
        auto *deadLetter = page->findChild<QPushButton *>(QStringLiteral("queueDeadLetter"));
        auto *purge = page->findChild<QPushButton *>(QStringLiteral("queuePurgeDead"));
        QVERIFY(stages && state && jobs && range && requeueDead && deadLetter && purge);
        QCOMPARE(stages->count(), 3); // Sidekiq keeps no finished jobs
        const auto tab = [&](const QString &name) {
            for (int t = 0; t < stages->count(); ++t) {
                if (stages->tabText(t).startsWith(name + QStringLiteral(" (")))
                    return t;
            }
            return -1;
        };
        // Sidekiq::Stats' own counts.
        QJsonObject stats = sidekiqStats(url);
        QTRY_COMPARE(stages->tabText(tab(QStringLiteral("Waiting"))),
                     QStringLiteral("Waiting (%1)")
                         .arg(stats.value(QStringLiteral("enqueued")).toInt()
                              + stats.value(QStringLiteral("scheduled")).toInt()
                              + stats.value(QStringLiteral("retry")).toInt()));
        QCOMPARE(stages->tabText(tab(QStringLiteral("Dead"))),
                 QStringLiteral("Dead (%1)").arg(stats.value(QStringLiteral("dead")).toInt()));

        // The retry set: Kill moves the two chosen to the dead set.
        stages->setCurrentIndex(tab(QStringLiteral("Waiting")));
        state->setCurrentIndex(state->findData(QStringLiteral("retry")));
        QCOMPARE(state->currentText(), QStringLiteral("retry (3)"));
        QVERIFY2(QTest::qWaitFor([&] { return range->text() == QStringLiteral("1–3 of 3 retry"); },
                                 10000),
                 qPrintable(range->text()));
        QVERIFY(!deadLetter->isHidden());
        QVERIFY(requeueDead->isHidden() && purge->isHidden());
        QVERIFY(!deadLetter->isEnabled());
        QStringList chosen;
        for (int r = 0; r < 2; ++r) {
            jobs->selectionModel()->select(jobs->model()->index(r, 0),
                                           QItemSelectionModel::Select | QItemSelectionModel::Rows);
            chosen << jobs->item(r, 0)->text();
        }
        QString outcome;
        connect(&window, &MainWindow::actionFinished, this, [&](const QString &m) { outcome = m; });
        {
            DialogAnswerer answer;
            deadLetter->click();
            QVERIFY2(QTest::qWaitFor([&] { return !outcome.isEmpty(); }, 10000), "no outcome");
            QCOMPARE(answer.seen.size(), 1); // "from" is the tab's: nothing asked
        }
        QVERIFY2(outcome.contains(QLatin1String("2 of 2 jobs done")), qPrintable(outcome));
        stats = sidekiqStats(url);
        QCOMPARE(stats.value(QStringLiteral("retry")).toInt(), 1);
        QCOMPARE(stats.value(QStringLiteral("dead")).toInt(), 2);
        QTRY_COMPARE(stages->tabText(tab(QStringLiteral("Dead"))), QStringLiteral("Dead (2)"));

        // The dead set: Retry Now takes exactly the one chosen back to its queue.
        stages->setCurrentIndex(tab(QStringLiteral("Dead")));
        QCOMPARE(state->currentText(), QStringLiteral("dead (2)"));
        QVERIFY2(QTest::qWaitFor([&] { return range->text() == QStringLiteral("1–2 of 2 dead"); },
                                 10000),
                 qPrintable(range->text()));
        QVERIFY(!requeueDead->isHidden());
        QVERIFY(purge->isHidden() && deadLetter->isHidden());
        const QString revived = jobs->item(0, 0)->text();
        QVERIFY(chosen.contains(revived));
        jobs->selectRow(0);
        outcome.clear();
        {
            DialogAnswerer answer;
            requeueDead->click();
            QVERIFY2(QTest::qWaitFor([&] { return !outcome.isEmpty(); }, 10000), "no outcome");
            QCOMPARE(answer.seen.size(), 1);
        }
        QVERIFY2(outcome.contains(QLatin1String("was pushed to its queue")), qPrintable(outcome));
        stats = sidekiqStats(url);
        QCOMPARE(stats.value(QStringLiteral("dead")).toInt(), 1);
        QCOMPARE(stats.value(QStringLiteral("enqueued")).toInt(), 1);
        QCOMPARE(stats.value(QStringLiteral("retry")).toInt(), 1);

        // Throughput from Sidekiq's own counters (stat:processed and
        // stat:failed, which its processes flush with each heartbeat): a
        // real worker runs the revived job and five more.
        for (int i = 0; i < 5; ++i)
            QCOMPARE(sidekiq(url, {QStringLiteral("push"), QStringLiteral("HangJob"),
                                   QStringLiteral("quick-%1").arg(i)})
                         .size(),
                     24);
        const int processedBefore = stats.value(QStringLiteral("processed")).toInt();
        QProcess worker;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("REDIS_URL"), url);
        worker.setProcessEnvironment(env);
        worker.setStandardOutputFile(server.dir() + QStringLiteral("/sidekiq2.log"));
        worker.setStandardErrorFile(server.dir() + QStringLiteral("/sidekiq2.log"));
        worker.start(SidekiqBin,
                     {QStringLiteral("-r"), SidekiqApp, QStringLiteral("-c"), QStringLiteral("1")});
        QVERIFY(worker.waitForStarted(10000));
        QTRY_VERIFY_WITH_TIMEOUT(sidekiqStats(url).value(QStringLiteral("processed")).toInt()
                                     >= processedBefore + 6,
                                 60000);
        // The queue's throughput chart, as BullMQ's: processed and failed per minute.
        QVERIFY2(
            QTest::qWaitFor(
                [&] { return largest(page->chart(), QStringLiteral("Throughput")) > 0; }, 30000),
            "the Sidekiq throughput chart got no point above 0 after the worker ran 6 jobs");
        // The table's Throughput column: jobs per minute over the last minute.
        ObjectTableModel *model = window.model(section);
        int throughputColumn = -1;
        for (int c = 0; c < model->columnCount(); ++c) {
            if (model->headerData(c, Qt::Horizontal).toString() == QLatin1String("Throughput"))
                throughputColumn = c;
        }
        QVERIFY(throughputColumn >= 0);
        const auto cell = [&] {
            const int row = model->rowOf(key);
            return model->index(row, throughputColumn).data().toString();
        };
        QVERIFY2(QTest::qWaitFor(
                     [&] {
                         return cell().endsWith(QLatin1String(" /min"))
                                && cell().section(QLatin1Char(' '), 0, 0).toDouble() > 0;
                     },
                     30000),
                 qPrintable(cell()));
        // Sidekiq's counters as its dashboard shows them, in the Counts column.
        stats = sidekiqStats(url);
        QTRY_VERIFY2_WITH_TIMEOUT(
            model->stateAt(model->rowOf(key))->reading.library().countOf(u"processed")
                == stats.value(QStringLiteral("processed")).toInt(),
            qPrintable(QString::number(
                model->stateAt(model->rowOf(key))->reading.library().countOf(u"processed"))),
            10000);
        QCOMPARE(model->stateAt(model->rowOf(key))->reading.library().countOf(u"failed"),
                 qint64(stats.value(QStringLiteral("failed")).toInt()));
        worker.terminate();
        QVERIFY(worker.waitForFinished(15000));
        if (const QString shots = qEnvironmentVariable("GATEHOUSE_SHOTS"); !shots.isEmpty())
            window.grab().save(shots + QStringLiteral("/queues-sidekiq-throughput.png"));
        console.monitor()->stop();
    }
};

QTEST_MAIN(tst_QueueBrowser)
#include "tst_queuebrowser.moc"
