// SPDX-License-Identifier: MIT
// The Queues page's job browser on library queues found with no profile:
// each state's label "state (count)" with the library's own count, the
// failed (dead) state's list showing the job planted there, and its record
// in the detail pane. Then each library's chief action on a job chosen in
// the list, run as an operator runs it (the page's button, the action's
// form, its confirmation), and the outcome in the window (status bar,
// counts, list). Resque (npm node-resque, tests/libraries/resque-app.js)
// is driven for real: its failed job is retried, which node-resque itself
// then sees. For the others the server then holds exactly what the
// confirmation said (only the keys it moved the job between changed, every
// key's DUMP compared), as the library counts it: asynq's archived task
// run now, Dramatiq's dead letter retried, Laravel's job reserved by a
// killed worker put back once its reservation expired, Horizon's failed
// job retried into its Laravel queue (typed in the action's form), and
// Symfony's next delayed message released into the stream. Laravel's Redis
// queue (tests/libraries/laravel_app.php) and Symfony Messenger's delayed
// messages (symfony_app.php) are Debian's packages driven for real. asynq,
// Dramatiq and Laravel Horizon cannot be installed here: their state is
// written as their own code writes it (libraryplanting.h, with its sources).
#include <mainwindow.h>
#include <redis/redisclient.h>
#include <sectionpage.h>

#include "libraryplanting.h"
#include "librarytest.h"
#include "phpapp.h"
#include "redisserver.h"
#include "testconsole.h"
#include "testshots.h"

#include <QComboBox>
#include <QCryptographicHash>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QMap>
#include <QPlainTextEdit>
#include <QProcess>
#include <QPushButton>
#include <QRegularExpression>
#include <QScrollBar>
#include <QStatusBar>
#include <QTabBar>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTextCursor>
#include <QTextDocument>

using namespace gatehouse;
using gatehouse::test::call;
using gatehouse::test::keyspace;
using gatehouse::test::PhpApp;
using gatehouse::test::RedisServer;

namespace {

const QString LibrariesDir = QStringLiteral(GATEHOUSE_LIBRARIES_DIR);

// One run of the node-resque driver (tests/libraries/resque-app.js).
QString resqueApp(const RedisServer &server, const QStringList &command)
{
    QProcess p;
    p.start(QStringLiteral("node"), QStringList{LibrariesDir + QStringLiteral("/resque-app.js"),
                                                server.url(), QStringLiteral("resque")}
                                        + command);
    if (!p.waitForFinished(60000) || p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0)
        return QStringLiteral("<failed: %1>").arg(QString::fromUtf8(p.readAllStandardError()));
    return QString::fromUtf8(p.readAllStandardOutput()).trimmed();
}

QJsonObject resqueCounts(const RedisServer &server)
{
    return QJsonDocument::fromJson(
               resqueApp(server, {QStringLiteral("counts"), QStringLiteral("mail")}).toUtf8())
        .object();
}

// The elements of a reply (LRANGE, ZRANGE, HKEYS) as bytes.
QList<QByteArray> items(RedisClient &redis, const QList<QByteArray> &command)
{
    QList<QByteArray> out;
    const RedisValue reply = call(redis, command);
    for (const RedisValue &v : reply.elements())
        out << v.bytes();
    return out;
}

// The keys written, created or deleted between two keyspaces, sorted.
QStringList changedKeys(const QMap<QByteArray, QByteArray> &before,
                        const QMap<QByteArray, QByteArray> &after)
{
    QStringList out;
    for (auto it = before.cbegin(); it != before.cend(); ++it) {
        if (after.value(it.key()) != it.value())
            out << QString::fromUtf8(it.key());
    }
    for (auto it = after.cbegin(); it != after.cend(); ++it) {
        if (!before.contains(it.key()))
            out << QString::fromUtf8(it.key());
    }
    out.sort();
    return out;
}

// What a library's queue should show in the job browser.
struct Expected
{
    QByteArray key; // the queue's row
    QString kind;   // its pattern kind id
    // Every state, the library's count; -1: a state the reading does not
    // count (its name alone until its list is read).
    QList<std::pair<QString, qint64>> counts;
    QString deadState;  // the state listed and chosen
    QString deadId;     // the job planted there, as its list names it
    QStringList detail; // what the job's record holds (planted)
    QString shot;       // the screenshot's library name
};

} // namespace

class tst_LibraryBrowserGui : public QObject
{
    Q_OBJECT

private:
    std::unique_ptr<gatehouse::test::TestConsole> console;
    QTemporaryDir dir;
    SectionPage *page = nullptr;
    QComboBox *state = nullptr;
    QTableWidget *jobs = nullptr;
    QLabel *range = nullptr;
    QPlainTextEdit *detail = nullptr;
    QTabBar *stages = nullptr;

    // Shows state s (on whichever tab holds it).
    bool show(const QString &s)
    {
        for (int t = 0; t < stages->count(); ++t) {
            stages->setCurrentIndex(t);
            const int i = state->findData(s);
            if (i >= 0) {
                state->setCurrentIndex(i);
                return true;
            }
        }
        return false;
    }
    QString label(const QString &s)
    {
        if (!show(s))
            return QStringLiteral("<no state %1>").arg(s);
        return state->itemText(state->findData(s));
    }

    // The console with no profile, on e.key; its kind, every state's label,
    // the dead state's list and the chosen job's record; the screenshot.
    void browse(const RedisServer &server, const Expected &e)
    {
        gatehouse::test::TestConsoleOptions options;
        options.autodetect = true; // no profile
        options.size = QSize(1400, 900);
        console = std::make_unique<gatehouse::test::TestConsole>(
            server, dir.filePath(e.shot + QStringLiteral("-audit.jsonl")), options);
        MainWindow &window = *console->window;
        const QString section = QStringLiteral("queue");
        QVERIFY(console->select(section, e.key));
        const int row = window.model(section)->rowOf(e.key);
        QCOMPARE(window.model(section)->stateAt(row)->object->kind.id(), e.kind);
        QVERIFY(window.model(section)->stateAt(row)->reading.library().layoutKnown);
        page = window.sectionPage(section);
        state = page->findChild<QComboBox *>(QStringLiteral("queueJobState"));
        jobs = page->findChild<QTableWidget *>(QStringLiteral("queueJobList"));
        range = page->findChild<QLabel *>(QStringLiteral("queueJobsRange"));
        detail = page->findChild<QPlainTextEdit *>(QStringLiteral("queueJobDetail"));
        stages = page->findChild<QTabBar *>(QStringLiteral("queueJobStages"));
        QVERIFY(state && jobs && range && detail && stages);

        // Every state the library has, by its name, with its own count.
        QStringList names;
        for (int t = 0; t < stages->count(); ++t) {
            stages->setCurrentIndex(t);
            for (int i = 0; i < state->count(); ++i)
                names << state->itemData(i).toString();
        }
        QStringList expectedNames;
        for (const auto &[s, n] : e.counts)
            expectedNames << s;
        names.sort();
        expectedNames.sort();
        QCOMPARE(names, expectedNames);
        for (const auto &[s, n] : e.counts)
            QTRY_COMPARE(label(s), n < 0 ? s : QStringLiteral("%1 (%2)").arg(s).arg(n));

        // The dead state's list shows the planted job; chosen, its record.
        QVERIFY(show(e.deadState));
        qint64 total = -1;
        for (const auto &[s, n] : e.counts) {
            if (s == e.deadState)
                total = n;
        }
        QVERIFY2(QTest::qWaitFor(
                     [&] {
                         return range->text()
                                == QStringLiteral("1–%1 of %1 %2").arg(total).arg(e.deadState);
                     },
                     5000),
                 qPrintable(range->text()));
        int at = -1;
        for (int r = 0; r < jobs->rowCount(); ++r) {
            if (jobs->item(r, 0) && jobs->item(r, 0)->text() == e.deadId)
                at = r;
        }
        QVERIFY2(at >= 0, qPrintable(e.deadId + QStringLiteral(" not listed")));
        jobs->selectRow(at);
        QVERIFY2(QTest::qWaitFor(
                     [&] {
                         const QString text = detail->toPlainText();
                         return std::all_of(e.detail.cbegin(), e.detail.cend(),
                                            [&](const QString &d) { return text.contains(d); });
                     },
                     5000),
                 qPrintable(detail->toPlainText()));
        QVERIFY(window.grab().save(
            QStringLiteral(GATEHOUSE_SCREENSHOT_DIR "/browser-%1.png").arg(e.shot)));
    }

    // What an action run through the window came to.
    struct Acted
    {
        QString said;    // its confirmation's sentence
        QString outcome; // the window's sentence once it ran
    };
    // Runs the page's action button on the queue selected and the job
    // chosen in its list, as an operator does: typed into the action's form
    // (by input id), its confirmation accepted. The window says the outcome
    // (MainWindow::actionFinished) in its status bar.
    void act(const QString &button, Acted *acted, const QHash<QString, QString> &typed = {})
    {
        auto *b = page->findChild<QPushButton *>(button);
        QVERIFY2(b, qPrintable(button));
        QVERIFY2(b->isVisible() && b->isEnabled(), qPrintable(button + b->toolTip()));
        QObject owner; // ends the watches below with this run
        connect(console->window.get(), &MainWindow::actionFinished, &owner,
                [acted](const QString &m) { acted->outcome = m; });
        gatehouse::test::acceptNextConfirmation(&owner, typed, &acted->said);
        b->click();
        QVERIFY2(QTest::qWaitFor([&] { return !acted->outcome.isEmpty(); }, 10000),
                 qPrintable(QStringLiteral("no outcome; confirmation: ") + acted->said));
        QCOMPARE(console->window->statusBar()->currentMessage(), acted->outcome);
    }

private slots:
    void init() { console.reset(); }
    void cleanup() { console.reset(); }

    // node-resque: a job failed by a real worker, two queued, one delayed.
    void resque()
    {
        QVERIFY2(QFile::exists(LibrariesDir + QStringLiteral("/node_modules/node-resque")),
                 "npm node-resque is missing: run .ci/install-deps");
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        std::unique_ptr<RedisClient> redis = gatehouse::test::connectedClient(server);
        QVERIFY(redis);
        const auto app = [&](const char *c, const char *q, const char *n) {
            return resqueApp(server, {QLatin1String(c), QLatin1String(q), QLatin1String(n)});
        };
        QCOMPARE(app("produce-failing", "mail", "1"), QString());
        QCOMPARE(app("drain", "mail", "log"), QString());
        QCOMPARE(app("produce", "mail", "2"), QString());
        QCOMPARE(app("produce-delayed", "mail", "1"), QString());
        const QJsonObject counts = resqueCounts(server);
        QCOMPARE(counts[QStringLiteral("failedCount")].toInt(), 1);
        const QJsonObject failed
            = QJsonDocument::fromJson(resqueApp(server, {QStringLiteral("failed")}).toUtf8())
                  .array()
                  .first()
                  .toObject();
        // A Resque failure has no id: the list names it by its place in the
        // failed list and the SHA-1 of the entry stored there.
        const QByteArray entry = call(*redis, {"LINDEX", "resque:failed", "0"}).bytes();
        const QString id = QStringLiteral("0:")
                           + QString::fromLatin1(
                               QCryptographicHash::hash(entry, QCryptographicHash::Sha1).toHex());

        Expected e;
        e.key = "resque:queues";
        e.kind = QStringLiteral("resque");
        // node-resque's own figures: queue.length, allWorkingOn, failedCount;
        // its schedule counts due times, not jobs: the delayed state's
        // count is its list's.
        e.counts
            = {{QStringLiteral("queued"),
                counts[QStringLiteral("length")][QStringLiteral("mail")].toInteger()},
               {QStringLiteral("working"), counts[QStringLiteral("workingOn")].toObject().size()},
               {QStringLiteral("failed"), counts[QStringLiteral("failedCount")].toInteger()},
               {QStringLiteral("delayed"), -1}};
        e.deadState = QStringLiteral("failed");
        e.deadId = id;
        e.detail = {failed[QStringLiteral("error")].toString(),
                    failed[QStringLiteral("worker")].toString()};
        e.shot = QStringLiteral("resque");
        browse(server, e);
        if (QTest::currentTestFailed())
            return;
        QCOMPARE(e.detail.first(), QStringLiteral("failing on purpose"));
        QCOMPARE(jobs->item(jobs->currentRow(), 1)->text(),
                 failed[QStringLiteral("payload")][QStringLiteral("class")].toString());

        // Retry the chosen failure through its confirmation: node-resque
        // sees it back on its queue and no failure left. The button says
        // what Resque's retry is, not the first queue library's word.
        QCOMPARE(page->findChild<QPushButton *>(QStringLiteral("retryButton"))->text(),
                 QStringLiteral("Retry failed job…"));
        Acted retry;
        act(QStringLiteral("retryButton"), &retry);
        if (QTest::currentTestFailed())
            return;
        QVERIFY2(retry.said.contains(id), qPrintable(retry.said));
        QVERIFY2(retry.outcome.contains(QLatin1String("requeued")), qPrintable(retry.outcome));
        const QJsonObject after = resqueCounts(server);
        QCOMPARE(after[QStringLiteral("failedCount")].toInt(), 0);
        QCOMPARE(after[QStringLiteral("length")][QStringLiteral("mail")].toInt(), 3);
    }

    // asynq: the planting of tst_lib_asynq (2 done, 1 completed, 1 retry,
    // 1 archived, 1 scheduled, 3 pending, 2 active); the archived task run
    // now.
    void asynq()
    {
        gatehouse::test::AsynqState s;
        QVERIFY2(s.start(), qPrintable(s.server.errorString()));
        s.populate();
        if (QTest::currentTestFailed())
            return;
        // The counts asynq's Inspector.GetQueueInfo reads, with its commands.
        const QJsonObject info = s.queueInfo("default");
        Expected e;
        e.key = "asynq:{default}:pending";
        e.kind = QStringLiteral("asynq");
        for (const char *st : {"pending", "active", "scheduled", "retry", "archived", "completed"})
            e.counts.append({QLatin1String(st), info[QLatin1String(st)].toInteger()});
        e.deadState = QStringLiteral("archived");
        e.deadId = QStringLiteral("archived-1");
        e.detail = {QStringLiteral("email:send"), QStringLiteral("archived")};
        e.shot = QStringLiteral("asynq");
        browse(s.server, e);
        if (QTest::currentTestFailed())
            return;

        // Run the archived task (chosen) now, as Inspector.RunTask does: it
        // alone moves, LPUSHed on pending with its state and its message
        // kept; every other figure asynq reads stays.
        const QByteArray p = "asynq:{default}:";
        const QByteArray msg = s.call({"HGET", p + "t:archived-1", "msg"}).bytes();
        QVERIFY(!msg.isEmpty());
        QJsonObject expected = s.queueInfo("default");
        const auto before = keyspace(*s.client);
        Acted run;
        act(QStringLiteral("runButton"), &run);
        if (QTest::currentTestFailed())
            return;
        QCOMPARE(run.said, QStringLiteral("Move asynq task archived-1 of \"default\" (scheduled, "
                                          "retry, archived or completed) to pending, as asynq's "
                                          "Inspector.RunTask does."));
        QCOMPARE(run.outcome, QStringLiteral("Job archived-1 is pending."));
        QCOMPARE(changedKeys(before, keyspace(*s.client)),
                 (QStringList{"asynq:{default}:archived", "asynq:{default}:pending",
                              "asynq:{default}:t:archived-1"}));
        QCOMPARE(items(*s.client, {"LRANGE", p + "pending", "0", "-1"}),
                 (QList<QByteArray>{"archived-1", "pending-3", "pending-2", "pending-1"}));
        QCOMPARE(s.call({"EXISTS", p + "archived"}).toInteger(), 0);
        QCOMPARE(s.call({"HGET", p + "t:archived-1", "state"}).bytes(), QByteArray("pending"));
        QCOMPARE(s.call({"HGET", p + "t:archived-1", "msg"}).bytes(), msg);
        expected[QStringLiteral("pending")] = expected[QStringLiteral("pending")].toInt() + 1;
        expected[QStringLiteral("archived")] = 0;
        QCOMPARE(s.queueInfo("default"), expected);
        // The window: the counts moved, the task heads the pending list.
        QTRY_COMPARE(label(QStringLiteral("archived")), QStringLiteral("archived (0)"));
        QTRY_COMPARE(label(QStringLiteral("pending")), QStringLiteral("pending (4)"));
        QTRY_COMPARE(range->text(), QStringLiteral("1–4 of 4 pending"));
        QCOMPARE(jobs->item(0, 0)->text(), QStringLiteral("archived-1"));
    }

    // Dramatiq: the planting of tst_lib_dramatiq (m4 and m5 dead-lettered);
    // m4 retried.
    void dramatiq()
    {
        gatehouse::test::DramatiqState s;
        QVERIFY2(s.start(), qPrintable(s.server.errorString()));
        s.populate();
        // Dramatiq's broker has no count call: the planted layout's, as
        // dispatch.lua keeps it (the queue and delay queue lists, the
        // workers' ack sets, the dead-letter set).
        qint64 unacked = 0;
        for (const char *set :
             {"dramatiq:__acks__.worker-a.default", "dramatiq:__acks__.worker-b.default",
              "dramatiq:__acks__.worker-b.default.DQ"})
            unacked += s.call({"SCARD", set}).toInteger();
        Expected e;
        e.key = "dramatiq:default";
        e.kind = QStringLiteral("dramatiq");
        e.counts
            = {{QStringLiteral("enqueued"), s.call({"LLEN", "dramatiq:default"}).toInteger()},
               {QStringLiteral("delayed"), s.call({"LLEN", "dramatiq:default.DQ"}).toInteger()},
               {QStringLiteral("unacked"), unacked},
               {QStringLiteral("dead"), s.call({"ZCARD", "dramatiq:default.XQ"}).toInteger()}};
        QCOMPARE(unacked, 4);
        e.deadState = QStringLiteral("dead");
        e.deadId = QStringLiteral("m4");
        e.detail = {QStringLiteral("msg-m4"), QStringLiteral("send_email")};
        e.shot = QStringLiteral("dramatiq");
        browse(s.server, e);
        if (QTest::currentTestFailed())
            return;

        // Retry dead letter m4 (chosen): it alone leaves the dead letters,
        // back at the end of its queue with its message, as dispatch.lua's
        // enqueue writes one; m5 stays dead, the workers' messages stay.
        const QByteArray m4 = s.call({"HGET", "dramatiq:default.XQ.msgs", "m4"}).bytes();
        QVERIFY(!m4.isEmpty());
        QCOMPARE(s.list("dramatiq:default"), (QList<QByteArray>{"m6", "m7"}));
        const auto before = keyspace(*s.client);
        Acted retry;
        act(QStringLiteral("retryButton"), &retry);
        if (QTest::currentTestFailed())
            return;
        QCOMPARE(retry.said, QStringLiteral("Put dead-lettered Dramatiq message m4 of \"default\" "
                                            "back on the queue its message names."));
        QCOMPARE(retry.outcome, QStringLiteral("Job m4 was retried."));
        QCOMPARE(changedKeys(before, keyspace(*s.client)),
                 (QStringList{"dramatiq:default", "dramatiq:default.XQ", "dramatiq:default.XQ.msgs",
                              "dramatiq:default.msgs"}));
        QCOMPARE(s.list("dramatiq:default"), (QList<QByteArray>{"m6", "m7", "m4"}));
        QCOMPARE(s.call({"HGET", "dramatiq:default.msgs", "m4"}).bytes(), m4);
        QCOMPARE(items(*s.client, {"ZRANGE", "dramatiq:default.XQ", "0", "-1"}),
                 QList<QByteArray>{"m5"});
        QCOMPARE(items(*s.client, {"HKEYS", "dramatiq:default.XQ.msgs"}), QList<QByteArray>{"m5"});
        // The window: the counts moved, m5 alone listed dead.
        QTRY_COMPARE(label(QStringLiteral("enqueued")), QStringLiteral("enqueued (3)"));
        QTRY_COMPARE(label(QStringLiteral("dead")), QStringLiteral("dead (1)"));
        QTRY_COMPARE(range->text(), QStringLiteral("1–1 of 1 dead"));
        QCOMPARE(jobs->item(0, 0)->text(), QStringLiteral("m5"));
    }

    // Laravel: a job reserved by a worker killed in it, two pending, and a
    // queued command (App\Jobs\SendDigest) delayed 10 min; the delayed
    // job's record with its data.command decoded from PHP serialize(). The
    // reserved job put back on the queue once its reservation expired.
    void laravelQueue()
    {
        QVERIFY2(QFile::exists(PhpApp::php()), "/usr/bin/php is missing: run .ci/install-deps");
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        std::unique_ptr<RedisClient> redis = gatehouse::test::connectedClient(server);
        QVERIFY(redis);
        const PhpApp app{
            LibrariesDir + QStringLiteral("/laravel_app.php"),
            {server.url(), QStringLiteral("laravel_database_"), QStringLiteral("emails")}};
        QCOMPARE(app.run({QStringLiteral("produce-blocking"), QStringLiteral("held")}), QString());
        // retry_after 2 s: the reservation expires soon after the kill.
        auto hung = app.start({QStringLiteral("work"), QStringLiteral("2")});
        QVERIFY2(gatehouse::test::pollUntil(
                     [&] {
                         return call(*redis, {"LLEN", "laravel_database_taken"}).toInteger() == 1;
                     },
                     30000),
                 "the worker never took its job");
        hung->kill(); // SIGKILL
        QVERIFY(hung->waitForFinished(10000));
        hung.reset();
        QCOMPARE(app.run({QStringLiteral("produce"), QStringLiteral("job-2")}), QString());
        QCOMPARE(app.run({QStringLiteral("produce"), QStringLiteral("job-3")}), QString());
        QCOMPARE(app.run({QStringLiteral("later-command"), QStringLiteral("600"),
                          QStringLiteral("weekly-digest")}),
                 QString());
        const QJsonObject delayed
            = QJsonDocument::fromJson(
                  call(*redis, {"ZRANGE", "laravel_database_queues:emails:delayed", "0", "0"})
                      .at(0)
                      .bytes())
                  .object();
        // Laravel's own counts (RedisQueue's ready, delayed and reserved).
        const QJsonObject counts = app.counts();
        Expected e;
        e.key = "laravel_database_queues:emails";
        e.kind = QStringLiteral("laravel-queue");
        e.counts = {{QStringLiteral("pending"), counts[QStringLiteral("ready")].toInteger()},
                    {QStringLiteral("delayed"), counts[QStringLiteral("delayed")].toInteger()},
                    {QStringLiteral("reserved"), counts[QStringLiteral("reserved")].toInteger()}};
        QCOMPARE(e.counts.at(2).second, qint64(1));
        e.deadState = QStringLiteral("delayed");
        e.deadId = delayed[QStringLiteral("id")].toString();
        QVERIFY(!e.deadId.isEmpty());
        e.detail = {delayed[QStringLiteral("uuid")].toString(),
                    QStringLiteral("── data.command (PHP serialize) ──"),
                    QStringLiteral("weekly-digest")};
        e.shot = QStringLiteral("laravel");
        browse(server, e);
        if (QTest::currentTestFailed())
            return;
        QCOMPARE(jobs->item(jobs->currentRow(), 1)->text(),
                 QStringLiteral("App\\Jobs\\SendDigest"));
        // The job the killed worker reserved, in the table under the queues:
        // its class as PHP names it, not escaped as a key would be.
        auto *items = page->findChild<QTableWidget *>(QStringLiteral("queueItems"));
        QVERIFY(items);
        QTRY_COMPARE(items->rowCount(), 1);
        QCOMPARE(items->item(0, 1)->text(), QStringLiteral("App\\Jobs\\Block"));
        // The docs' picture of a decoded payload (console.md): the delayed
        // job's detail scrolled, as an operator scrolls it, to its
        // data.command as PHP's serialize() wrote it, shown as a structure.
        if (gatehouse::test::shotsWanted()) {
            // At the size of the docs' picture, the decoded part's header at
            // the top of the pane (or the pane scrolled to its end): from
            // the end up to the header, as ensureCursorVisible scrolls.
            console->window->resize(1280, 800);
            QTest::qWait(300);
            const QString header = QStringLiteral("── data.command (PHP serialize) ──");
            QTextCursor at = detail->document()->find(header);
            QVERIFY(!at.isNull());
            at.setPosition(at.selectionStart());
            detail->moveCursor(QTextCursor::End);
            detail->ensureCursorVisible();
            detail->setTextCursor(at);
            detail->ensureCursorVisible();
            gatehouse::test::saveShots(
                *console->window, QStringLiteral("payload-decoded"),
                {{QStringLiteral("laravel"), console->window->currentPage()}});
            QVERIFY(detail->toPlainText().contains(header)); // still the job pictured
        }
        // The reserved job, by its payload's id, with its attempt counted.
        QVERIFY(show(QStringLiteral("reserved")));
        const QByteArray queue = "laravel_database_queues:emails";
        const RedisValue reserved
            = call(*redis, {"ZRANGE", queue + ":reserved", "0", "0", "WITHSCORES"});
        const QByteArray payload = reserved.at(0).bytes();
        const QString held = QJsonDocument::fromJson(payload)[QStringLiteral("id")].toString();
        QTRY_COMPARE(jobs->rowCount(), 1);
        QCOMPARE(jobs->item(0, 0)->text(), held);

        // Once its reservation has expired (its score, by the server's
        // clock), put it (chosen) back: it alone moves, to the end of the
        // queue as migrateExpiredJobs leaves it (the payload as reserved,
        // its attempt counted; one notification); the delayed job stays.
        QVERIFY2(gatehouse::test::pollUntil(
                     [&] {
                         return call(*redis, {"TIME"}).at(0).bytes().toLongLong()
                                >= reserved.at(1).bytes().toLongLong();
                     },
                     15000),
                 "the reservation never expired");
        jobs->selectRow(0);
        const qint64 notified = call(*redis, {"LLEN", queue + ":notify"}).toInteger();
        QJsonObject expected = app.counts();
        const auto before = keyspace(*redis);
        Acted requeue;
        act(QStringLiteral("requeueButton"), &requeue);
        if (QTest::currentTestFailed())
            return;
        QCOMPARE(requeue.said, QStringLiteral("Put reserved Laravel job %1 of \"%2\" back on its "
                                              "queue (only if its reservation has expired), as "
                                              "RedisQueue::migrateExpiredJobs does.")
                                   .arg(held, QString::fromLatin1(queue)));
        QCOMPARE(requeue.outcome, QStringLiteral("Job %1 was put back on its queue.").arg(held));
        QCOMPARE(
            changedKeys(before, keyspace(*redis)),
            (QStringList{"laravel_database_queues:emails", "laravel_database_queues:emails:notify",
                         "laravel_database_queues:emails:reserved"}));
        QCOMPARE(call(*redis, {"EXISTS", queue + ":reserved"}).toInteger(), 0);
        QCOMPARE(call(*redis, {"LLEN", queue}).toInteger(), 3);
        QCOMPARE(call(*redis, {"LINDEX", queue, "-1"}).bytes(), payload);
        QCOMPARE(QJsonDocument::fromJson(payload)[QStringLiteral("attempts")].toInt(), 1);
        QCOMPARE(call(*redis, {"LLEN", queue + ":notify"}).toInteger(), notified + 1);
        expected[QStringLiteral("ready")] = expected[QStringLiteral("ready")].toInt() + 1;
        expected[QStringLiteral("reserved")] = 0;
        QCOMPARE(app.counts(), expected); // Laravel's own
        // The window: the counts moved, the job last on the pending list.
        QTRY_COMPARE(label(QStringLiteral("reserved")), QStringLiteral("reserved (0)"));
        QTRY_COMPARE(label(QStringLiteral("pending")), QStringLiteral("pending (3)"));
        QTRY_COMPARE(range->text(), QStringLiteral("1–3 of 3 pending"));
        QCOMPARE(jobs->item(2, 0)->text(), held);
    }

    // Horizon: the planting of tst_lib_laravel (a pending, a completed and
    // a failed job); the failed job's exception listed, its record shown,
    // and the job retried into its Laravel queue.
    void laravelHorizon()
    {
        gatehouse::test::HorizonState s;
        QVERIFY2(s.start(), qPrintable(s.server.errorString()));
        s.populate();
        // Horizon's own counts: ZCARD of its sets (JobRepository's
        // countRecent, countPending, countCompleted, countSilenced,
        // countFailed, countRecentlyFailed).
        const QByteArray h = gatehouse::test::HorizonState::Prefix;
        Expected e;
        e.key = h;
        e.kind = QStringLiteral("laravel-horizon");
        for (const char *st :
             {"recent", "pending", "completed", "silenced", "failed", "recent_failed"})
            e.counts.append({QLatin1String(st), s.call({"ZCARD", h + st + "_jobs"}).toInteger()});
        QCOMPARE(e.counts.at(4).second, qint64(1));
        e.deadState = QStringLiteral("failed");
        e.deadId = QStringLiteral("0b6e2c4a-1f7e-4a8b-9c3d-5e6f7a8b9c03");
        e.detail = {QStringLiteral("mail server refused"), QStringLiteral("emails"),
                    QStringLiteral("── data.command (PHP serialize) ──"),
                    QStringLiteral("weekly-digest")};
        e.shot = QStringLiteral("horizon");
        browse(s.server, e);
        if (QTest::currentTestFailed())
            return;
        const int r = jobs->currentRow();
        QCOMPARE(jobs->item(r, 1)->text(), QStringLiteral("App\\Jobs\\SendDigest"));
        bool errorShown = false;
        for (int c = 2; c < jobs->columnCount(); ++c)
            errorShown = errorShown
                         || (jobs->item(r, c)
                             && jobs->item(r, c)->text().startsWith(
                                 QLatin1String("RuntimeException: mail server refused")));
        QVERIFY(errorShown);

        // Retry it (chosen) into its Laravel queue, typed in the action's
        // form as it asks (Horizon's keys do not name the application's
        // prefix), as RetryFailedJob does: its payload as a new job at the
        // end of that list with one notification, recorded as Horizon
        // records a pushed job, the retry on the failed job's record (still
        // failed); the pending and completed jobs stay.
        const QByteArray failed = e.deadId.toLatin1();
        const QByteArray queue = "laravel_database_queues:emails";
        const QJsonObject was
            = QJsonDocument::fromJson(s.call({"HGET", h + failed, "payload"}).bytes()).object();
        const auto before = keyspace(*s.client);
        QCOMPARE(page->findChild<QPushButton *>(QStringLiteral("retryButton"))->text(),
                 QStringLiteral("Retry failed job…"));
        Acted retry;
        act(QStringLiteral("retryButton"), &retry,
            {{QStringLiteral("queue"), QString::fromLatin1(queue)}});
        if (QTest::currentTestFailed())
            return;
        const QString fresh = QRegularExpression(QStringLiteral("as job ([0-9a-f-]{36}) "))
                                  .match(retry.said)
                                  .captured(1);
        QVERIFY2(!fresh.isEmpty(), qPrintable(retry.said));
        QCOMPARE(
            retry.said,
            QStringLiteral("Retry failed Horizon job %1: its payload as job %2 (attempts 0) at "
                           "the end of \"%3\", recorded as Horizon records a pushed job, as "
                           "Horizon's RetryFailedJob does.")
                .arg(e.deadId, fresh, QString::fromLatin1(queue)));
        QCOMPARE(retry.outcome, QStringLiteral("Job %1 was retried as %2.").arg(e.deadId, fresh));
        const QByteArray id = fresh.toLatin1();
        QStringList written{QString::fromLatin1(queue),
                            QString::fromLatin1(queue + ":notify"),
                            QString::fromLatin1(h + failed),
                            QString::fromLatin1(h + id),
                            QString::fromLatin1(h + "pending_jobs"),
                            QString::fromLatin1(h + "recent_jobs")};
        written.sort();
        QCOMPARE(changedKeys(before, keyspace(*s.client)), written);
        const QList<QByteArray> pushed = items(*s.client, {"LRANGE", queue, "0", "-1"});
        QCOMPARE(pushed.size(), 1);
        const QJsonObject job = QJsonDocument::fromJson(pushed.first()).object();
        QCOMPARE(job[QStringLiteral("id")].toString(), fresh);
        QCOMPARE(job[QStringLiteral("uuid")].toString(), fresh);
        QCOMPARE(job[QStringLiteral("retry_of")].toString(), e.deadId);
        QCOMPARE(job[QStringLiteral("attempts")].toInt(), 0);
        QCOMPARE(job[QStringLiteral("data")], was[QStringLiteral("data")]);
        QCOMPARE(s.call({"LLEN", queue + ":notify"}).toInteger(), 1);
        QCOMPARE(s.call({"HGET", h + id, "status"}).bytes(), QByteArray("pending"));
        QCOMPARE(s.call({"HGET", h + id, "queue"}).bytes(), QByteArray("emails"));
        QCOMPARE(s.call({"HGET", h + failed, "status"}).bytes(), QByteArray("failed"));
        const QJsonArray retries
            = QJsonDocument::fromJson(s.call({"HGET", h + failed, "retried_by"}).bytes()).array();
        QCOMPARE(retries.size(), 1);
        QCOMPARE(retries.first()[QStringLiteral("id")].toString(), fresh);
        // Horizon's counts: one more recent and pending job, no fewer failed.
        for (const auto &[st, n] : e.counts) {
            const qint64 more = st == QLatin1String("recent") || st == QLatin1String("pending");
            QCOMPARE(s.call({"ZCARD", h + st.toLatin1() + "_jobs"}).toInteger(), n + more);
        }
        // The window: the counts moved, the new job listed pending.
        QTRY_COMPARE(label(QStringLiteral("recent")), QStringLiteral("recent (4)"));
        QTRY_COMPARE(label(QStringLiteral("failed")), QStringLiteral("failed (1)"));
        QTRY_COMPARE(label(QStringLiteral("pending")), QStringLiteral("pending (2)"));
        QTRY_COMPARE(range->text(), QStringLiteral("1–2 of 2 pending"));
        QCOMPARE(jobs->item(0, 0)->text(), fresh); // the newest first
        // The Laravel queue the retry created is on the Queues page at once,
        // as Laravel's, with its job: not unknown until the next rescan (a
        // minute on; this server publishes no keyspace events).
        ObjectTableModel *model = console->window->model(QStringLiteral("queue"));
        QTRY_VERIFY_WITH_TIMEOUT(model->rowOf(queue) >= 0, 5000);
        const ObjectState *created = model->stateAt(model->rowOf(queue));
        QCOMPARE(created->object->kind.id(), QStringLiteral("laravel-queue"));
        QTRY_COMPARE(model->stateAt(model->rowOf(queue))->reading.queue().length, qint64(1));
    }

    // Symfony Messenger: a message sent now and two delayed (10 and 15 min),
    // by the transport's own Connection::add; the next due released now.
    void symfonyDelayed()
    {
        QVERIFY2(QFile::exists(PhpApp::php()), "/usr/bin/php is missing: run .ci/install-deps");
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        std::unique_ptr<RedisClient> redis = gatehouse::test::connectedClient(server);
        QVERIFY(redis);
        const PhpApp app{LibrariesDir + QStringLiteral("/symfony_app.php"), {server.url()}};
        QCOMPARE(app.run({QStringLiteral("produce"), QStringLiteral("a")}), QString());
        QCOMPARE(app.run({QStringLiteral("later"), QStringLiteral("600000"), QStringLiteral("c")}),
                 QString());
        QCOMPARE(app.run({QStringLiteral("later"), QStringLiteral("900000"), QStringLiteral("d")}),
                 QString());
        // The next due: "run:c", named by its uniqid.
        const QJsonObject next
            = QJsonDocument::fromJson(
                  call(*redis, {"ZRANGE", "messages__queue", "0", "0"}).at(0).bytes())
                  .object();
        Expected e;
        e.key = "messages__queue";
        e.kind = QStringLiteral("symfony-delayed");
        e.counts
            = {{QStringLiteral("delayed"), app.counts()[QStringLiteral("delayed")].toInteger()}};
        QCOMPARE(e.counts.first().second, qint64(2));
        e.deadState = QStringLiteral("delayed");
        e.deadId = next[QStringLiteral("uniqid")].toString();
        QVERIFY(!e.deadId.isEmpty());
        e.detail = {QStringLiteral("run:c"), e.deadId};
        e.shot = QStringLiteral("symfony");
        browse(server, e);
        if (QTest::currentTestFailed())
            return;
        // When it is due, ahead of now (its score).
        QVERIFY2(QRegularExpression(QStringLiteral("^in (9\\.\\d|10\\.0) min$"))
                     .match(jobs->item(jobs->currentRow(), 2)->text())
                     .hasMatch(),
                 qPrintable(jobs->item(jobs->currentRow(), 2)->text()));

        // Release it (chosen) now: it alone leaves the delayed set, into the
        // stream as the transport's get() moves a due one (its body and
        // headers, encoded as the stream's other entry); "run:d" stays.
        const QList<QByteArray> delayed = items(*redis, {"ZRANGE", "messages__queue", "0", "-1"});
        QCOMPARE(delayed.size(), 2);
        QJsonObject expected = app.counts();
        const auto before = keyspace(*redis);
        Acted release;
        act(QStringLiteral("releaseButton"), &release);
        if (QTest::currentTestFailed())
            return;
        QCOMPARE(release.said, QStringLiteral("Move delayed Symfony Messenger message %1 of "
                                              "\"messages__queue\" into its stream now, as the "
                                              "transport's get() moves a due one.")
                                   .arg(e.deadId));
        QCOMPARE(release.outcome,
                 QStringLiteral("Job %1 was moved into the stream.").arg(e.deadId));
        QCOMPARE(changedKeys(before, keyspace(*redis)),
                 (QStringList{"messages", "messages__queue"}));
        QCOMPARE(items(*redis, {"ZRANGE", "messages__queue", "0", "-1"}), delayed.mid(1));
        const RedisValue entries = call(*redis, {"XRANGE", "messages", "-", "+"});
        QCOMPARE(entries.size(), 2);
        // An entry's "message": PHP-serialised JSON (s:<n>:"<json>";) with
        // the transport's default serializer.
        const auto message = [&](int i) {
            const RedisValue fields = entries.at(i).at(1);
            for (int f = 0; f + 1 < fields.size(); f += 2) {
                if (fields.at(f).bytes() == "message")
                    return fields.at(f + 1).bytes();
            }
            return QByteArray();
        };
        QCOMPARE(message(1).startsWith("s:"), message(0).startsWith("s:"));
        QByteArray json = message(1);
        if (json.startsWith("s:"))
            json = json.mid(json.indexOf(":\"") + 2).chopped(2);
        QCOMPARE(QJsonDocument::fromJson(json)[QStringLiteral("body")].toString(),
                 QStringLiteral("run:c"));
        expected[QStringLiteral("stream")] = expected[QStringLiteral("stream")].toInt() + 1;
        expected[QStringLiteral("delayed")] = expected[QStringLiteral("delayed")].toInt() - 1;
        QCOMPARE(app.counts(), expected); // the transport's own
        // The window: the count moved, "run:d" alone listed.
        QTRY_COMPARE(label(QStringLiteral("delayed")), QStringLiteral("delayed (1)"));
        QTRY_COMPARE(range->text(), QStringLiteral("1–1 of 1 delayed"));
        QCOMPARE(jobs->item(0, 0)->text(),
                 QJsonDocument::fromJson(delayed.at(1))[QStringLiteral("uniqid")].toString());
    }
};

QTEST_MAIN(tst_LibraryBrowserGui)
#include "tst_librarybrowsergui.moc"
