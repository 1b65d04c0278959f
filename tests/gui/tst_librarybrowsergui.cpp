// SPDX-License-Identifier: MIT
// The Queues page's job browser on library queues found with no profile:
// each state's label "state (count)" with the library's own count, the
// failed (dead) state's list showing the job planted there, and its record
// in the detail pane. Resque (npm node-resque, tests/libraries/
// resque-app.js) is driven for real, and its failed job is retried through
// the confirmation, which node-resque itself then sees. Laravel's Redis
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

#include <QComboBox>
#include <QCryptographicHash>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QPlainTextEdit>
#include <QProcess>
#include <QPushButton>
#include <QRegularExpression>
#include <QTabBar>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

using namespace gatehouse;
using gatehouse::test::call;
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

// What a library's queue should show in the job browser.
struct Expected
{
    QByteArray key;                           // the queue's row
    QString kind;                             // its pattern kind id
    QList<std::pair<QString, qint64>> counts; // every state, the library's count
    QString deadState;                        // the state listed and chosen
    QString deadId;                           // the job planted there, as its list names it
    QStringList detail;                       // what the job's record holds (planted)
    QString shot;                             // the screenshot's library name
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
        QCOMPARE(window.model(section)->stateAt(row)->object.kind.id(), e.kind);
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
            QTRY_COMPARE(label(s), QStringLiteral("%1 (%2)").arg(s).arg(n));

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
        // its one delayed job is at one timestamp (queue.timestamps()).
        e.counts = {
            {QStringLiteral("queued"),
             counts[QStringLiteral("length")][QStringLiteral("mail")].toInteger()},
            {QStringLiteral("working"), counts[QStringLiteral("workingOn")].toObject().size()},
            {QStringLiteral("failed"), counts[QStringLiteral("failedCount")].toInteger()},
            {QStringLiteral("delayed timestamps"), counts[QStringLiteral("delayed")].toInteger()}};
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
        // sees it back on its queue and no failure left.
        QString outcome;
        connect(console->window.get(), &MainWindow::actionFinished, this,
                [&](const QString &m) { outcome = m; });
        QObject owner;
        gatehouse::test::acceptNextConfirmation(&owner);
        auto *retry = page->findChild<QPushButton *>(QStringLiteral("retryButton"));
        QVERIFY(retry);
        retry->click();
        QVERIFY2(QTest::qWaitFor([&] { return !outcome.isEmpty(); }, 5000), "no outcome");
        QVERIFY2(outcome.contains(QLatin1String("requeued")), qPrintable(outcome));
        const QJsonObject after = resqueCounts(server);
        QCOMPARE(after[QStringLiteral("failedCount")].toInt(), 0);
        QCOMPARE(after[QStringLiteral("length")][QStringLiteral("mail")].toInt(), 3);
    }

    // asynq: the planting of tst_lib_asynq (2 done, 1 completed, 1 retry,
    // 1 archived, 1 scheduled, 3 pending, 2 active).
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
    }

    // Dramatiq: the planting of tst_lib_dramatiq (m4 and m5 dead-lettered).
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
    }

    // Laravel: a job reserved by a worker killed in it, two pending, and a
    // queued command (App\Jobs\SendDigest) delayed 10 min; the delayed
    // job's record with its data.command decoded from PHP serialize().
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
        auto hung = app.start({QStringLiteral("work"), QStringLiteral("600")});
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
        // The reserved job, by its payload's id, with its attempt counted.
        QVERIFY(show(QStringLiteral("reserved")));
        const QJsonObject held
            = QJsonDocument::fromJson(
                  call(*redis, {"ZRANGE", "laravel_database_queues:emails:reserved", "0", "0"})
                      .at(0)
                      .bytes())
                  .object();
        QTRY_COMPARE(jobs->rowCount(), 1);
        QCOMPARE(jobs->item(0, 0)->text(), held[QStringLiteral("id")].toString());
    }

    // Horizon: the planting of tst_lib_laravel (a pending, a completed and
    // a failed job); the failed job's exception listed, its record shown.
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
    }

    // Symfony Messenger: a message sent now and two delayed (10 and 15 min),
    // by the transport's own Connection::add.
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
    }
};

QTEST_MAIN(tst_LibraryBrowserGui)
#include "tst_librarybrowsergui.moc"
