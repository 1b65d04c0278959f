// SPDX-License-Identifier: MIT
// Keys that resemble a library's layout with a missing or foreign part, on
// the Queues page with no profile: the object is shown under the library's
// pattern, its Library column says "unknown layout, read-only", every
// action of the page for it is disabled and says why, and so is every job
// verb of its lists with a job chosen; nothing is written. One row per
// library whose reading can mark a layout unknown: Laravel's Redis queue
// (a reserved set of members that are not Laravel payloads), Dramatiq (a
// dead letter that is not a Dramatiq message), Laravel Horizon (a recent
// job whose status Horizon never writes), Symfony Messenger's delayed set
// (members that are not messages) and asynq (a task hash without asynq's
// msg). The same plantings are refused by the CLI in tst_lib_laravel,
// tst_lib_dramatiq, tst_lib_symfony and tst_lib_asynq. bee-queue's is
// tst_beequeuegui's.
#include <mainwindow.h>
#include <objecttablemodel.h>
#include <redis/redisclient.h>
#include <sectionpage.h>

#include "librarytest.h"
#include "redisserver.h"
#include "testconsole.h"

#include <QComboBox>
#include <QLabel>
#include <QPushButton>
#include <QTabBar>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

using namespace gatehouse;
using gatehouse::test::call;
using gatehouse::test::RedisServer;

using Commands = QList<QList<QByteArray>>;
Q_DECLARE_METATYPE(Commands)

namespace {

// Every key with its type, its encoding and what it holds, sorted: equal
// before and after when nothing was written, and nothing was re-encoded (a
// SORT of a small sorted set would turn its listpack into a skiplist).
QStringList contents(RedisClient &redis)
{
    QStringList out;
    const RedisValue keys = call(redis, {"KEYS", "*"}); // a planting's few keys
    for (const RedisValue &k : keys.elements()) {
        const QByteArray key = k.bytes();
        const QByteArray type = call(redis, {"TYPE", key}).bytes();
        QList<QByteArray> read{"GET", key};
        if (type == "list")
            read = {"LRANGE", key, "0", "-1"};
        else if (type == "zset")
            read = {"ZRANGE", key, "0", "-1", "WITHSCORES"};
        else if (type == "hash")
            read = {"HGETALL", key};
        else if (type == "set")
            read = {"SMEMBERS", key};
        const RedisValue value = call(redis, read);
        QStringList items;
        for (const RedisValue &v : value.elements())
            items << QString::fromLatin1(v.bytes().toHex());
        if (type == "hash" || type == "set")
            items.sort();
        const QByteArray encoding = call(redis, {"OBJECT", "ENCODING", key}).bytes();
        out << QString::fromUtf8(key + ' ' + type + ' ' + encoding + ' ' + value.bytes().toHex()
                                 + ' ')
                   + items.join(QLatin1Char(','));
    }
    out.sort();
    return out;
}

} // namespace

class tst_UnknownLayoutGui : public QObject
{
    Q_OBJECT

private slots:
    void noVerbsOnAnUnknownLayout_data()
    {
        QTest::addColumn<Commands>("planting");
        QTest::addColumn<QByteArray>("key");        // the object's row
        QTest::addColumn<QString>("kind");          // its pattern
        QTest::addColumn<QString>("foreign");       // what the disabled actions say is foreign
        QTest::addColumn<QStringList>("lists");     // states with a job to choose
        QTest::addColumn<QStringList>("verbLists"); // those whose list offers job verbs

        // As tst_lib_laravel's resemblingLayouts: a reserved set whose member
        // is no Laravel payload beside a list of Laravel's name.
        QTest::newRow("laravel-queue")
            << Commands{{"RPUSH", "queues:foreign", "not json"},
                        {"ZADD", "queues:foreign:reserved", "1", "member-1"}}
            << QByteArray("queues:foreign") << QStringLiteral("laravel-queue")
            << QStringLiteral("read-only") << QStringList{QStringLiteral("pending")}
            << QStringList();
        // As tst_lib_dramatiq's resemblingLayoutReadOnly: a Dramatiq queue
        // and heartbeats, and a dead letter whose message is not Dramatiq's.
        const QByteArray message
            = R"({"queue_name":"default","actor_name":"send_email","args":[42],"kwargs":{},)"
              R"("options":{"redis_message_id":"m1"},"message_id":"msg-m1",)"
              R"("message_timestamp":1700000000000})";
        QTest::newRow("dramatiq")
            << Commands{{"ZADD", "dramatiq:__heartbeats__", "1700000000000", "producer-1"},
                        {"HSET", "dramatiq:default.msgs", "m1", message},
                        {"RPUSH", "dramatiq:default", "m1"},
                        {"HSET", "dramatiq:default.XQ.msgs", "x1", R"({"job":"not dramatiq"})"},
                        {"ZADD", "dramatiq:default.XQ", "1700000000000", "x1"}}
            << QByteArray("dramatiq:default") << QStringLiteral("dramatiq")
            << QStringLiteral("not a Dramatiq message")
            << QStringList{QStringLiteral("enqueued"), QStringLiteral("dead")} << QStringList();
        // As tst_lib_laravel's horizonResemblingLayoutReadOnly: Horizon's set
        // names and negative scores, a job whose status Horizon never writes.
        QTest::newRow("laravel-horizon")
            << Commands{{"ZADD", "tracker:recent_jobs", "-1700000100.5", "a", "-1700000090.5", "b"},
                        {"ZADD", "tracker:failed_jobs", "-1700000090.5", "b"},
                        {"HSET", "tracker:a", "status", "archived", "queue", "emails"},
                        {"HSET", "tracker:b", "status", "failed", "queue", "emails", "payload",
                         R"({"uuid":"b","id":"b","job":"App\\Jobs\\Run","attempts":1,"data":{}})"}}
            << QByteArray("tracker:") << QStringLiteral("laravel-horizon")
            << QStringLiteral("status \"archived\"") << QStringList{QStringLiteral("failed")}
            << QStringList();
        // As tst_lib_symfony's resemblingDelayedSetsReadOnly: "<name>__queue"
        // scored in epoch ms, its members no messages.
        QTest::newRow("symfony-delayed")
            << Commands{{"ZADD", "jobs__queue", "1700000000000", "plain-1", "1700000001000",
                         "plain-2"}}
            << QByteArray("jobs__queue") << QStringLiteral("symfony-delayed")
            << QStringLiteral("are not Symfony Messenger messages")
            << QStringList{QStringLiteral("delayed")} << QStringList();
        // As tst_lib_asynq's resemblingLayoutReadOnly: a task hash without
        // asynq's msg and state, active under an expired lease.
        QTest::newRow("asynq") << Commands{{"SADD", "asynq:queues", "default"},
                                           {"HSET", "asynq:{default}:t:ok-1", "msg",
                                            QByteArray("\x0a\x0a"
                                                       "email:send"
                                                       "\x1a\x04"
                                                       "ok-1"
                                                       "\x22\x07"
                                                       "default"),
                                            "state", "pending", "pending_since",
                                            "1700000000000000000"},
                                           {"LPUSH", "asynq:{default}:pending", "ok-1"},
                                           {"HSET", "asynq:{default}:t:odd-1", "payload", "{}"},
                                           {"LPUSH", "asynq:{default}:active", "odd-1"},
                                           {"ZADD", "asynq:{default}:lease", "1700000000", "odd-1"}}
                               << QByteArray("asynq:{default}:pending") << QStringLiteral("asynq")
                               << QStringLiteral("read-only")
                               << QStringList{QStringLiteral("pending"), QStringLiteral("active")}
                               << QStringList();
        // As tst_lib_resque's resemblance: a namespace of Resque's shape
        // whose queue and failure hold a Sidekiq job (a jid); its failed
        // list offers Resque's job verb.
        QTest::newRow("resque")
            << Commands{{"SADD", "odd:queues", "q"},
                        {"RPUSH", "odd:queue:q", R"({"class":"X","args":[],"jid":"abc"})"},
                        {"RPUSH", "odd:failed",
                         R"({"payload":{"class":"X","args":[],"jid":"abc"},"queue":"q",)"
                         R"("error":"e"})"}}
            << QByteArray("odd:queues") << QStringLiteral("resque") << QStringLiteral("read-only")
            << QStringList{QStringLiteral("queued"), QStringLiteral("failed")}
            << QStringList{QStringLiteral("failed")};
    }

    void noVerbsOnAnUnknownLayout()
    {
        QFETCH(Commands, planting);
        QFETCH(QByteArray, key);
        QFETCH(QString, kind);
        QFETCH(QString, foreign);
        QFETCH(QStringList, lists);
        QFETCH(QStringList, verbLists);
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        std::unique_ptr<RedisClient> redis = gatehouse::test::connectedClient(server);
        QVERIFY(redis);
        for (const QList<QByteArray> &c : planting)
            QVERIFY2(!call(*redis, c).isError(), c.join(' ').constData());
        const QStringList planted = contents(*redis);

        QTemporaryDir dir;
        gatehouse::test::TestConsoleOptions options;
        options.autodetect = true; // no profile
        options.size = QSize(1400, 900);
        gatehouse::test::TestConsole console(server, dir.filePath(QStringLiteral("audit.jsonl")),
                                             options);
        MainWindow &window = *console.window;
        const QString section = QStringLiteral("queue");
        QVERIFY(console.select(section, key));
        const int row = window.model(section)->rowOf(key);
        const ObjectState *shown = window.model(section)->stateAt(row);
        QCOMPARE(shown->object->kind.id(), kind);
        QVERIFY(!shown->reading.library().layoutKnown);

        // Marked in the table: the Library column says so.
        QTableView *view = window.table(section);
        QString library;
        for (int r = 0; r < view->model()->rowCount(); ++r) {
            if (view->model()->index(r, 0).data(ObjectTableModel::KeyRole).toByteArray() != key)
                continue;
            for (int c = 0; c < view->model()->columnCount(); ++c) {
                if (view->model()->headerData(c, Qt::Horizontal).toString()
                    == QLatin1String("Library"))
                    library = view->model()->index(r, c).data().toString();
            }
        }
        QVERIFY2(library.endsWith(QLatin1String("(unknown layout, read-only)")),
                 qPrintable(library));

        // Every action of the page offered for it: disabled, saying why.
        SectionPage *page = window.sectionPage(section);
        const auto checkActions = [&] {
            int offered = 0;
            for (QPushButton *b : page->findChildren<QPushButton *>()) {
                if (!b->property("patternAction").isValid() || !b->isVisibleTo(page))
                    continue;
                ++offered;
                QVERIFY2(!b->isEnabled(), qPrintable(kind + QLatin1Char(' ') + b->text()));
                QVERIFY2(b->toolTip().contains(QLatin1String("shown read-only")),
                         qPrintable(b->text() + QLatin1String(": ") + b->toolTip()));
                QVERIFY2(b->toolTip().contains(foreign),
                         qPrintable(b->text() + QLatin1String(": ") + b->toolTip()));
            }
            QVERIFY2(offered >= 1, qPrintable(kind));
        };
        checkActions();
        if (QTest::currentTestFailed())
            return;

        // Every job verb of each list, with a job chosen in it (with none
        // chosen a verb is disabled anyway).
        auto *stages = page->findChild<QTabBar *>(QStringLiteral("queueJobStages"));
        auto *state = page->findChild<QComboBox *>(QStringLiteral("queueJobState"));
        auto *jobs = page->findChild<QTableWidget *>(QStringLiteral("queueJobList"));
        QVERIFY(stages && state && jobs);
        const QList<QPushButton *> verbs{
            page->findChild<QPushButton *>(QStringLiteral("queueRequeueDead")),
            page->findChild<QPushButton *>(QStringLiteral("queueDeadLetter")),
            page->findChild<QPushButton *>(QStringLiteral("queuePurgeDead"))};
        QVERIFY(!verbs.contains(nullptr));
        auto *range = page->findChild<QLabel *>(QStringLiteral("queueJobsRange"));
        QVERIFY(range);
        for (const QString &s : lists) {
            bool found = false;
            for (int t = 0; t < stages->count() && !found; ++t) {
                stages->setCurrentIndex(t);
                const int i = state->findData(s);
                if (i >= 0) {
                    state->setCurrentIndex(i);
                    found = true;
                }
            }
            QVERIFY2(found, qPrintable(kind + QStringLiteral(": no state ") + s));
            // "1–n of n <state>": this state's page, not the last one's.
            QVERIFY2(QTest::qWaitFor(
                         [&] {
                             return range->text().startsWith(QStringLiteral("1–"))
                                    && range->text().endsWith(QLatin1Char(' ') + s)
                                    && jobs->rowCount() > 0;
                         },
                         5000),
                     qPrintable(kind + QLatin1Char(' ') + s + QLatin1String(": ") + range->text()));
            jobs->selectRow(0);
            QVERIFY(!jobs->selectionModel()->selectedRows().isEmpty());
            int verbsShown = 0;
            for (QPushButton *b : verbs) {
                if (!b->isVisibleTo(page))
                    continue;
                ++verbsShown;
                QVERIFY2(!b->isEnabled(),
                         qPrintable(kind + QLatin1Char(' ') + s + QLatin1Char(' ') + b->text()));
                QVERIFY2(b->toolTip().contains(QLatin1String("shown read-only")),
                         qPrintable(b->text() + QLatin1String(": ") + b->toolTip()));
            }
            QCOMPARE(verbsShown > 0, verbLists.contains(s));
            checkActions(); // a job chosen enables nothing either
            if (QTest::currentTestFailed())
                return;
        }

        // Nothing was written.
        QCOMPARE(contents(*redis), planted);
    }
};

QTEST_MAIN(tst_UnknownLayoutGui)
#include "tst_unknownlayoutgui.moc"
