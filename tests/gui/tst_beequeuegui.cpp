// SPDX-License-Identifier: MIT
// The Queues page on a real bee-queue queue (npm bee-queue,
// tests/libraries/beequeue-app.js): found with no profile under bee-queue,
// each state by bee-queue's own name with the count its checkHealth() gives,
// a failed job's record from the jobs hash, and "Retry…" on the job chosen in
// the list, through its confirmation, which bee-queue itself then sees; a
// resembling layout shown with every action disabled and why.
#include <mainwindow.h>
#include <redis/redisclient.h>
#include <sectionpage.h>

#include "redisserver.h"
#include "testconsole.h"

#include <QComboBox>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QPlainTextEdit>
#include <QProcess>
#include <QPushButton>
#include <QTabBar>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

using namespace gatehouse;
using gatehouse::test::call;
using gatehouse::test::RedisServer;

namespace {

const QString LibrariesDir = QStringLiteral(GATEHOUSE_LIBRARIES_DIR);

QStringList appArgs(const RedisServer &server, const QStringList &command)
{
    return QStringList{LibrariesDir + QStringLiteral("/beequeue-app.js"), server.url(),
                       QStringLiteral("emails")}
           + command;
}

QString node(const RedisServer &server, const QStringList &command)
{
    QProcess p;
    p.start(QStringLiteral("node"), appArgs(server, command));
    if (!p.waitForFinished(60000) || p.exitCode() != 0)
        return QStringLiteral("<failed: %1>").arg(QString::fromUtf8(p.readAllStandardError()));
    return QString::fromUtf8(p.readAllStandardOutput()).trimmed();
}

} // namespace

class tst_BeeQueueGui : public QObject
{
    Q_OBJECT

private slots:
    void statesRecordAndRetry()
    {
        QVERIFY2(
            QFile::exists(LibrariesDir + QStringLiteral("/node_modules/bee-queue/package.json")),
            "npm packages missing: run .ci/install-deps");
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        std::unique_ptr<RedisClient> redis = gatehouse::test::connectedClient(server);
        QVERIFY(redis);
        QCOMPARE(node(server, {QStringLiteral("produce-failing"), QStringLiteral("1")}), QString());
        QProcess worker;
        worker.start(QStringLiteral("node"),
                     appArgs(server, {QStringLiteral("work"), QStringLiteral("ran")}));
        QVERIFY(QTest::qWaitFor(
            [&] {
                return call(*redis, {"SCARD", "bq:emails:failed"}).toInteger() == 1;
            },
            30000));
        worker.kill();
        worker.waitForFinished(10000);
        QCOMPARE(node(server, {QStringLiteral("produce"), QStringLiteral("2")}), QString());
        const QJsonObject health
            = QJsonDocument::fromJson(node(server, {QStringLiteral("health")}).toUtf8()).object();
        QCOMPARE(health.value(QStringLiteral("waiting")).toInt(), 2);
        QCOMPARE(health.value(QStringLiteral("failed")).toInt(), 1);

        QTemporaryDir dir;
        gatehouse::test::TestConsoleOptions options;
        options.autodetect = true; // no profile
        options.size = QSize(1400, 900);
        gatehouse::test::TestConsole console(server, dir.filePath(QStringLiteral("audit.jsonl")),
                                             options);
        MainWindow &window = *console.window;
        const QString section = QStringLiteral("queue");
        QVERIFY(console.select(section, "bq:emails"));
        const int row = window.model(section)->rowOf("bq:emails");
        QCOMPARE(window.model(section)->stateAt(row)->object->kind.id(),
                 QStringLiteral("bee-queue"));
        SectionPage *page = window.sectionPage(section);
        auto *state = page->findChild<QComboBox *>(QStringLiteral("queueJobState"));
        auto *jobs = page->findChild<QTableWidget *>(QStringLiteral("queueJobList"));
        auto *range = page->findChild<QLabel *>(QStringLiteral("queueJobsRange"));
        auto *detail = page->findChild<QPlainTextEdit *>(QStringLiteral("queueJobDetail"));
        auto *stages = page->findChild<QTabBar *>(QStringLiteral("queueJobStages"));
        QVERIFY(state && jobs && range && detail && stages);
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
        const auto label = [&](const char *s) {
            show(s);
            return state->itemText(state->findData(QLatin1String(s)));
        };
        // bee-queue's names, with checkHealth()'s counts.
        QTRY_COMPARE(label("waiting"), QStringLiteral("waiting (2)"));
        for (const char *s : {"active", "succeeded", "failed", "delayed"})
            QCOMPARE(label(s), QStringLiteral("%1 (%2)")
                                   .arg(QLatin1String(s))
                                   .arg(health.value(QLatin1String(s)).toInt()));

        // The failed job, its record, then retried from the list.
        QVERIFY(show("failed"));
        QVERIFY2(QTest::qWaitFor([&] { return range->text() == QStringLiteral("1–1 of 1 failed"); },
                                 5000),
                 qPrintable(range->text()));
        QCOMPARE(jobs->item(0, 0)->text(), QStringLiteral("failing-1"));
        jobs->selectRow(0);
        QVERIFY2(
            QTest::qWaitFor(
                [&] { return detail->toPlainText().contains(QLatin1String("failing on purpose")); },
                5000),
            qPrintable(detail->toPlainText()));
        QVERIFY(detail->toPlainText().contains(QLatin1String("\"failOnce\": true")));
        QString outcome;
        connect(&window, &MainWindow::actionFinished, this, [&](const QString &m) { outcome = m; });
        QObject owner;
        gatehouse::test::acceptNextConfirmation(&owner);
        auto *retry = page->findChild<QPushButton *>(QStringLiteral("retryButton"));
        QVERIFY(retry);
        retry->click();
        QVERIFY2(QTest::qWaitFor([&] { return !outcome.isEmpty(); }, 5000), "no outcome");
        QVERIFY2(outcome.contains(QLatin1String("retried")), qPrintable(outcome));
        const QJsonObject after
            = QJsonDocument::fromJson(node(server, {QStringLiteral("health")}).toUtf8()).object();
        QCOMPARE(after.value(QStringLiteral("failed")).toInt(), 0);
        QCOMPARE(after.value(QStringLiteral("waiting")).toInt(), 3);
    }

    // Keys that resemble bee-queue's without being its layout (jobs listed
    // with no jobs hash) are shown, read-only: every action of the page and
    // every job verb is disabled and says why, and nothing was written.
    void resemblingLayoutOffersNoAction()
    {
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        std::unique_ptr<RedisClient> redis = gatehouse::test::connectedClient(server);
        QVERIFY(redis);
        call(*redis, {"RPUSH", "bq:nohash:waiting", "1", "2"});
        call(*redis, {"RPUSH", "bq:nohash:active", "3"});
        call(*redis, {"SADD", "bq:nohash:stalling", "3"});
        call(*redis, {"SADD", "bq:nohash:failed", "4"});

        QTemporaryDir dir;
        gatehouse::test::TestConsoleOptions options;
        options.autodetect = true;
        gatehouse::test::TestConsole console(server, dir.filePath(QStringLiteral("audit.jsonl")),
                                             options);
        MainWindow &window = *console.window;
        const QString section = QStringLiteral("queue");
        QVERIFY(console.select(section, "bq:nohash"));
        const int row = window.model(section)->rowOf("bq:nohash");
        QCOMPARE(window.model(section)->stateAt(row)->object->kind.id(),
                 QStringLiteral("bee-queue"));
        QVERIFY(!window.model(section)->stateAt(row)->reading.library().layoutKnown);
        SectionPage *page = window.sectionPage(section);
        int offered = 0;
        for (QPushButton *b : page->findChildren<QPushButton *>()) {
            if (!b->property("patternAction").isValid() || !b->isVisibleTo(page))
                continue;
            ++offered;
            QVERIFY2(!b->isEnabled(), qPrintable(b->text()));
            QVERIFY2(b->toolTip().contains(QLatin1String("read-only")), qPrintable(b->toolTip()));
            QVERIFY2(b->toolTip().contains(QLatin1String("no jobs hash")),
                     qPrintable(b->toolTip()));
        }
        QVERIFY(offered >= 3); // requeue, retry, remove at least
        // The job list's verb too (Retry on the failed jobs).
        auto *stages = page->findChild<QTabBar *>(QStringLiteral("queueJobStages"));
        auto *state = page->findChild<QComboBox *>(QStringLiteral("queueJobState"));
        auto *retry = page->findChild<QPushButton *>(QStringLiteral("queueRequeueDead"));
        QVERIFY(stages && state && retry);
        bool shown = false;
        for (int t = 0; t < stages->count() && !shown; ++t) {
            stages->setCurrentIndex(t);
            const int i = state->findData(QStringLiteral("failed"));
            if (i >= 0) {
                state->setCurrentIndex(i);
                shown = true;
            }
        }
        QVERIFY(shown);
        QTRY_VERIFY(retry->isVisibleTo(page));
        QVERIFY(!retry->isEnabled());
        QVERIFY2(retry->toolTip().contains(QLatin1String("read-only")),
                 qPrintable(retry->toolTip()));
        QCOMPARE(call(*redis, {"LLEN", "bq:nohash:waiting"}).toInteger(), 2);
        QCOMPARE(call(*redis, {"LLEN", "bq:nohash:active"}).toInteger(), 1);
        QCOMPARE(call(*redis, {"SCARD", "bq:nohash:failed"}).toInteger(), 1);
    }
};

QTEST_MAIN(tst_BeeQueueGui)
#include "tst_beequeuegui.moc"
