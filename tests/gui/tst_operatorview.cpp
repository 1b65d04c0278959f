// SPDX-License-Identifier: MIT
// What the window says is true at every moment of an operator's first hour:
// firing alerts on the Overview, a scan in progress, an outage's countdown
// and the times it cannot know, the job list's count on its tab, an age that
// counts from when the console began watching, other keys that belong to a
// shown queue, and an action with no job chosen. Real widgets on a real
// server, offscreen.
#include "testconsole.h"

#include <actioninputdialog.h>
#include <alerts/alertengine.h>
#include <connectionwords.h>
#include <monitor/discovery.h>
#include <monitor/jobbrowser.h>
#include <overviewpage.h>
#include <patterns/patternregistry.h>
#include <patterns/presentation.h>
#include <queuejobspanel.h>
#include <sectionpage.h>

#include <QComboBox>
#include <QDateTime>
#include <QJsonObject>
#include <QLabel>
#include <QListWidget>
#include <QProgressBar>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTabBar>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTimer>

using namespace gatehouse;
using gatehouse::test::call;
using gatehouse::test::RedisServer;
using gatehouse::test::TestConsole;
using gatehouse::test::TestConsoleOptions;

class tst_OperatorView : public QObject
{
    Q_OBJECT

    QString stateText(const TestConsole &c) const
    {
        const auto labels = c.window->statusBar()->findChildren<QLabel *>();
        return labels.isEmpty() ? QString() : labels.first()->text();
    }

private:
    // The registered unit of kind, and its action of that id.
    // An object of unit's pattern at key "q", as a form is opened on it.
    static ObjectState objectOf(const PatternUnit &unit)
    {
        ObjectState state;
        state.object.edit().kind = unit.kind();
        state.object.edit().key = "q";
        return state;
    }
    static PatternAction actionOf(const PatternUnit &unit, const QString &id)
    {
        for (const PatternAction &a : unit.actions())
            if (a.id == id)
                return a;
        return {};
    }

private slots:
    void cleanupTestCase() { QCOMPARE(RedisServer::runningChildren(), 0); }

    // The Overview says how many alerts fire and the worst; its link opens
    // the Alerts page.
    void overviewMentionsFiringAlerts()
    {
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        {
            auto client = gatehouse::test::connectedClient(server);
            QVERIFY(client);
            call(*client, {"SET", "sim:lock:a", "holder-1", "PX", "600000"});
        }
        QTemporaryDir dir;
        QString error;
        const std::optional<AlertRule> rule = AlertRule::parseExpression(
            QStringLiteral("pttlMs > 0 on lock severity critical"), &error);
        QVERIFY2(rule, qPrintable(error));
        TestConsoleOptions o;
        o.alerts = QList<AlertRule>{*rule};
        TestConsole c(server, dir.filePath(QStringLiteral("audit.jsonl")), o);
        c.window->setAlerts(Profile());
        auto *overview = qobject_cast<OverviewPage *>(c.window->page(0));
        QVERIFY(overview);
        QLabel *firing = overview->firingLabel();
        QTRY_VERIFY_WITH_TIMEOUT(firing->isVisible(), 10000);
        QVERIFY2(firing->text().contains(QLatin1String("1 alert firing")),
                 qPrintable(firing->text()));
        QVERIFY2(firing->text().contains(QLatin1String("critical")), qPrintable(firing->text()));
        QVERIFY2(firing->text().contains(QLatin1String("sim:lock:a")), qPrintable(firing->text()));
        Q_EMIT firing->linkActivated(QStringLiteral("alerts"));
        QCOMPARE(c.window->currentPage(), c.window->pageNames().indexOf(QStringLiteral("Alerts")));
    }

    // A scan says how far it is in the status bar while it runs.
    void scanProgressInStatusBar()
    {
        QCOMPARE(ConnectionWords::scanning(12000, 90000),
                 QStringLiteral("Scanning 12,000 of ~90,000 keys"));
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        {
            auto client = gatehouse::test::connectedClient(server);
            QVERIFY(client);
            for (int i = 0; i < 200; ++i) {
                QList<QByteArray> mset{"MSET"};
                for (int k = 0; k < 100; ++k)
                    mset << "page:" + QByteArray::number(i * 100 + k) << "x";
                call(*client, mset);
            }
        }
        QTemporaryDir dir;
        TestConsole c(server, dir.filePath(QStringLiteral("audit.jsonl")));
        auto *bar = c.window->findChild<QProgressBar *>(QStringLiteral("discoveryProgress"));
        QVERIFY(bar);
        QString seen;
        QTRY_VERIFY_WITH_TIMEOUT((bar->isVisible() ? (seen = bar->text()) : seen).size() > 0,
                                 10000);
        QVERIFY2(seen.startsWith(QLatin1String("Scanning ")), qPrintable(seen));
        QVERIFY2(seen.endsWith(QLatin1String(" of ~20,000 keys")), qPrintable(seen));
        QTRY_VERIFY_WITH_TIMEOUT(!bar->isVisible(), 30000);
    }

    // During an outage the countdown moves, times show as unknown and the
    // side list's badges are neutral, not totals of problems.
    void outageCountsDownAndKnowsWhatItCannotKnow()
    {
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        {
            auto client = gatehouse::test::connectedClient(server);
            QVERIFY(client);
            for (int i = 0; i < 4; ++i)
                call(*client,
                     {"SET", "sim:lock:" + QByteArray::number(i), "holder", "PX", "600000"});
        }
        QTemporaryDir dir;
        TestConsole c(server, dir.filePath(QStringLiteral("audit.jsonl")));
        QVERIFY(QTest::qWaitForWindowExposed(c.window.get()));
        c.window->showPage(c.window->pageOf(QStringLiteral("lock")));
        // The table as shown (sorted, filtered): what the operator reads.
        QAbstractItemModel *model = c.window->table(QStringLiteral("lock"))->model();
        QVERIFY(model);
        QTRY_COMPARE_WITH_TIMEOUT(model->rowCount(), 4, 10000);
        int timeColumn = -1;
        for (int col = 0; col < model->columnCount() && timeColumn < 0; ++col) {
            const QString h = model->headerData(col, Qt::Horizontal).toString();
            if (h.contains(QLatin1String("TTL")) || h.contains(QLatin1String("Held")))
                timeColumn = col;
        }
        QVERIFY(timeColumn >= 0);
        QTRY_VERIFY(model->index(0, timeColumn).data().toString() != QStringLiteral("–"));

        server.kill();
        QTRY_VERIFY_WITH_TIMEOUT(stateText(c).contains(QLatin1String("next attempt in")), 10000);
        // Counts down: the text changes within a few seconds, never stands still.
        const QString first = stateText(c);
        QTRY_VERIFY_WITH_TIMEOUT(
            stateText(c) != first && stateText(c).contains(QLatin1String("next attempt in")), 4000);
        // Times that moved with the server's clock are unknown now.
        QTRY_COMPARE(model->index(0, timeColumn).data().toString(), QStringLiteral("–"));
        QCOMPARE(model->index(0, timeColumn).data(Qt::ToolTipRole).toString(),
                 QStringLiteral("unknown while disconnected"));
        // The side list: the lock page's entry has a neutral badge and says why.
        auto *side = c.window->findChild<QListWidget *>(QStringLiteral("sideList"));
        QVERIFY(side);
        const int lockRow = c.window->pageOf(QStringLiteral("lock"));
        QVERIFY2(
            side->item(lockRow)->toolTip().contains(QLatin1String("unknown while disconnected")),
            qPrintable(side->item(lockRow)->toolTip()));
        // Back (a server without persistence: the locks are gone, their
        // TTL "–" as gone), the times are readings again.
        QVERIFY(server.start());
        QTRY_COMPARE_WITH_TIMEOUT(stateText(c), QStringLiteral("Connected"), 5000);
        QTRY_VERIFY(model->index(0, timeColumn).data(Qt::ToolTipRole).toString()
                    != QStringLiteral("unknown while disconnected"));
        QVERIFY(!side->item(lockRow)->toolTip().contains(QLatin1String("while disconnected")));
    }

    // An age counted from the console's first sight says so, in the table
    // and the JSON; one counted from a recorded time does not.
    void ageSinceWatchingBegan()
    {
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        {
            auto client = gatehouse::test::connectedClient(server);
            QVERIFY(client);
            call(*client, {"RPUSH", "sim:legacyq:mail", "job-1", "job-2"});
            call(*client, {"RPUSH", "sim:legacyq:mail:processing", "job-0"});
        }
        QTemporaryDir dir;
        TestConsole c(server, dir.filePath(QStringLiteral("audit.jsonl")));
        c.window->showPage(c.window->pageOf(QStringLiteral("queue")));
        ObjectTableModel *model = c.window->model(QStringLiteral("queue"));
        QVERIFY(model);
        QTRY_VERIFY_WITH_TIMEOUT(model->rowOf("sim:legacyq:mail") >= 0, 10000);
        int oldest = -1;
        for (int col = 0; col < model->columnCount(); ++col) {
            if (model->headerData(col, Qt::Horizontal).toString()
                == QLatin1String("Oldest in flight"))
                oldest = col;
        }
        QVERIFY(oldest >= 0);
        const auto cell = [&] {
            return model->index(model->rowOf("sim:legacyq:mail"), oldest).data().toString();
        };
        QTRY_VERIFY_WITH_TIMEOUT(cell().endsWith(QLatin1String(", since watching began")), 10000);
        QVERIFY2(cell().startsWith(QStringLiteral("≥ ")), qPrintable(cell()));
        const ObjectState *s = model->stateAt(model->rowOf("sim:legacyq:mail"));
        QVERIFY(s);
        QVERIFY(s->reading.queue().oldestSinceWatching);
        QJsonObject json;
        PatternUnit::of(s->object->kind).writeJson(*s, s->reading, s->reading.atMs, json);
        QCOMPARE(json.value(QStringLiteral("oldestSinceWatching")).toBool(), true);
        // A job that arrives while the console watches has a known age.
        {
            auto client = gatehouse::test::connectedClient(server);
            call(*client, {"DEL", "sim:legacyq:mail:processing"});
            call(*client, {"RPUSH", "sim:legacyq:mail:processing", "job-3"});
        }
        QTRY_VERIFY_WITH_TIMEOUT(!cell().contains(QLatin1String("since watching")), 10000);
    }

    // Without keyspace events a hand-written queue's throughput is measured
    // from the jobs that left its processing list, not left unknown (which
    // the Overview's chart drew as 0 while jobs finished).
    void throughputWhilePolling()
    {
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        auto client = gatehouse::test::connectedClient(server);
        QVERIFY(client);
        call(*client, {"CONFIG", "SET", "notify-keyspace-events", ""});
        call(*client, {"RPUSH", "sim:legacyq:work", "w"});
        QTemporaryDir dir;
        TestConsole c(server, dir.filePath(QStringLiteral("audit.jsonl")));
        c.window->showPage(c.window->pageOf(QStringLiteral("queue")));
        ObjectTableModel *model = c.window->model(QStringLiteral("queue"));
        QTRY_VERIFY_WITH_TIMEOUT(model->rowOf("sim:legacyq:work") >= 0, 10000);
        const auto state = [&] {
            return model->stateAt(model->rowOf("sim:legacyq:work"));
        };
        // A worker finishing a job every 200 ms, seen only by reading the list.
        QTimer worker;
        int n = 0;
        connect(&worker, &QTimer::timeout, this, [&] {
            const QByteArray job = "job-" + QByteArray::number(++n);
            call(*client, {"RPUSH", "sim:legacyq:work:processing", job});
            if (n > 1)
                call(*client, {"LREM", "sim:legacyq:work:processing", "1",
                               "job-" + QByteArray::number(n - 1)});
        });
        worker.start(200);
        QTRY_VERIFY_WITH_TIMEOUT(state() && state()->throughputPerS > 0, 25000);
        QVERIFY(!c.window->snapshot()->server.eventsLive);
        const int throughput = [&] {
            for (int col = 0; col < model->columnCount(); ++col)
                if (model->headerData(col, Qt::Horizontal).toString()
                    == QLatin1String("Throughput"))
                    return col;
            return -1;
        }();
        QVERIFY(throughput >= 0);
        const QString text
            = model->index(model->rowOf("sim:legacyq:work"), throughput).data().toString();
        QVERIFY2(text.endsWith(QLatin1String(" /min")), qPrintable(text));
    }

    // Other keys never lists a shown queue's own keys or its job hashes.
    void otherKeysLeaveShownObjectsKeys()
    {
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        auto client = gatehouse::test::connectedClient(server);
        QVERIFY(client);
        // A BullMQ queue with job hashes, and ordinary keys beside it.
        call(*client,
             {"HSET", "bull:mail:meta", "opts.maxLenEvents", "10000", "version", "bullmq:5.0.0"});
        call(*client, {"SET", "bull:mail:id", "12"});
        call(*client, {"XADD", "bull:mail:events", "*", "event", "completed", "jobId", "12"});
        call(*client, {"RPUSH", "bull:mail:wait", "13"});
        call(*client,
             {"HSET", "bull:mail:13", "name", "send", "data", "{}", "timestamp", "1700000000000"});
        for (int i = 1; i <= 12; ++i) {
            const QByteArray id = QByteArray::number(i);
            call(*client, {"HSET", "bull:mail:" + id, "name", "send", "data", "{}", "timestamp",
                           "1700000000000", "finishedOn", "1700000000500"});
            call(*client, {"ZADD", "bull:mail:completed", "1700000000500", id});
        }
        for (int i = 0; i < 30; ++i)
            call(*client, {"SET", "cache:page:" + QByteArray::number(i), "html"});
        Discovery discovery(client.get(), std::nullopt);
        QSignalSpy done(&discovery, &Discovery::finished);
        discovery.start();
        QVERIFY(done.wait(20000));
        bool queueShown = false;
        for (const PatternObject &o : discovery.objects())
            queueShown |= o.key == "bull:mail";
        QVERIFY(queueShown);
        QStringList families;
        for (const OtherFamily &f : discovery.otherFamilies())
            families << QString::fromUtf8(f.family);
        QVERIFY2(families.contains(QStringLiteral("cache:page:{int}")),
                 qPrintable(families.join(u',')));
        for (const QString &f : families)
            QVERIFY2(!f.startsWith(QLatin1String("bull:mail")), qPrintable(families.join(u',')));
    }

    // The job browser's tab and state counts agree with its own list: the
    // list's total wins over a reading that lags behind (a process's busy
    // figure, a count read before the job moved).
    void tabCountsAgreeWithTheList()
    {
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        auto client = gatehouse::test::connectedClient(server);
        QVERIFY(client);
        call(*client,
             {"HSET", "bull:mail:7", "name", "send", "data", "{}", "timestamp", "1700000000000"});
        call(*client, {"LPUSH", "bull:mail:active", "7"});
        const PatternUnit *unit = nullptr;
        for (const PatternUnit *u : PatternRegistry::instance().units())
            if (u->kind().id() == QLatin1String("bullmq"))
                unit = u;
        QVERIFY(unit);
        ObjectState state;
        state.object = unit->conventionalObject("bull:mail");
        state.reading.editLibrary().counts
            = {{QStringLiteral("wait"), 0}, {QStringLiteral("active"), 0}};
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        state.reading.atMs = now;
        JobBrowser browser(client.get());
        QueueJobsPanel panel(QStringLiteral("queue"));
        panel.setJobBrowser(&browser);
        panel.resize(900, 500);
        panel.show();
        panel.setObject(&state, now);
        QVERIFY(panel.showState(QStringLiteral("active")));
        auto *tabs = panel.findChild<QTabBar *>();
        auto *states = panel.findChild<QComboBox *>();
        QVERIFY(tabs && states);
        QTRY_COMPARE_WITH_TIMEOUT(tabs->tabText(tabs->currentIndex()),
                                  QStringLiteral("In flight (1)"), 10000);
        QCOMPARE(states->currentText(), QStringLiteral("active (1)"));
        // A newer reading whose count moved is shown until the next listing.
        state.reading.editLibrary().counts
            = {{QStringLiteral("wait"), 0}, {QStringLiteral("active"), 2}};
        panel.setObject(&state, now);
        QCOMPARE(tabs->tabText(tabs->currentIndex()), QStringLiteral("In flight (2)"));
    }

    // A job action with no job chosen says so in the console's words (no
    // CLI flags), for every pattern's action that takes a job.
    void actionWithNoJobChosen_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("action");
        for (const PatternUnit *unit : PatternRegistry::instance().units()) {
            for (const PatternAction &a : unit->actions()) {
                const bool item
                    = std::any_of(a.inputs.cbegin(), a.inputs.cend(), [](const ActionInput &in) {
                          return in.source == ActionInput::Source::Item;
                      });
                if (item && !a.targetIsPrefix)
                    QTest::addRow("%s %s", unit->kind().name(), qPrintable(a.id))
                        << unit->kind().id() << a.id;
            }
        }
    }
    void actionWithNoJobChosen()
    {
        QFETCH(QString, kind);
        QFETCH(QString, action);
        const PatternUnit *unit = PatternRegistry::instance().find(kind);
        QVERIFY(unit);
        const PatternAction chosen = actionOf(*unit, action);
        const ObjectState state = objectOf(*unit);
        ActionInputDialog dialog(*unit, chosen, &state, {}, {});
        const QString why = dialog.problem();
        QVERIFY2(!why.isEmpty(), qPrintable(action));
        QVERIFY2(!why.contains(QLatin1String("--")), qPrintable(why));
        QVERIFY2(why.startsWith(QLatin1String("Choose one in the list first")), qPrintable(why));
    }

    // Every action's form, with nothing typed and with every field typed,
    // says what is missing in the form's words: no CLI flag, no command
    // ("queue trim needs either --maxlen N or --minid ID." names the
    // fields by their labels).
    void formsSpeakTheConsolesWords_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("action");
        QTest::addColumn<bool>("typed");
        for (const PatternUnit *unit : PatternRegistry::instance().units()) {
            for (const PatternAction &a : unit->actions()) {
                QTest::addRow("%s %s, empty", unit->kind().name(), qPrintable(a.id))
                    << unit->kind().id() << a.id << false;
                QTest::addRow("%s %s, typed", unit->kind().name(), qPrintable(a.id))
                    << unit->kind().id() << a.id << true;
            }
        }
    }
    void formsSpeakTheConsolesWords()
    {
        QFETCH(QString, kind);
        QFETCH(QString, action);
        QFETCH(bool, typed);
        const PatternUnit *unit = PatternRegistry::instance().find(kind);
        QVERIFY(unit);
        const PatternAction chosen = actionOf(*unit, action);
        const ObjectState state = objectOf(*unit);
        ActionInputDialog dialog(*unit, chosen, &state, {}, {});
        if (typed) {
            QHash<QString, QByteArray> all;
            for (const ActionInput &in : chosen.inputs)
                all.insert(in.id, "1");
            dialog.setTyped(all);
        }
        const QString why = dialog.problem();
        QVERIFY2(!why.contains(QLatin1String("--")), qPrintable(why));
        QVERIFY2(!why.contains(QRegularExpression(QStringLiteral("^[a-z]+ [a-z-]+ needs "))),
                 qPrintable(why));
    }
    // The display name hook: the key by default, used by the key column;
    // a Sidekiq deployment is named for what it is, not by its `queues` key.
    void displayNameDefaultsToKey()
    {
        for (const PatternUnit *unit : PatternRegistry::instance().units()) {
            PatternObject o;
            o.kind = unit->kind();
            o.key = "app:thing";
            if (unit->kind().id() == QLatin1String("sidekiq")) {
                o.key = "queues";
                QCOMPARE(unit->displayName(o), QStringLiteral("Sidekiq"));
                o.key = "myapp:queues";
                QCOMPARE(unit->displayName(o), QStringLiteral("Sidekiq myapp"));
                continue;
            }
            if (unit->kind().id() == QLatin1String("resque")) {
                QCOMPARE(unit->displayName(o), QStringLiteral("app:thing"));
                o.key = "resque:queues";
                QCOMPARE(unit->displayName(o), QStringLiteral("Resque resque"));
                continue;
            }
            QCOMPARE(unit->displayName(o), QStringLiteral("app:thing"));
        }
    }
};

QTEST_MAIN(tst_OperatorView)
#include "tst_operatorview.moc"
