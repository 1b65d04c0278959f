// SPDX-License-Identifier: MIT
// An operator's first hour, walked in the real window (offscreen) against a
// real redis-server, with each job library's own producer and worker: a
// worker is killed in the middle of a job. The console, with no profile,
// counts the job stuck in its queue's row, names the queue on the Overview's
// "Needs attention" list, counts the job on the Stuck tile and the one queue
// alike in the header, the side list and the page; the operator selects the
// queue, then the job In flight, and runs Requeue through its confirmation.
// The outcome says where the job went,
// Redis (and the library's own API) has it exactly there and no longer in
// flight, within two ticks the row counts nothing stuck, and the attention
// line is gone. Where the library gives a dead worker's job a grace (a
// Sidekiq process's heartbeat, RQ's started-registry expiry), the console
// reads the job in flight and not stuck until the grace has passed. A BullMQ
// job that failed reads as text: its stack trace as lines, its times as
// dates. An alert added on the Alerts page fires, is saved, and is listed by
// its name when the editor opens again (a restart: tst_worldbanner).
//
// The libraries: BullMQ and Bull (npm, tests/libraries/bullmq-app.js and
// bull-app.js), Sidekiq (Debian ruby-sidekiq, tests/libraries/sidekiq_app.rb),
// Celery (Debian python3-celery, tests/libraries/celery_app.py, with a 2 s
// visibility timeout the console is told through
// GATEHOUSE_CELERY_VISIBILITY_TIMEOUT, as the CLI's tests tell the CLI) and RQ
// (Debian python3-rq, tests/libraries/rq_app.py). The RQ row waits for RQ's
// own expiry of a started job (its timeout + 60 s): about a minute.
#include <alertrulesdialog.h>
#include <alerts/alertengine.h>
#include <alertspage.h>
#include <mainwindow.h>
#include <monitor/monitor.h>
#include <monitor/profile.h>
#include <objecttablemodel.h>
#include <overviewpage.h>
#include <overviewtiles.h>
#include <redis/redisclient.h>
#include <sectionpage.h>

#include "librarytest.h"
#include "redisserver.h"
#include "testconsole.h"

#include <QApplication>
#include <QComboBox>
#include <QDateTime>
#include <QDialogButtonBox>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPointer>
#include <QProcess>
#include <QPushButton>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabBar>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <algorithm>
#include <functional>

using namespace gatehouse;
using gatehouse::test::call;
using gatehouse::test::pollUntil;
using gatehouse::test::RedisServer;
using gatehouse::test::stopProcess;
using gatehouse::test::TestConsole;
using gatehouse::test::TestConsoleOptions;

namespace {

const QString LibrariesDir = QStringLiteral(GATEHOUSE_LIBRARIES_DIR);
const QString Python = QStringLiteral("/usr/bin/python3");
const QString Ruby = QStringLiteral("/usr/bin/ruby");
const QString SidekiqBin = QStringLiteral("/usr/bin/sidekiq");
const QString QueueSection = QStringLiteral("queue");
const QByteArray CeleryVisibilitySeconds = "2";

// A library's program run to its end; its stdout, trimmed ("<failed: …>" otherwise).
QString run(const QString &program, const QStringList &args,
            const QProcessEnvironment &env = QProcessEnvironment::systemEnvironment())
{
    QProcess p;
    p.setProcessEnvironment(env);
    p.setWorkingDirectory(LibrariesDir);
    p.start(program, args);
    if (!p.waitForFinished(60000) || p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0)
        return QStringLiteral("<failed: %1>").arg(QString::fromUtf8(p.readAllStandardError()));
    return QString::fromUtf8(p.readAllStandardOutput()).trimmed();
}

// node <script> <module> <url> <queue> args… (bullmq-app.js, bull-app.js).
QStringList nodeArgs(const QString &script, const QString &module, const QString &url,
                     const QString &queue, const QStringList &args)
{
    return QStringList{LibrariesDir + QLatin1Char('/') + script, module, url, queue} + args;
}

QProcessEnvironment celeryEnv(const RedisServer &server)
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("GATEHOUSE_CELERY_URL"),
               QStringLiteral("redis://127.0.0.1:%1/0").arg(server.port()));
    env.insert(QStringLiteral("GATEHOUSE_CELERY_VISIBILITY"),
               QString::fromLatin1(CeleryVisibilitySeconds));
    env.insert(QStringLiteral("PYTHONPATH"), LibrariesDir);
    env.insert(QStringLiteral("PYTHONDONTWRITEBYTECODE"), QStringLiteral("1"));
    return env;
}

QList<QByteArray> listOf(RedisClient &redis, const QByteArray &key)
{
    QList<QByteArray> out;
    const RedisValue list = call(redis, {"LRANGE", key, "0", "-1"});
    for (const RedisValue &v : list.elements())
        out << v.bytes();
    return out;
}

// A job stuck under a killed worker, and what the walk expects of it.
struct Stuck
{
    QString job;    // as the job list names it
    QByteArray ref; // as the actions name it (Celery: the delivery tag)
    QString said;   // the outcome of its requeue
    QString where;  // the words of said that name where it went
    // Where the job is after the requeue, read from Redis and the library:
    // empty when it is exactly where said says, and not in flight.
    std::function<QString()> misplaced;
};

// Answers the action's dialogs: its inputs form as filled (the job chosen
// in the list), its confirmation with Run; anything else (a Force after a
// refusal) with Cancel. What each confirmation said is kept.
class Answerer : public QObject
{
public:
    QStringList confirmations;
    QStringList others;

    Answerer()
    {
        m_timer.setInterval(10);
        connect(&m_timer, &QTimer::timeout, this, [this] {
            QWidget *modal = QApplication::activeModalWidget();
            if (!modal || modal == m_last)
                return;
            m_last = modal;
            if (auto *box = qobject_cast<QMessageBox *>(modal)) {
                if (box->objectName() == QLatin1String("confirmAction")) {
                    confirmations << box->text();
                    box->button(QMessageBox::Ok)->click();
                } else {
                    others << box->text();
                    box->reject();
                }
            } else if (auto *form = qobject_cast<QDialog *>(modal)) {
                form->accept();
            }
        });
        m_timer.start();
    }

private:
    QTimer m_timer;
    QPointer<QWidget> m_last;
};

} // namespace

class tst_FirstHour : public QObject
{
    Q_OBJECT

    // BullMQ 6 or Bull 4 (library "bullmq" or "bull", its npm package and
    // app, queue): job-1 of three taken by its worker, which is killed; its
    // lock (1.5 s) runs out with the job active.
    void stickBullFamily(const QString &library, const QString &name, const QString &queue,
                         const RedisServer &server, RedisClient &redis, Stuck &s)
    {
        QVERIFY2(QFile::exists(LibrariesDir
                               + QStringLiteral("/node_modules/%1/package.json").arg(library)),
                 "npm packages missing: run .ci/install-deps");
        const auto app = [library, queue, url = server.url()](const QStringList &args) {
            return nodeArgs(library + QStringLiteral("-app.js"), library, url, queue, args);
        };
        QCOMPARE(run(QStringLiteral("node"), app({QStringLiteral("produce"), QStringLiteral("3")})),
                 QString());
        QProcess worker;
        worker.start(QStringLiteral("node"),
                     app(library == QLatin1String("bullmq")
                             ? QStringList{QStringLiteral("hang"), QStringLiteral("done")}
                             : QStringList{QStringLiteral("hang")}));
        QVERIFY(worker.waitForStarted(10000));
        QTRY_VERIFY_WITH_TIMEOUT(
            (worker.waitForReadyRead(100), worker.peek(4096).contains("taken job-1")), 30000);
        worker.kill();
        QVERIFY(worker.waitForFinished(10000));
        const QByteArray base = "bull:" + queue.toUtf8();
        QVERIFY2(pollUntil(
                     [&] {
                         return call(redis, {"EXISTS", base + ":job-1:lock"}).toInteger() == 0;
                     },
                     20000),
                 "the dead worker's lock never expired");
        s.job = QStringLiteral("job-1");
        s.said = QStringLiteral("Job job-1 was requeued to wait.");
        s.where = QStringLiteral("to wait");
        s.misplaced = [&redis, app, base, name]() -> QString {
            if (!listOf(redis, base + ":wait").contains("job-1"))
                return QStringLiteral("not in %1:wait").arg(QString::fromUtf8(base));
            if (listOf(redis, base + ":active").contains("job-1"))
                return QStringLiteral("still in %1:active").arg(QString::fromUtf8(base));
            const QString state = run(QStringLiteral("node"),
                                      app({QStringLiteral("state"), QStringLiteral("job-1")}));
            return state == QLatin1String("waiting") ? QString()
                                                     : name + QStringLiteral(": ") + state;
        };
    }

    // Sidekiq 6: a real `sidekiq` process (one thread) takes stuck-1, its
    // heartbeat records the work, and it is killed -9. Its job is stuck once
    // the last heartbeat is SidekiqUnit::DeadAfterMs (20 s) old.
    void stickSidekiq(const RedisServer &server, RedisClient &redis, Stuck &s)
    {
        QVERIFY2(QFile::exists(Ruby) && QFile::exists(SidekiqBin),
                 "/usr/bin/ruby or /usr/bin/sidekiq is missing: run .ci/install-deps "
                 "(Debian ruby-sidekiq)");
        const QString app = LibrariesDir + QStringLiteral("/sidekiq_app.rb");
        QCOMPARE(call(redis, {"SET", "hang", "1"}).bytes(), QByteArray("OK"));
        const QString jid = run(Ruby, {app, server.url(), QStringLiteral("push"),
                                       QStringLiteral("HangJob"), QStringLiteral("stuck-1")});
        QCOMPARE(jid.size(), 24);
        auto worker = std::make_unique<QProcess>();
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("REDIS_URL"), server.url());
        worker->setProcessEnvironment(env);
        worker->setStandardOutputFile(server.dir() + QStringLiteral("/sidekiq.log"));
        worker->setStandardErrorFile(server.dir() + QStringLiteral("/sidekiq.log"));
        worker->start(Ruby, {SidekiqBin, QStringLiteral("-r"), app, QStringLiteral("-c"),
                             QStringLiteral("1")});
        const auto stop = qScopeGuard([&] { stopProcess(worker); });
        QByteArray identity;
        QVERIFY2(pollUntil(
                     [&] {
                         identity = call(redis, {"SRANDMEMBER", "processes"}).bytes();
                         return listOf(redis, "started") == QList<QByteArray>{"stuck-1"}
                                && !identity.isEmpty()
                                && call(redis, {"HLEN", identity + ":workers"}).toInteger() == 1
                                && call(redis, {"HGET", identity, "busy"}).bytes() == "1";
                     },
                     30000),
                 "the worker did not take stuck-1, or its heartbeat never recorded it");
        worker->kill(); // -9: no shutdown, no requeue by Sidekiq
        worker->waitForFinished(10000);
        s.job = jid;
        s.said = QStringLiteral("Job %1 was pushed back to queue \"default\" (queue:default).")
                     .arg(jid);
        s.where = QStringLiteral("to queue \"default\"");
        s.misplaced = [&redis, identity, jid]() -> QString {
            const QList<QByteArray> queued = listOf(redis, "queue:default");
            if (queued.size() != 1
                || QJsonDocument::fromJson(queued.first()).object().value("jid").toString() != jid)
                return QStringLiteral("queue:default holds %1 jobs, not it").arg(queued.size());
            if (call(redis, {"HLEN", identity + ":workers"}).toInteger() != 0)
                return QStringLiteral("still in the dead process's work");
            return {};
        };
    }

    // Celery 5 (kombu's Redis transport, acks_late): a worker takes the task
    // and is killed -9 in the middle of it; its message stays in unacked
    // and is stuck past the visibility timeout (2 s here).
    void stickCelery(const RedisServer &server, RedisClient &redis, Stuck &s)
    {
        QVERIFY2(QFile::exists(Python), "/usr/bin/python3 is missing: run .ci/install-deps");
        call(redis, {"SET", "hold", "1"});
        const QString task = run(Python,
                                 {LibrariesDir + QStringLiteral("/celery_app.py"),
                                  QStringLiteral("produce"), QStringLiteral("first")},
                                 celeryEnv(server));
        QVERIFY2(task.size() == 36, qPrintable(task));
        auto worker = std::make_unique<QProcess>();
        worker->setProcessEnvironment(celeryEnv(server));
        worker->setWorkingDirectory(LibrariesDir);
        worker->setProcessChannelMode(QProcess::MergedChannels);
        worker->setStandardOutputFile(server.dir() + QStringLiteral("/celery.log"));
        worker->start(Python, {QStringLiteral("-m"), QStringLiteral("celery"), QStringLiteral("-A"),
                               QStringLiteral("celery_app"), QStringLiteral("worker"),
                               QStringLiteral("--pool=solo"), QStringLiteral("--without-mingle"),
                               QStringLiteral("--without-gossip"),
                               QStringLiteral("--hostname=w1@gatehouse-test")});
        const auto stop = qScopeGuard([&] { stopProcess(worker); });
        QVERIFY2(pollUntil(
                     [&] {
                         return call(redis, {"GET", "started"}).bytes() == task.toUtf8();
                     },
                     30000),
                 "the Celery worker never took the task");
        worker->kill(); // -9: kombu restores nothing at a clean shutdown that never comes
        worker->waitForFinished(10000);
        call(redis, {"DEL", "hold"});
        const QList<RedisValue> index
            = call(redis, {"ZRANGE", "unacked_index", "0", "-1"}).elements();
        QCOMPARE(index.size(), 1);
        const QByteArray tag = index.first().bytes();
        s.job = task;
        s.ref = tag;
        s.said = QStringLiteral("Message %1 was put back on queue \"celery\".")
                     .arg(QString::fromUtf8(tag));
        s.where = QStringLiteral("on queue \"celery\"");
        s.misplaced = [&redis, tag, task]() -> QString {
            if (call(redis, {"HEXISTS", "unacked", tag}).toInteger() != 0
                || !call(redis, {"ZSCORE", "unacked_index", tag}).isNil())
                return QStringLiteral("still unacked");
            const QList<QByteArray> queued = listOf(redis, "celery");
            const QJsonObject message = QJsonDocument::fromJson(queued.value(0)).object();
            if (queued.size() != 1
                || message.value("headers").toObject().value("id").toString() != task)
                return QStringLiteral("the list \"celery\" holds %1 messages, not it")
                    .arg(queued.size());
            return {};
        };
    }

    // RQ (SimpleWorker): the worker takes job-1 (a 2 s timeout) and is
    // killed -9; the job stays in the started registry, abandoned once its
    // expiry (timeout + 60 s, server time) has passed.
    void stickRq(const RedisServer &server, RedisClient &redis, Stuck &s)
    {
        QVERIFY2(QFile::exists(Python), "/usr/bin/python3 is missing: run .ci/install-deps");
        const auto app = [url = server.url()](const QStringList &args) {
            return QStringList{LibrariesDir + QStringLiteral("/rq_app.py"), url,
                               QStringLiteral("emails")}
                   + args;
        };
        QCOMPARE(run(Python, app({QStringLiteral("produce-blocking"), QStringLiteral("job-1")})),
                 QString());
        auto worker = std::make_unique<QProcess>();
        worker->start(Python, app({QStringLiteral("work")}));
        const auto stop = qScopeGuard([&] { stopProcess(worker); });
        QVERIFY2(pollUntil(
                     [&] {
                         return call(redis, {"LLEN", "taken"}).toInteger() == 1;
                     },
                     30000),
                 "the RQ worker never took job-1");
        worker->kill(); // -9: the job stops with it (a SimpleWorker runs it in-process)
        worker->waitForFinished(10000);
        s.job = QStringLiteral("job-1");
        s.said = QStringLiteral("Job job-1 was requeued at the back of \"rq:queue:emails\".");
        s.where = QStringLiteral("at the back of \"rq:queue:emails\"");
        s.misplaced = [&redis, app]() -> QString {
            if (!call(redis, {"ZSCORE", "rq:wip:emails", "job-1"}).isNil())
                return QStringLiteral("still in rq:wip:emails");
            if (call(redis, {"LINDEX", "rq:queue:emails", "-1"}).bytes() != "job-1")
                return QStringLiteral("not at the back of rq:queue:emails");
            const QString state
                = run(Python, app({QStringLiteral("state"), QStringLiteral("job-1")}));
            return state == QLatin1String("queued") ? QString() : QStringLiteral("RQ: ") + state;
        };
    }

private slots:
    void cleanupTestCase() { QCOMPARE(RedisServer::runningChildren(), 0); }

    void recoverStuckJob_data()
    {
        QTest::addColumn<QString>("library");
        QTest::addColumn<QByteArray>("key");    // its row on the Queues page
        QTest::addColumn<QString>("attention"); // the start of its attention line
        QTest::addColumn<bool>("grace");        // read in flight before it is stuck
        QTest::addColumn<int>("stuckWithinMs");
        QTest::newRow("bullmq") << "bullmq" << QByteArray("bull:payments")
                                << "BullMQ queue bull:payments: 1 stalled" << false << 20000;
        QTest::newRow("bull") << "bull" << QByteArray("bull:emails")
                              << "Bull queue bull:emails: 1 stalled" << false << 20000;
        QTest::newRow("sidekiq") << "sidekiq" << QByteArray("queues")
                                 << "Sidekiq: 1 job in flight on dead processes" << true << 60000;
        QTest::newRow("celery") << "celery" << QByteArray("celery")
                                << "Celery queue celery: 1 unacked past the visibility timeout"
                                << false << 20000;
        QTest::newRow("rq") << "rq" << QByteArray("rq:queue:emails")
                            << "RQ queue rq:queue:emails: 1 abandoned" << true << 120000;
    }

    void recoverStuckJob()
    {
        QFETCH(QString, library);
        QFETCH(QByteArray, key);
        QFETCH(QString, attention);
        QFETCH(bool, grace);
        QFETCH(int, stuckWithinMs);
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        std::unique_ptr<RedisClient> redis = gatehouse::test::connectedClient(server);
        QVERIFY(redis);

        // 1. A job stuck under a killed worker, by the library's own worker.
        Stuck s;
        if (library == QLatin1String("bullmq"))
            stickBullFamily(library, QStringLiteral("BullMQ"), QStringLiteral("payments"), server,
                            *redis, s);
        else if (library == QLatin1String("bull"))
            stickBullFamily(library, QStringLiteral("Bull"), QStringLiteral("emails"), server,
                            *redis, s);
        else if (library == QLatin1String("sidekiq"))
            stickSidekiq(server, *redis, s);
        else if (library == QLatin1String("celery"))
            stickCelery(server, *redis, s);
        else
            stickRq(server, *redis, s);
        if (QTest::currentTestFailed())
            return;
        if (s.ref.isEmpty())
            s.ref = s.job.toUtf8();
        // kombu keeps its visibility timeout in the workers' configuration:
        // without a profile, the console is told it this way.
        if (library == QLatin1String("celery"))
            qputenv("GATEHOUSE_CELERY_VISIBILITY_TIMEOUT", CeleryVisibilitySeconds);
        const auto unset = qScopeGuard([] { qunsetenv("GATEHOUSE_CELERY_VISIBILITY_TIMEOUT"); });

        // 2. The console, with no profile.
        QTemporaryDir dir;
        TestConsoleOptions o;
        o.autodetect = true;
        o.size = QSize(1600, 1000);
        TestConsole console(server, dir.filePath(QStringLiteral("audit.jsonl")), o);
        MainWindow &window = *console.window;
        const auto stuck = [&]() -> qint64 {
            ObjectTableModel *model = window.model(QueueSection);
            const int row = model->rowOf(key);
            return row < 0 ? -1 : model->stateAt(row)->reading.queue().stuck;
        };
        auto *overview = qobject_cast<OverviewPage *>(window.page(0));
        QVERIFY(overview);
        const auto attentionLine = [&]() -> QString {
            QListWidget *list = overview->attentionList();
            for (int i = 0; i < list->count(); ++i) {
                if (list->item(i)->data(Qt::UserRole + 1).toByteArray() == key)
                    return list->item(i)->text();
            }
            return {};
        };
        OverviewTile *stuckTile = overview->tiles()->tile(QStringLiteral("tileStuck"));
        QVERIFY(stuckTile);
        QVERIFY(console.select(QueueSection, key));
        SectionPage *page = window.sectionPage(QueueSection);
        auto *stages = page->findChild<QTabBar *>(QStringLiteral("queueJobStages"));
        auto *jobs = page->findChild<QTableWidget *>(QStringLiteral("queueJobList"));
        QVERIFY(stages && jobs);
        const auto inFlightTab = [&] {
            for (int t = 0; t < stages->count(); ++t) {
                if (stages->tabText(t).startsWith(QLatin1String("In flight (")))
                    return t;
            }
            return -1;
        };
        QVERIFY(inFlightTab() >= 0);
        stages->setCurrentIndex(inFlightTab());
        // Within its library's grace the job is in flight, not stuck, and
        // nothing asks for attention.
        if (grace) {
            QCOMPARE(stuck(), qint64(0));
            QTRY_COMPARE(stages->tabText(inFlightTab()), QStringLiteral("In flight (1)"));
            window.showPage(0);
            QTest::qWait(500); // a few of the Overview's refreshes
            QCOMPARE(attentionLine(), QString());
            QCOMPARE(stuckTile->count(), qint64(0));
            QVERIFY(console.select(QueueSection, key));
        }
        QTRY_COMPARE_WITH_TIMEOUT(stuck(), qint64(1), stuckWithinMs);

        // The Overview: the attention line, the Stuck tile, and one count
        // of queues in the header, the side list and the page.
        window.showPage(0);
        QTRY_VERIFY2(attentionLine().startsWith(attention), qPrintable(attentionLine()));
        QTRY_COMPARE(stuckTile->count(), qint64(1));
        QCOMPARE(stuckTile->tile().worst, key);
        auto *side = window.findChild<QListWidget *>(QStringLiteral("sideList"));
        QVERIFY(side);
        const auto headerSays = [&] {
            return gatehouse::test::overviewCounts(window, QStringLiteral("Queues"));
        };
        const auto sideSays = [&] {
            return gatehouse::test::sideListCount(window, QStringLiteral("Queues"));
        };
        QTRY_COMPARE(sideSays(), QStringLiteral("1"));
        QVERIFY2(headerSays().contains(QStringLiteral("Queues: 1")), qPrintable(headerSays()));
        QCOMPARE(window.model(QueueSection)->rowCount(), 1);

        // 3. The queue, its In flight tab, the job.
        QVERIFY(console.select(QueueSection, key));
        stages->setCurrentIndex(inFlightTab());
        QTRY_COMPARE(stages->tabText(inFlightTab()), QStringLiteral("In flight (1)"));
        QTRY_COMPARE(jobs->rowCount(), 1);
        QCOMPARE(jobs->item(0, 0)->text(), s.job);
        QCOMPARE(jobs->item(0, 0)->data(Qt::UserRole).toByteArray(), s.ref);
        jobs->selectRow(0);

        // Requeue, through its confirmation.
        auto *requeue = page->findChild<QPushButton *>(QStringLiteral("requeueButton"));
        QVERIFY(requeue);
        QTRY_VERIFY(requeue->isEnabled());
        QString outcome;
        int ticks = 0; // monitor ticks finished since the outcome
        connect(console.monitor(), &Monitor::tickFinished, requeue, [&] { ++ticks; });
        connect(&window, &MainWindow::actionFinished, requeue, [&](const QString &m) {
            outcome = m;
            ticks = 0;
        });
        {
            Answerer answer;
            requeue->click();
            QTRY_VERIFY_WITH_TIMEOUT(!outcome.isEmpty(), 10000);
            QCOMPARE(answer.others, QStringList());
            QCOMPARE(answer.confirmations.size(), 1);
            QVERIFY2(answer.confirmations.first().contains(QString::fromUtf8(s.ref)),
                     qPrintable(answer.confirmations.first()));
        }
        QCOMPARE(outcome, s.said);
        if (!s.where.isEmpty())
            QVERIFY2(outcome.contains(s.where), qPrintable(outcome));
        const QString misplaced = s.misplaced();
        QVERIFY2(misplaced.isEmpty(), qPrintable(misplaced));

        // The row: nothing stuck within two ticks (the tick under way may
        // have read before the move).
        QTRY_VERIFY_WITH_TIMEOUT(stuck() == 0 || ticks > 2, 10000);
        QVERIFY2(stuck() == 0, qPrintable(QStringLiteral("%1 ticks after the requeue the row "
                                                         "still counts %2 stuck")
                                              .arg(ticks)
                                              .arg(stuck())));
        qInfo("%s; the row counted nothing stuck %d tick(s) after", qPrintable(outcome), ticks);
        QTRY_COMPARE(stages->tabText(inFlightTab()), QStringLiteral("In flight (0)"));
        // The Overview: no stuck job. The job waits again: where the library
        // records its workers and none is alive (Sidekiq's only process was
        // killed; RQ's killed worker once its hash expires) the line says
        // that no worker will take it; otherwise there is none.
        window.showPage(0);
        const auto noWorkerAlive = [&] {
            const int row = window.model(QueueSection)->rowOf(key);
            const ObjectState *state
                = row >= 0 ? window.model(QueueSection)->stateAt(row) : nullptr;
            return state && state->reading.library().workersAlive == 0;
        };
        const QString noWorker = QStringLiteral(": no worker seen, 1 job waiting, oldest ");
        if (QLatin1String(QTest::currentDataTag()) == QLatin1String("sidekiq"))
            QVERIFY(noWorkerAlive());
        QTRY_VERIFY2(noWorkerAlive() ? attentionLine().contains(noWorker)
                                     : attentionLine().isEmpty(),
                     qPrintable(attentionLine()));
        // Its row's Status says the same, in a warning's colours.
        const auto status = [&] {
            ObjectTableModel *m = window.model(QueueSection);
            for (int c = 0; c < m->columnCount(); ++c) {
                if (m->headerData(c, Qt::Horizontal).toString() == QLatin1String("Status"))
                    return m->index(m->rowOf(key), c)
                        .data(ObjectTableModel::StateIdRole)
                        .toString();
            }
            return QString();
        };
        QTRY_COMPARE(status(),
                     noWorkerAlive() ? QStringLiteral("no-worker") : QStringLiteral("ok"));
        QTRY_COMPARE(stuckTile->count(), qint64(0));
    }

    // An alert added as an operator adds one: on the window's Alerts page,
    // Rules…, the form filled in and saved with no "Add as new" first. The
    // rule fires on the lock it names, is in the profile's file, and the
    // editor opened again lists it by its name.
    void addAnAlert()
    {
        QStandardPaths::setTestModeEnabled(true); // the demo profile's copy goes there
        const auto back = qScopeGuard([] { QStandardPaths::setTestModeEnabled(false); });
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        std::unique_ptr<RedisClient> redis = gatehouse::test::connectedClient(server);
        QVERIFY(redis);
        call(*redis, {"SET", "sim:lock:checkout", "holder-1", "PX", "600000"});
        QString error;
        const std::optional<Profile> demo = Profile::load(QStringLiteral("demo"), &error);
        QVERIFY2(demo, qPrintable(error));
        QTemporaryDir dir;
        TestConsoleOptions o;
        o.size = QSize(1280, 800);
        o.alerts = QList<AlertRule>(); // none yet, as in the app
        TestConsole console(server, dir.filePath(QStringLiteral("audit.jsonl")), o);
        const AlertEngine &alerts = *console.deployment->alerts();
        console.window->setAlerts(*demo);
        AlertsPage *page = console.window->alertsPage();
        QVERIFY(page);
        QSignalSpy saved(page, &AlertsPage::saved);
        console.window->showPage(
            int(console.window->pageNames().indexOf(QStringLiteral("Alerts"))));

        QTimer::singleShot(0, this, [] {
            auto *dialog = qobject_cast<AlertRulesDialog *>(QApplication::activeModalWidget());
            QVERIFY(dialog);
            auto *target = dialog->findChild<QComboBox *>(QStringLiteral("alertTarget"));
            const int t = target->findData(QStringLiteral("lock"));
            QVERIFY(t >= 0);
            target->setCurrentIndex(t);
            Q_EMIT target->activated(t);
            auto *figure = dialog->findChild<QComboBox *>(QStringLiteral("alertFigure"));
            QCOMPARE(figure->itemText(figure->findData(QStringLiteral("pttlMs"))),
                     QStringLiteral("TTL"));
            figure->setCurrentIndex(figure->findData(QStringLiteral("pttlMs")));
            auto *op = dialog->findChild<QComboBox *>(QStringLiteral("alertOp"));
            op->setCurrentIndex(op->findText(QStringLiteral(">")));
            QTest::keyClicks(dialog->findChild<QLineEdit *>(QStringLiteral("alertThreshold")),
                             QStringLiteral("1m"));
            QTest::keyClicks(dialog->findChild<QLineEdit *>(QStringLiteral("alertName")),
                             QStringLiteral("long lease"));
            QTest::mouseClick(
                dialog->findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Save),
                Qt::LeftButton);
        });
        QTest::mouseClick(page->findChild<QPushButton *>(QStringLiteral("alertRulesButton")),
                          Qt::LeftButton);
        QCOMPARE(alerts.rules().size(), 1);
        QCOMPARE(alerts.rules().first().name, QStringLiteral("long lease"));

        // It fires on the lock, on the page and in the side list.
        QTRY_COMPARE_WITH_TIMEOUT(page->firingTable()->rowCount(), 1, 10000);
        QCOMPARE(page->firingTable()->item(0, 1)->text(), QStringLiteral("long lease"));
        QCOMPARE(page->firingTable()->item(0, 2)->text(), QStringLiteral("lock sim:lock:checkout"));
        QTRY_COMPARE(gatehouse::test::sideListCount(*console.window, QStringLiteral("Alerts")),
                     QStringLiteral("(1)"));

        // Saved where the page said, as typed.
        QVERIFY(saved.wait(10000) || saved.size() == 1);
        QCOMPARE(saved.first().at(1).toString(), QString());
        const QString path = saved.first().at(0).toString();
        const auto removeCopy = qScopeGuard([path] { QFile::remove(path); });
        QVERIFY2(page->saveNote().contains(QDir::toNativeSeparators(path)),
                 qPrintable(page->saveNote()));
        const std::optional<Profile> kept = Profile::load(path, &error);
        QVERIFY2(kept, qPrintable(error));
        QCOMPARE(kept->alerts.size(), 1);
        QCOMPARE(kept->alerts.first().name, QStringLiteral("long lease"));
        QCOMPARE(kept->alerts.first().threshold, 60000.0);

        // The editor opened again lists it by its name; Cancel changes nothing.
        QString listed;
        QTimer::singleShot(0, this, [&listed] {
            auto *dialog = qobject_cast<AlertRulesDialog *>(QApplication::activeModalWidget());
            QVERIFY(dialog);
            auto *list = dialog->findChild<QListWidget *>(QStringLiteral("alertRuleList"));
            listed = list && list->count() == 1 ? list->item(0)->text() : QString();
            dialog->reject();
        });
        QTest::mouseClick(page->findChild<QPushButton *>(QStringLiteral("alertRulesButton")),
                          Qt::LeftButton);
        QVERIFY2(listed.contains(QLatin1String("long lease")), qPrintable(listed));
        QCOMPARE(alerts.rules().size(), 1);
    }

    // A BullMQ job failed by its worker (an Error: a stack of several lines)
    // in the Dead tab: its detail shows the stack trace as lines, not as
    // "\n" escapes, and its epoch-ms times as dates with their age.
    void failedJobReadsAsText()
    {
        QVERIFY2(QFile::exists(LibrariesDir + QStringLiteral("/node_modules/bullmq/package.json")),
                 "npm packages missing: run .ci/install-deps");
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        std::unique_ptr<RedisClient> redis = gatehouse::test::connectedClient(server);
        QVERIFY(redis);
        const auto app = [url = server.url()](const QStringList &args) {
            return nodeArgs(QStringLiteral("bullmq-app.js"), QStringLiteral("bullmq"), url,
                            QStringLiteral("reports"), args);
        };
        QCOMPARE(run(QStringLiteral("node"),
                     app({QStringLiteral("produce-failing"), QStringLiteral("1")})),
                 QString());
        auto worker = std::make_unique<QProcess>();
        worker->start(QStringLiteral("node"), app({QStringLiteral("work"), QStringLiteral("ran")}));
        const auto stop = qScopeGuard([&] { stopProcess(worker); });
        QVERIFY2(pollUntil(
                     [&] {
                         return call(*redis, {"ZCARD", "bull:reports:failed"}).toInteger() == 1;
                     },
                     30000),
                 "the worker never failed failing-1");
        worker->terminate(); // BullMQ's worker closes on SIGTERM
        QVERIFY(worker->waitForFinished(10000));

        QTemporaryDir dir;
        TestConsoleOptions o;
        o.autodetect = true;
        o.size = QSize(1600, 1000);
        TestConsole console(server, dir.filePath(QStringLiteral("audit.jsonl")), o);
        QVERIFY(console.select(QueueSection, "bull:reports"));
        SectionPage *page = console.window->sectionPage(QueueSection);
        auto *stages = page->findChild<QTabBar *>(QStringLiteral("queueJobStages"));
        auto *jobs = page->findChild<QTableWidget *>(QStringLiteral("queueJobList"));
        auto *detail = page->findChild<QPlainTextEdit *>(QStringLiteral("queueJobDetail"));
        QVERIFY(stages && jobs && detail);
        int dead = -1;
        for (int t = 0; t < stages->count(); ++t) {
            if (stages->tabText(t).startsWith(QLatin1String("Dead (")))
                dead = t;
        }
        QVERIFY(dead >= 0);
        stages->setCurrentIndex(dead);
        QTRY_COMPARE(stages->tabText(dead), QStringLiteral("Dead (1)"));
        QTRY_COMPARE(jobs->rowCount(), 1);
        QCOMPARE(jobs->item(0, 0)->text(), QStringLiteral("failing-1"));
        jobs->selectRow(0);
        QTRY_VERIFY(detail->toPlainText().contains(QLatin1String("stacktrace:")));
        const QString text = detail->toPlainText();
        QVERIFY2(text.contains(QLatin1String("stacktrace:\n    Error: failing on purpose\n"
                                             "        at ")),
                 qPrintable(text));
        QVERIFY2(!text.contains(QLatin1String("\\n")), qPrintable(text));
        const QStringList lines = text.split(QLatin1Char('\n'));
        for (const char *field : {"timestamp", "processedOn", "finishedOn"}) {
            const QByteArray raw = call(*redis, {"HGET", "bull:reports:failing-1", field}).bytes();
            QVERIFY2(raw.size() >= 13, field); // epoch ms
            const QString date = QDateTime::fromMSecsSinceEpoch(raw.toLongLong())
                                     .toLocalTime()
                                     .toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
            const QString start = QLatin1String(field) + QStringLiteral(": ") + date + " (";
            const bool shown = std::any_of(lines.cbegin(), lines.cend(), [&](const QString &l) {
                return l.startsWith(start) && l.endsWith(QLatin1String(" ago)"));
            });
            QVERIFY2(shown, qPrintable(start + QStringLiteral("… in:\n") + text));
            QVERIFY2(!text.contains(QString::fromLatin1(raw)), qPrintable(text));
        }
    }
};

QTEST_MAIN(tst_FirstHour)
#include "tst_firsthour.moc"
