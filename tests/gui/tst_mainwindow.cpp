// SPDX-License-Identifier: MIT
// The console window against a real redis-server, offscreen: it follows the
// connection, shows what the monitor finds, runs every kind of action through
// its confirmation (accept and cancel), and disables actions when read-only.
#include <actioninputdialog.h>
#include <actions/actionengine.h>
#include <chartpanel.h>
#include <connectiondialog.h>
#include <mainwindow.h>
#include <monitor/monitor.h>
#include <monitor/profile.h>
#include <objecttablemodel.h>
#include <overviewpage.h>
#include <patterns/lock/lockdata.h>
#include <patterns/patternregistry.h>
#include <redis/redisclient.h>
#include <sectionpage.h>
#include <sim/demoserver.h>
#include <sim/simulator.h>

#include <qcustomplot.h>

#include "redisserver.h"
#include "tcpproxy.h"
#include "testconsole.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QStatusBar>
#include <redis/redisscript.h>

#include <QGraphicsEffect>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <csignal>
#include <sys/types.h>

using namespace gatehouse;
using gatehouse::test::call;
using gatehouse::test::RedisServer;

namespace {

// Answers the next modal dialogs once they are up: an action's inputs
// (ActionInputDialog, its fields by input id, "target" for the key), then
// the confirmation (Run or Cancel). The timer goes with the confirmation;
// owner: whoever waits for the outcome (so it never outlives a test).
void answerNextDialog(bool accept, const QHash<QString, QString> &inputs = {},
                      QObject *owner = nullptr)
{
    auto *timer = new QTimer(owner);
    timer->setInterval(10);
    QObject::connect(timer, &QTimer::timeout, timer, [timer, accept, inputs] {
        QWidget *modal = QApplication::activeModalWidget();
        if (auto *form = qobject_cast<ActionInputDialog *>(modal)) {
            for (auto it = inputs.cbegin(); it != inputs.cend(); ++it) {
                if (auto *edit = form->findChild<QLineEdit *>(QStringLiteral("input_") + it.key()))
                    edit->setText(it.value());
            }
            form->accept();
            return;
        }
        auto *box = qobject_cast<QMessageBox *>(modal);
        if (!box)
            return;
        timer->stop();
        timer->deleteLater();
        box->button(accept ? QMessageBox::Ok : QMessageBox::Cancel)->click();
    });
    timer->start();
}

struct Console : gatehouse::test::TestConsole
{
    Console(const RedisServer &server, bool readOnly, const QString &auditPath)
        : Console(server.endpoint(), readOnly, auditPath)
    {}
    Console(const RedisEndpoint &endpoint, bool readOnly, const QString &auditPath)
        : TestConsole(endpoint, auditPath, [&] {
            Options o;
            o.readOnly = readOnly;
            return o;
        }())
    {}
    Console(const RedisServer &server, const QString &auditPath, const Options &o)
        : TestConsole(server.endpoint(), auditPath, o)
    {}
};

// The console app/gui/main.cpp starts on a connection (startConsole) as
// DemoServer::consoleFor decides it: on the demo's server the simulator
// writes through the monitor's client and the window wears the DEMO badge;
// the monitor reads with the profile decided (none: autodetect).
struct DemoConsole
{
    DemoConsole(const RedisEndpoint &endpoint, const DemoServer::Console &plan,
                const QString &auditPath)
        : client(endpoint)
    {
        Monitor::Options options;
        QString error;
        if (!plan.profile.isEmpty())
            options.profile = Profile::load(plan.profile, &error);
        options.intervalMs = 200;
        monitor = std::make_unique<Monitor>(&client, options);
        actions = std::make_unique<ActionEngine>(&client);
        actions->setAuditLogPath(auditPath);
        MainWindow::Options windowOptions;
        windowOptions.demo = plan.demo;
        window = std::make_unique<MainWindow>(&client, monitor.get(), actions.get(), windowOptions);
        if (plan.demo)
            simulator = std::make_unique<Simulator>(&client, Simulator::Options());
        window->show();
        client.open();
        monitor->start();
        if (simulator)
            simulator->start();
    }
    ~DemoConsole() { monitor->stop(); }

    RedisClient client;
    std::unique_ptr<Monitor> monitor;
    std::unique_ptr<ActionEngine> actions;
    std::unique_ptr<MainWindow> window;
    std::unique_ptr<Simulator> simulator; // first to go, before the client it writes through
};

} // namespace

class tst_MainWindow : public QObject
{
    Q_OBJECT

private:
    RedisServer m_server;
    std::unique_ptr<RedisClient> m_client;
    QTemporaryDir m_dir;

    QString audit() const { return m_dir.filePath(QStringLiteral("audit.jsonl")); }

    // Selects the row of key in a section's table; false if it never shows up.
    bool select(Console &c, const char *section, const QByteArray &key)
    {
        const QString s = QLatin1String(section);
        // The row must have been read: an action acts on what the operator saw.
        if (!QTest::qWaitFor(
                [&] {
                    const int row = c.window->model(s)->rowOf(key);
                    return row >= 0 && c.window->model(s)->stateAt(row)->reading.atMs > 0;
                },
                5000))
            return false;
        // Where an operator would be: on the section's page.
        c.window->showPage(c.window->pageOf(s));
        QTableView *view = c.window->table(s);
        for (int row = 0; row < view->model()->rowCount(); ++row) {
            if (view->model()->index(row, 0).data(ObjectTableModel::KeyRole).toByteArray() == key) {
                view->selectRow(row);
                return true;
            }
        }
        return false;
    }

    // An action button, once the console may act (connected; actions are
    // disabled until then).
    QPushButton *button(Console &c, const char *name)
    {
        auto *b = c.window->findChild<QPushButton *>(QLatin1String(name));
        if (b)
            (void)QTest::qWaitFor([&] { return b->isEnabled(); }, 5000); // the caller checks
        return b;
    }

    // Clicks an action button, fills in its inputs, answers its
    // confirmation, waits for the outcome.
    QString runAction(Console &c, const char *buttonName, bool accept,
                      const QHash<QString, QString> &inputs = {})
    {
        QString outcome;
        QMetaObject::Connection conn = connect(c.window.get(), &MainWindow::actionFinished, this,
                                               [&](const QString &m) { outcome = m; });
        QObject owner; // no answering timer outlives this action
        answerNextDialog(accept, inputs, &owner);
        button(c, buttonName)->click();
        (void)QTest::qWaitFor([&] { return !outcome.isEmpty(); }, 5000);
        disconnect(conn);
        return outcome;
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(m_server.start(), qPrintable(m_server.errorString()));
        m_client = gatehouse::test::connectedClient(m_server);
        QVERIFY(m_client);
    }

    void init() { call(*m_client, {"FLUSHALL"}); }

    void cleanupTestCase()
    {
        m_client.reset();
        m_server.stop();
        QCOMPARE(RedisServer::runningChildren(), 0);
    }

    // The window follows the connection without ever waiting on it.
    void showsConnectionState()
    {
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        Console c(server, false, audit());
        QVERIFY(QTest::qWaitForWindowExposed(c.window.get()));
        QVERIFY(c.window->windowTitle().contains(server.endpoint().address()));
        auto labels = c.window->statusBar()->findChildren<QLabel *>();
        auto stateText = [&] {
            return labels.isEmpty() ? QString() : labels.first()->text();
        };
        QTRY_COMPARE(stateText(), QStringLiteral("Connected"));
        server.kill();
        // Reconnecting, with a countdown to the next attempt.
        QTRY_VERIFY2(stateText().startsWith(QStringLiteral("Reconnecting…")),
                     qPrintable(stateText()));
        QTRY_VERIFY2(stateText().contains(QLatin1String("next attempt in")),
                     qPrintable(stateText()));
        QVERIFY(server.start());
        QTRY_COMPARE_WITH_TIMEOUT(stateText(), QStringLiteral("Connected"), 3000);
    }

    // After a reconnect the status bar shows the current state only: the last
    // attempt's "Cannot connect … Next attempt in" sentence is gone.
    // File > Pause refresh: nothing is read (a write by another client stays
    // unseen), the status bar says so; turned off, the write shows.
    void pauseRefreshReadsNothing()
    {
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        auto other = gatehouse::test::connectedClient(server);
        QVERIFY(other);
        call(*other, {"SET", "sim:lock:1", "first0token1", "PX", "600000"});
        Console c(server, false, audit());
        QVERIFY(select(c, "lock", "sim:lock:1"));
        const auto token = [&] {
            ObjectTableModel *model = c.window->model(QStringLiteral("lock"));
            const int row = model->rowOf("sim:lock:1");
            return row < 0 ? QByteArray() : LockData::of(model->stateAt(row)->reading).token;
        };
        QCOMPARE(token(), QByteArray("first0token1"));
        auto *pause = c.window->findChild<QAction *>(QStringLiteral("pauseRefresh"));
        auto *events = c.window->findChild<QLabel *>(QStringLiteral("eventsLabel"));
        QVERIFY(pause && pause->isCheckable() && events);
        pause->trigger();
        QTRY_COMPARE(events->text(), QStringLiteral("refresh paused"));
        call(*other, {"SET", "sim:lock:1", "second1token2", "PX", "600000"});
        QTest::qWait(1500); // events and ticks would have read it in a few ms
        QCOMPARE(token(), QByteArray("first0token1"));
        pause->trigger();
        QTRY_COMPARE(token(), QByteArray("second1token2"));
        QTRY_VERIFY(events->text() != QLatin1String("refresh paused"));
    }

    void statusBarShowsOnlyCurrentState()
    {
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        Console c(server, false, audit());
        QVERIFY(QTest::qWaitForWindowExposed(c.window.get()));
        auto labels = c.window->statusBar()->findChildren<QLabel *>();
        auto stateText = [&] {
            return labels.isEmpty() ? QString() : labels.first()->text();
        };
        QTRY_COMPARE(stateText(), QStringLiteral("Connected"));
        server.kill();
        // The sentence, without a count to the next attempt that would stand
        // still (the state label counts down instead).
        QTRY_VERIFY(!c.window->statusBar()->currentMessage().isEmpty());
        QVERIFY2(
            !c.window->statusBar()->currentMessage().contains(QLatin1String("Next attempt in")),
            qPrintable(c.window->statusBar()->currentMessage()));
        QVERIFY(server.start());
        QTRY_COMPARE_WITH_TIMEOUT(stateText(), QStringLiteral("Connected"), 3000);
        QCOMPARE(c.window->statusBar()->currentMessage(), QString());
        // No outage banner; the restart's own notice (a new run_id) may stand.
        QVERIFY2(c.window->bannerText().isEmpty()
                     || c.window->bannerText().contains(QLatin1String("Server restarted")),
                 qPrintable(c.window->bannerText()));
    }

    // The notes line is HTML with line breaks, never a literal "<br>".
    void notesWithoutLiteralBreaks()
    {
        // A user without INFO and CONFIG: two notes, so a line break between them.
        RedisServer server([] {
            RedisServer::Options o;
            o.config << QStringLiteral("user watcher on >pw ~* &* +@all -info -config");
            return o;
        }());
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        RedisEndpoint endpoint = server.endpoint();
        endpoint.user = QStringLiteral("watcher");
        endpoint.password = QStringLiteral("pw");
        Console c(endpoint, false, audit());
        QVERIFY(QTest::qWaitForWindowExposed(c.window.get()));
        QLabel *counts = nullptr;
        QTRY_VERIFY([&] {
            for (QLabel *l : c.window->findChildren<QLabel *>()) {
                if (l->text().contains(QLatin1String("CONFIG is not permitted")))
                    counts = l;
            }
            return counts != nullptr;
        }());
        QVERIFY2(counts->text().contains(QLatin1String("INFO is not permitted")),
                 qPrintable(counts->text()));
        QVERIFY2(counts->text().contains(QLatin1String("<br>")), qPrintable(counts->text()));
        const QString text = counts->text();
        QVERIFY2(!text.contains(QLatin1String("&lt;br&gt;")), qPrintable(text));
    }

    // A pattern with no page of its own (the sorted-set semaphore): the
    // registry's page shows its holders and releases the one chosen, only
    // with the acquire time shown.
    void semaphoreReleaseFromItsPage()
    {
        const RedisScript acquire = RedisScript::fromResource(QStringLiteral("semaphore_acquire"));
        for (const QByteArray holder : {"worker-a", "worker-b"})
            call(*m_client, {"EVAL", acquire.source(), "1", "sim:sem:pool", holder, "5", "60000"});
        // An audit log of its own: later tests count the entries of audit().
        Console c(m_server, false, m_dir.filePath(QStringLiteral("semaphore.jsonl")));
        QVERIFY(c.window->pageNames().contains(QStringLiteral("Semaphores")));
        QVERIFY(select(c, "semaphore", "sim:sem:pool"));
        ObjectTableModel *model = c.window->model(QStringLiteral("semaphore"));
        QCOMPARE(model->index(model->rowOf("sim:sem:pool"), 1).data().toString(),
                 QStringLiteral("2 / 5"));
        auto *items = c.window->findChild<QTableWidget *>(QStringLiteral("semaphoreItems"));
        QVERIFY(items);
        QTRY_COMPARE(items->rowCount(), 2);
        int row = -1;
        for (int r = 0; r < items->rowCount(); ++r) {
            if (items->item(r, 0)->text() == QLatin1String("worker-b"))
                row = r;
        }
        QVERIFY(row >= 0);
        items->selectRow(row);
        const QString outcome = runAction(c, "releaseHolderButton", true);
        QVERIFY2(outcome.contains(QLatin1String("Released holder \"worker-b\"")),
                 qPrintable(outcome));
        QVERIFY(call(*m_client, {"ZSCORE", "sim:sem:pool", "worker-b"}).isNil());
        QVERIFY(!call(*m_client, {"ZSCORE", "sim:sem:pool", "worker-a"}).isNil());
        // Nothing chosen: nothing sent, a sentence says why.
        items->clearSelection();
        QSignalSpy finished(c.window.get(), &MainWindow::actionFinished);
        button(c, "releaseHolderButton")->click(); // no dialog comes up
        QTRY_COMPARE(finished.size(), 1);
        const QString none = finished.first().first().toString();
        QVERIFY2(none.contains(QLatin1String("Choose one")), qPrintable(none));
        QVERIFY(!call(*m_client, {"ZSCORE", "sim:sem:pool", "worker-a"}).isNil());
    }

    // A stopped server: rows greyed, "stale since" in the tooltip; back when it runs.
    void staleRowsGreyed()
    {
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        auto admin = gatehouse::test::connectedClient(server);
        QVERIFY(admin);
        call(*admin, {"RPUSH", "sim:jobs:stale", "a"});
        call(*admin, {"RPUSH", "sim:jobs:stale:processing", "b"});
        Console c(server, false, audit());
        QVERIFY(select(c, "queue", "sim:jobs:stale"));
        ObjectTableModel *model = c.window->model(QStringLiteral("queue"));
        const auto cell = [&] {
            return model->index(model->rowOf("sim:jobs:stale"), 0);
        };
        // Fresh once its readings arrive (late on a loaded machine).
        QTRY_VERIFY_WITH_TIMEOUT(!cell().data(ObjectTableModel::StaleRole).toBool(), 5000);
        const pid_t pid = pid_t(server.pid());
        ::kill(pid, SIGSTOP);
        const bool stale = QTest::qWaitFor(
            [&] { return cell().data(ObjectTableModel::StaleRole).toBool(); }, 3000);
        const QString tip = cell().data(Qt::ToolTipRole).toString();
        const QVariant fg = cell().data(Qt::ForegroundRole);
        ::kill(pid, SIGCONT);
        QVERIFY(stale);
        QVERIFY2(tip.startsWith(QLatin1String("stale since ")), qPrintable(tip));
        QVERIFY(fg.isValid());
        QTRY_VERIFY_WITH_TIMEOUT(!cell().data(ObjectTableModel::StaleRole).toBool(), 3000);
        admin.reset();
    }

    // Authentication failures: a banner with what to try, not "Failed" over zeros.
    void authFailureShowsBanner_data()
    {
        QTest::addColumn<QString>("password");
        QTest::newRow("no password (NOAUTH)") << QString();
        QTest::newRow("wrong password (WRONGPASS)") << QStringLiteral("wrong");
    }
    void authFailureShowsBanner()
    {
        QFETCH(QString, password);
        RedisServer server([] {
            RedisServer::Options o;
            o.config << QStringLiteral("requirepass s3cret");
            return o;
        }());
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        RedisEndpoint endpoint = server.endpoint();
        endpoint.password = password;
        Console c(endpoint, false, audit());
        QVERIFY(QTest::qWaitForWindowExposed(c.window.get()));
        QTRY_VERIFY(!c.window->bannerText().isEmpty());
        QVERIFY2(c.window->bannerText().contains(QLatin1String("password")),
                 qPrintable(c.window->bannerText()));
        auto labels = c.window->statusBar()->findChildren<QLabel *>();
        QCOMPARE(labels.first()->text(), QStringLiteral("Authentication failed"));
        // The overview says there is no reading, not "0 limiters · 0 locks ...".
        const auto overviewSays = [&](const QString &what) {
            for (QLabel *l : c.window->findChildren<QLabel *>()) {
                if (l->text().contains(what))
                    return true;
            }
            return false;
        };
        QTRY_VERIFY(overviewSays(QStringLiteral("No reading yet")));
        QVERIFY(!overviewSays(QStringLiteral("0 limiters")));
    }

    // A TLS failure (certificate signed by another CA): a banner with what to try.
    void tlsFailureShowsBanner()
    {
        RedisServer server([] {
            RedisServer::Options o;
            o.tls = true;
            return o;
        }());
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        RedisEndpoint endpoint = server.endpoint();
        endpoint.caFile = server.otherCaFile();
        Console c(endpoint, false, audit());
        QVERIFY(QTest::qWaitForWindowExposed(c.window.get()));
        QTRY_VERIFY(!c.window->bannerText().isEmpty());
        QVERIFY2(c.window->bannerText().contains(QLatin1String("--cacert")),
                 qPrintable(c.window->bannerText()));
        auto labels = c.window->statusBar()->findChildren<QLabel *>();
        QCOMPARE(labels.first()->text(), QStringLiteral("TLS failed"));
    }

    // An action whose reply is lost with the connection: a banner saying it
    // may or may not have run, which the reconnect right after does not clear.
    void actionReplyLostShowsBanner()
    {
        const QByteArray job = "gh-lost-job"; // only the action's request names it
        const qint64 now = call(*m_client, {"TIME"}).at(0).toInteger() * 1000;
        call(*m_client, {"LPUSH", "sim:jobs:mail:processing", job});
        call(*m_client, {"ZADD", "sim:jobs:mail:claims", QByteArray::number(now - 90000), job});
        gatehouse::test::TcpProxy proxy(m_server.port());
        QVERIFY(proxy.start());
        RedisEndpoint endpoint = m_server.endpoint();
        endpoint.port = proxy.port();
        // An audit log of its own: later tests count the entries of audit().
        Console c(endpoint, false, m_dir.filePath(QStringLiteral("lost.jsonl")));
        QVERIFY(select(c, "queue", "sim:jobs:mail"));
        auto *stuck = c.window->page(4)->findChild<QTableWidget *>();
        QTRY_COMPARE(stuck->rowCount(), 1);
        stuck->selectRow(0);
        QSignalSpy ready(&c.client, &RedisClient::ready);
        proxy.cutOnReplyTo(job, "EVAL_RO"); // the action's reply, not its rights check's
        const QString outcome = runAction(c, "requeueButton", true);
        QVERIFY2(outcome.contains(QLatin1String("may or may not have run")), qPrintable(outcome));
        QVERIFY2(c.window->bannerText().contains(QLatin1String("may or may not have run")),
                 qPrintable(c.window->bannerText()));
        QVERIFY(ready.wait(2000)); // reconnected
        QTRY_COMPARE(c.window->statusBar()->findChildren<QLabel *>().first()->text(),
                     QStringLiteral("Connected"));
        QVERIFY2(c.window->bannerText().contains(QLatin1String("may or may not have run")),
                 qPrintable(c.window->bannerText()));
        QVERIFY2(c.window->statusBar()->currentMessage().contains(
                     QLatin1String("may or may not have run")),
                 qPrintable(c.window->statusBar()->currentMessage()));
        // Exactly once: back in the queue (the script ran) or still in flight.
        qint64 n = 0;
        for (const QByteArray &key :
             {QByteArray("sim:jobs:mail"), QByteArray("sim:jobs:mail:processing")}) {
            const RedisValue items = call(*m_client, {"LRANGE", key, "0", "-1"});
            for (const RedisValue &v : items.elements())
                n += v.bytes() == job ? 1 : 0;
        }
        QCOMPARE(n, qint64(1));
        QPushButton *dismiss = nullptr; // unnamed: named buttons are the actions
        for (QPushButton *b : c.window->findChildren<QPushButton *>()) {
            if (b->text() == QLatin1String("Dismiss"))
                dismiss = b;
        }
        QVERIFY(dismiss && dismiss->isVisible());
        dismiss->click();
        QCOMPARE(c.window->bannerText(), QString());
    }

    void readOnlyDisablesEveryAction()
    {
        call(*m_client, {"SET", "sim:lock:1", "a1b2c3d4e5f6", "PX", "60000"});
        Console c(m_server, true, audit());
        const QList<QPushButton *> buttons = c.window->findChildren<QPushButton *>();
        int actions = 0;
        for (QPushButton *b : buttons) {
            if (!b->property("patternAction").isValid())
                continue; // export, the job list's paging and the like
            QVERIFY(!b->objectName().isEmpty());
            ++actions;
            QVERIFY2(!b->isEnabled(), qPrintable(b->objectName()));
            QVERIFY(b->toolTip().contains(QLatin1String("Read-only")));
        }
        // Every action the registry's patterns offer the console, once per section.
        int offered = 0;
        for (const Section &section : PatternRegistry::instance().sections()) {
            QStringList ids;
            for (const PatternUnit *unit : PatternRegistry::instance().unitsIn(section.id)) {
                for (const PatternAction &a : unit->actions()) {
                    if (!ids.contains(a.id))
                        ids << a.id;
                }
            }
            offered += int(ids.size());
        }
        // And the Tokens page's "Revoke selected…" on the token list (the
        // same revoke action, on a selection).
        QCOMPARE(actions, offered + 1);
        // Each library adds its verbs; the core ones are there whatever is registered.
        QVERIFY(offered >= 25);
        QVERIFY(c.window->statusBar()->findChildren<QLabel *>().last()->text().contains(
            QLatin1String("READ-ONLY")));
    }

    void forceReleaseCancelThenAccept()
    {
        call(*m_client, {"SET", "sim:lock:1", "a1b2c3d4e5f6", "PX", "60000"});
        Console c(m_server, false, audit());
        QVERIFY(select(c, "lock", "sim:lock:1"));
        QCOMPARE(runAction(c, "forceReleaseButton", false),
                 QStringLiteral("Cancelled: nothing was sent."));
        QCOMPARE(call(*m_client, {"EXISTS", "sim:lock:1"}).toInteger(), 1);
        QVERIFY(runAction(c, "forceReleaseButton", true).startsWith(QLatin1String("Released")));
        QCOMPARE(call(*m_client, {"EXISTS", "sim:lock:1"}).toInteger(), 0);
        // The audit page shows it.
        auto *auditTable
            = c.window->page(int(c.window->pageNames().indexOf(QStringLiteral("Audit log"))))
                  ->findChild<QTableWidget *>();
        QCOMPARE(ActionEngine::readAudit(audit()).size(), 1);
        QTRY_VERIFY2(auditTable->rowCount() > 0, qPrintable(audit()));
        QCOMPARE(auditTable->item(0, 2)->text(), QStringLiteral("lock.force-release"));
    }

    void forceReleaseNeverDeletesAForeignLock()
    {
        call(*m_client, {"SET", "sim:lock:1", "a1b2c3d4e5f6", "PX", "60000"});
        Console c(m_server, false, audit());
        QVERIFY(select(c, "lock", "sim:lock:1"));
        // Taken by someone else after the operator saw it: shown token is stale.
        call(*m_client, {"SET", "sim:lock:1", "zz9988776655", "PX", "60000"});
        QVERIFY(runAction(c, "forceReleaseButton", true).contains(QLatin1String("zz9988776655")));
        QCOMPARE(call(*m_client, {"GET", "sim:lock:1"}).bytes(), QByteArray("zz9988776655"));
    }

    // Cancelling any action's confirmation sends nothing.
    void everyActionCancels_data()
    {
        QTest::addColumn<QString>("section");
        QTest::addColumn<QByteArray>("key");
        QTest::addColumn<QString>("button");
        QTest::newRow("reset limiter")
            << "limiter" << QByteArray("sim:rl:api:1") << "resetLimiterButton";
        QTest::newRow("clear retry slots")
            << "limiter" << QByteArray("sim:rl:api:1") << "clearRetryButton";
        QTest::newRow("force release")
            << "lock" << QByteArray("sim:lock:1") << "forceReleaseButton";
        QTest::newRow("extend") << "lock" << QByteArray("sim:lock:1") << "extendButton";
        QTest::newRow("requeue job") << "queue" << QByteArray("sim:jobs:mail") << "requeueButton";
        QTest::newRow("requeue stuck")
            << "queue" << QByteArray("sim:jobs:mail") << "requeueStuckButton";
        QTest::newRow("dead-letter")
            << "queue" << QByteArray("sim:jobs:mail") << "deadLetterButton";
        QTest::newRow("revoke") << "token" << QByteArray("sim:code:") << "revokeTokenButton";
    }

    void everyActionCancels()
    {
        QFETCH(QString, section);
        QFETCH(QByteArray, key);
        QFETCH(QString, button);
        const qint64 now = call(*m_client, {"TIME"}).at(0).toInteger() * 1000;
        call(*m_client, {"ZADD", "sim:rl:api:1", QByteArray::number(now), "a"});
        call(*m_client, {"ZADD", "sim:rl:api:1:retry", QByteArray::number(now + 5000), "r"});
        call(*m_client, {"SET", "sim:lock:1", "a1b2c3d4e5f6", "PX", "60000"});
        call(*m_client, {"LPUSH", "sim:jobs:mail:processing", "j1"});
        call(*m_client, {"ZADD", "sim:jobs:mail:claims", QByteArray::number(now - 90000), "j1"});
        call(*m_client, {"SET", "sim:code:x1y2z3w4v5", "{}", "EX", "60"});
        auto state = [&] {
            QStringList out;
            for (const char *k :
                 {"sim:rl:api:1", "sim:rl:api:1:retry", "sim:lock:1", "sim:jobs:mail",
                  "sim:jobs:mail:processing", "sim:jobs:mail:dead", "sim:code:x1y2z3w4v5"})
                out << call(*m_client, {"DUMP", k}).toDebugString();
            out << QString::number(call(*m_client, {"PTTL", "sim:lock:1"}).toInteger() > 50000);
            return out;
        };
        const QStringList before = state();
        Console c(m_server, false, audit());
        QVERIFY(select(c, section.toLatin1().constData(), key));
        if (section == QLatin1String("queue")) {
            auto *stuck = c.window->page(4)->findChild<QTableWidget *>();
            QTRY_COMPARE(stuck->rowCount(), 1);
            stuck->selectRow(0);
        }
        // Inputs typed where the action asks for them (then Cancel at the
        // confirmation): the token's key, the new TTL.
        const QHash<QString, QString> inputs{
            {QStringLiteral("target"), QStringLiteral("sim:code:x1y2z3w4v5")},
            {QStringLiteral("ttl"), QStringLiteral("30000")}};
        QCOMPARE(runAction(c, button.toLatin1().constData(), false, inputs),
                 QStringLiteral("Cancelled: nothing was sent."));
        QCOMPARE(state(), before);
    }

    // Force release and Extend on a legacy (SETNX) lock or a vanished lock
    // did nothing and said nothing: they are disabled, and say why.
    void lockActionsSayWhyNot()
    {
        const qint64 now = call(*m_client, {"TIME"}).at(0).toInteger();
        call(*m_client, {"SET", "sim:lock.legacy:0", QByteArray::number(now - 600)});
        call(*m_client, {"SET", "sim:lock:9", "c0ffee", "PX", "60000"});
        Console c(m_server, false, audit());
        QVERIFY(select(c, "lock", "sim:lock.legacy:0"));
        for (const char *name : {"forceReleaseButton", "extendButton"}) {
            QPushButton *b = button(c, name);
            QVERIFY(b);
            QVERIFY2(!b->isEnabled() && !b->toolTip().isEmpty(),
                     qPrintable(QStringLiteral("%1 on a legacy lock: enabled %2, \"%3\"")
                                    .arg(QLatin1String(name))
                                    .arg(b->isEnabled())
                                    .arg(b->toolTip())));
        }
        QVERIFY(select(c, "lock", "sim:lock:9"));
        QVERIFY(button(c, "forceReleaseButton")->isEnabled());
        QVERIFY(button(c, "extendButton")->isEnabled());
        call(*m_client, {"DEL", "sim:lock:9"});
        for (const char *name : {"forceReleaseButton", "extendButton"}) {
            QPushButton *b = button(c, name);
            QTRY_VERIFY_WITH_TIMEOUT(!b->isEnabled(), 5000);
            QVERIFY2(b->toolTip().contains(QLatin1String("is gone")), qPrintable(b->toolTip()));
        }
        call(*m_client, {"DEL", "sim:lock.legacy:0"});
    }

    // Switching queues never pre-selects a job: an action then would target
    // one the operator never picked.
    void switchingQueuesSelectsNoJob()
    {
        const qint64 now = call(*m_client, {"TIME"}).at(0).toInteger() * 1000;
        for (const QByteArray &q : {QByteArray("sim:jobs:mail"), QByteArray("sim:jobs:web")}) {
            call(*m_client, {"LPUSH", q + ":processing", q + "-j1", q + "-j2"});
            call(*m_client, {"ZADD", q + ":claims", QByteArray::number(now - 90000), q + "-j1",
                             QByteArray::number(now - 1000), q + "-j2"});
        }
        Console c(m_server, false, audit());
        QVERIFY(select(c, "queue", "sim:jobs:mail"));
        auto *jobs = c.window->sectionPage(QStringLiteral("queue"))->findChild<QTableWidget *>();
        QVERIFY(jobs);
        QTRY_COMPARE_WITH_TIMEOUT(jobs->rowCount(), 2, 5000);
        QVERIFY(jobs->selectionModel()->selectedRows().isEmpty());
        jobs->selectRow(0);
        QVERIFY(select(c, "queue", "sim:jobs:web"));
        QTRY_VERIFY_WITH_TIMEOUT(
            jobs->rowCount() == 2
                && jobs->item(0, 0)->text().startsWith(QLatin1String("sim:jobs:web")),
            5000);
        QVERIFY2(jobs->selectionModel()->selectedRows().isEmpty(),
                 "a job of the new queue was selected by itself");
        for (const QByteArray &q : {QByteArray("sim:jobs:mail"), QByteArray("sim:jobs:web")})
            call(*m_client, {"DEL", q + ":processing", q + ":claims"});
    }

    void extendLock()
    {
        call(*m_client, {"SET", "sim:lock:2", "a1b2c3d4e5f6", "PX", "5000"});
        Console c(m_server, false, audit());
        QVERIFY(select(c, "lock", "sim:lock:2"));
        const QString outcome = runAction(c, "extendButton", true,
                                          {{QStringLiteral("ttl"), QStringLiteral("30000")}});
        QVERIFY2(outcome.startsWith(QLatin1String("Extended")), qPrintable(outcome));
        QVERIFY(call(*m_client, {"PTTL", "sim:lock:2"}).toInteger() > 20000);
    }

    // A page not on screen is brought up to date when it is opened: its table
    // shows the latest snapshot at once, without waiting for another tick.
    void hiddenPageCurrentWhenOpened()
    {
        call(*m_client, {"SET", "sim:lock:5", "first0token5", "PX", "60000"});
        Console c(m_server, false, audit());
        QVERIFY(select(c, "lock", "sim:lock:5"));
        c.window->showPage(1); // limiters on screen
        call(*m_client, {"SET", "sim:lock:5", "second1token5", "PX", "60000"});
        // Wait for the published snapshot (coalesced, <= 10 Hz), not the
        // monitor's state: the window sees only what is published.
        Snapshot published;
        QMetaObject::Connection seen
            = connect(c.monitor.get(), &Monitor::snapshotReady, c.window.get(),
                      [&](const Snapshot &s) { published = s; });
        QVERIFY(QTest::qWaitFor(
            [&] {
                for (const ObjectState &o : published.objects) {
                    if (o.object->key == "sim:lock:5")
                        return LockData::of(o.reading).token == "second1token5";
                }
                return false;
            },
            5000));
        disconnect(seen);
        QCoreApplication::processEvents(); // the window receives that snapshot
        c.monitor->stop();                 // no further snapshot may help
        QCoreApplication::processEvents();
        c.window->showPage(2);
        QTableView *view = c.window->table(QStringLiteral("lock"));
        bool shown = false;
        for (int row = 0; row < view->model()->rowCount(); ++row) {
            if (view->model()->index(row, 0).data(ObjectTableModel::KeyRole).toByteArray()
                == "sim:lock:5") {
                QCOMPARE(view->model()->index(row, 1).data().toString(),
                         QStringLiteral("second1token5"));
                shown = true;
            }
        }
        QVERIFY(shown);
    }

    // Disconnected: a banner says since when the figures are, the table is
    // greyed and every action is disabled with the reason; all of it goes
    // once the connection is back.
    void disconnectedGreysAndDisables()
    {
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        {
            auto planted = gatehouse::test::connectedClient(server);
            QVERIFY(planted);
            const QByteArray now = call(*planted, {"TIME"}).at(0).bytes() + "000";
            call(*planted, {"ZADD", "sim:rl:api:1", now, "a"});
        }
        Console c(server, false, audit());
        QVERIFY(select(c, "limiter", "sim:rl:api:1"));
        QPushButton *reset = button(c, "resetLimiterButton");
        QVERIFY(reset && reset->isEnabled());
        QTableView *table = c.window->table(QStringLiteral("limiter"));
        QVERIFY(!table->graphicsEffect());
        server.kill();
        QTRY_VERIFY2(c.window->bannerText().contains(QLatin1String("showing data from")),
                     qPrintable(c.window->bannerText()));
        QVERIFY(!reset->isEnabled());
        // Why, as the banner says it ("Connection lost: …", or "Connecting: …"
        // once the next attempt has begun).
        QVERIFY2(reset->toolTip().contains(QLatin1String("Actions are disabled until it is back"))
                     && reset->toolTip().contains(QLatin1String("showing data from")),
                 qPrintable(reset->toolTip()));
        QVERIFY(table->graphicsEffect()); // greyed
        QVERIFY(server.start());
        // Back: the banner and the grey go, and no action is disabled for
        // the connection any more. (The restarted server lost the limiter,
        // having no persistence: once re-read it is gone, and Reset says so.)
        QTRY_VERIFY_WITH_TIMEOUT(
            reset->isEnabled() || reset->toolTip().contains(QLatin1String("is gone")), 5000);
        // No outage banner; the restart's own notice (a new run_id) may stand.
        QVERIFY2(c.window->bannerText().isEmpty()
                     || c.window->bannerText().contains(QLatin1String("Server restarted")),
                 qPrintable(c.window->bannerText()));
        QVERIFY(!table->graphicsEffect());
        QVERIFY2(!reset->toolTip().contains(QLatin1String("until it is back")),
                 qPrintable(reset->toolTip()));
    }

    // Filtering never moves the selection to another object: the selected
    // one stays selected while it matches; once it does not, nothing is
    // selected and the actions say why they are disabled.
    void filterNeverMovesSelection()
    {
        const QByteArray now = call(*m_client, {"TIME"}).at(0).bytes() + "000";
        for (const char *key : {"sim:rl:api:0", "sim:rl:api:1", "sim:rl:api:2"})
            call(*m_client, {"ZADD", key, now, "a"});
        Console c(m_server, false, audit());
        QVERIFY(select(c, "limiter", "sim:rl:api:1"));
        SectionPage *page = c.window->sectionPage(QStringLiteral("limiter"));
        auto *filter = page->findChild<QLineEdit *>(QStringLiteral("limiterFilter"));
        QVERIFY(filter);
        QPushButton *reset = button(c, "resetLimiterButton");
        QVERIFY(reset->isEnabled());
        const auto selectedKey = [&] {
            const QModelIndexList rows
                = c.window->table(QStringLiteral("limiter"))->selectionModel()->selectedRows();
            return rows.isEmpty() ? QByteArray()
                                  : rows.first().data(ObjectTableModel::KeyRole).toByteArray();
        };
        filter->setText(QStringLiteral("api"));
        QCOMPARE(selectedKey(), QByteArray("sim:rl:api:1"));
        filter->setText(QStringLiteral("api:2"));
        QCOMPARE(selectedKey(), QByteArray());
        QVERIFY(!reset->isEnabled());
        QVERIFY2(reset->toolTip().contains(QLatin1String("Select one")),
                 qPrintable(reset->toolTip()));
        filter->clear();
        QCOMPARE(selectedKey(), QByteArray()); // not back to some other row
        QVERIFY(!reset->isEnabled());
        // An action on a prefix needs no selection.
        QVERIFY(button(c, "issueTokenButton")->isEnabled());
        for (const char *key : {"sim:rl:api:0", "sim:rl:api:1", "sim:rl:api:2"})
            call(*m_client, {"DEL", key});
    }

    void resetLimiter()
    {
        const QByteArray now = call(*m_client, {"TIME"}).at(0).bytes() + "000";
        call(*m_client, {"ZADD", "sim:rl:api:1", now, "a"});
        call(*m_client, {"ZADD", "sim:rl:api:1:retry", now, "b"});
        Console c(m_server, false, audit());
        QVERIFY(select(c, "limiter", "sim:rl:api:1"));
        QVERIFY(runAction(c, "resetLimiterButton", true).startsWith(QLatin1String("Deleted 2")));
        QCOMPARE(call(*m_client, {"EXISTS", "sim:rl:api:1", "sim:rl:api:1:retry"}).toInteger(), 0);
    }

    // A "limiter" whose scores are not times (a leaderboard under the
    // limiter's name) is refused; only the second, explicit Force deletes it.
    void resetRefusedUnlessForced()
    {
        call(*m_client, {"ZADD", "sim:rl:api:1", "1", "alice", "2", "bob"});
        Console c(m_server, false, audit());
        QVERIFY(select(c, "limiter", "sim:rl:api:1"));
        for (const bool force : {false, true}) {
            QString outcome;
            const QMetaObject::Connection conn
                = connect(c.window.get(), &MainWindow::actionFinished, this,
                          [&](const QString &m) { outcome = m; });
            int step = 0;
            auto *timer = new QTimer(this);
            timer->setInterval(10);
            connect(timer, &QTimer::timeout, this, [&, timer, force] {
                auto *box = qobject_cast<QMessageBox *>(QApplication::activeModalWidget());
                if (!box)
                    return;
                if (step == 0 && box->objectName() == QLatin1String("confirmAction")) {
                    box->button(QMessageBox::Ok)->click();
                    step = 1;
                } else if (step == 1 && box->objectName() == QLatin1String("forceAction")) {
                    QVERIFY(box->text().contains(QLatin1String("not a time")));
                    QAbstractButton *run = nullptr;
                    for (QAbstractButton *b : box->buttons())
                        run = b->text() == QLatin1String("Force") ? b : run;
                    (force ? run : box->button(QMessageBox::Cancel))->click();
                    step = 2;
                } else if (step == 2 && box->objectName() == QLatin1String("confirmAction")) {
                    QVERIFY(box->text().contains(QLatin1String("Forced")));
                    box->button(QMessageBox::Ok)->click();
                    step = 3;
                }
            });
            timer->start();
            button(c, "resetLimiterButton")->click();
            QTRY_VERIFY(!outcome.isEmpty());
            delete timer;
            disconnect(conn);
            QCOMPARE(step, force ? 3 : 2);
            QCOMPARE(call(*m_client, {"EXISTS", "sim:rl:api:1"}).toInteger(), force ? 0 : 1);
            if (force)
                QVERIFY2(outcome.startsWith(QLatin1String("Deleted 1")), qPrintable(outcome));
            else
                QVERIFY2(outcome.startsWith(QLatin1String("Refused")), qPrintable(outcome));
        }
    }

    // Celery's requeue --older-than in the console: a message unacked for a
    // minute (kombu's visibility timeout is an hour) is restored only after
    // the refusal that says a live worker may run it twice, a Force, and the
    // forced call's own confirmation.
    void celeryRestoreBeforeTimeoutIsForced()
    {
        const qint64 now = call(*m_client, {"TIME"}).at(0).toInteger();
        const QByteArray message
            = "[{\"body\": \"W10=\", \"content-encoding\": \"utf-8\", \"content-type\": "
              "\"application/json\", \"headers\": {\"id\": \"t-1\", \"task\": \"app.work\"}, "
              "\"properties\": {\"delivery_info\": {\"exchange\": \"celery\", \"routing_key\": "
              "\"celery\"}, \"priority\": 0, \"delivery_tag\": \"tag-1\"}}, \"celery\", "
              "\"celery\"]";
        call(*m_client, {"SADD", "_kombu.binding.celery",
                         "celery\x06\x16\x06\x16"
                         "celery"});
        call(*m_client, {"HSET", "unacked", "tag-1", message});
        call(*m_client, {"ZADD", "unacked_index", QByteArray::number(now - 60), "tag-1"});
        QFile profile(m_dir.filePath(QStringLiteral("celery.json")));
        QVERIFY(profile.open(QIODevice::WriteOnly));
        profile.write(R"({"name": "celery", "rules": [{"pattern": "celery", "match": "celery"}]})");
        profile.close();
        Console::Options options;
        options.profile = profile.fileName();
        Console c(m_server, audit(), options);
        QVERIFY(select(c, "queue", "celery"));
        QString outcome;
        const QMetaObject::Connection conn = connect(c.window.get(), &MainWindow::actionFinished,
                                                     this, [&](const QString &m) { outcome = m; });
        int step = 0;
        QString refusal;
        auto *timer = new QTimer(this);
        timer->setInterval(10);
        connect(timer, &QTimer::timeout, this, [&] {
            QWidget *modal = QApplication::activeModalWidget();
            if (auto *form = qobject_cast<ActionInputDialog *>(modal); form && step == 0) {
                auto *edit = form->findChild<QLineEdit *>(QStringLiteral("input_older-than"));
                QVERIFY(edit);
                edit->setText(QStringLiteral("1000"));
                form->accept();
                step = 1;
                return;
            }
            auto *box = qobject_cast<QMessageBox *>(modal);
            if (!box)
                return;
            if (step == 1 && box->objectName() == QLatin1String("confirmAction")) {
                box->button(QMessageBox::Ok)->click();
                step = 2;
            } else if (step == 2 && box->objectName() == QLatin1String("forceAction")) {
                refusal = box->text();
                QAbstractButton *run = nullptr;
                for (QAbstractButton *b : box->buttons())
                    run = b->text() == QLatin1String("Force") ? b : run;
                run->click();
                step = 3;
            } else if (step == 3 && box->objectName() == QLatin1String("confirmAction")) {
                box->button(QMessageBox::Ok)->click();
                step = 4;
            }
        });
        timer->start();
        button(c, "requeueButton")->click();
        QTRY_VERIFY_WITH_TIMEOUT(outcome.startsWith(QLatin1String("Requeued 1")), 10000);
        delete timer;
        disconnect(conn);
        QCOMPARE(step, 4);
        QVERIFY2(refusal.contains(QLatin1String("twice")), qPrintable(refusal));
        QCOMPARE(call(*m_client, {"HLEN", "unacked"}).toInteger(), 0);
        QCOMPARE(call(*m_client, {"ZCARD", "unacked_index"}).toInteger(), 0);
        QCOMPARE(call(*m_client, {"LLEN", "celery"}).toInteger(), 1);
        // Audited as forced, like every forced action.
        QFile log(audit());
        QVERIFY(log.open(QIODevice::ReadOnly));
        const QJsonObject last
            = QJsonDocument::fromJson(log.readAll().trimmed().split('\n').last()).object();
        QCOMPARE(last[QStringLiteral("script")].toString(), QStringLiteral("celery_restore"));
        QCOMPARE(last[QStringLiteral("force")].toBool(), true);
    }

    void queueActions()
    {
        const qint64 now = call(*m_client, {"TIME"}).at(0).toInteger() * 1000;
        call(*m_client, {"LPUSH", "sim:jobs:mail:processing", "j1", "j2", "j3"});
        call(*m_client,
             {"ZADD", "sim:jobs:mail:claims", QByteArray::number(now - 90000), "j1",
              QByteArray::number(now - 80000), "j2", QByteArray::number(now - 100), "j3"});
        Console c(m_server, false, audit());
        QVERIFY(select(c, "queue", "sim:jobs:mail"));
        auto *stuck = c.window->page(4)->findChild<QTableWidget *>();
        QTRY_COMPARE(stuck->rowCount(), 3);
        stuck->selectRow(0); // j1, the oldest
        QVERIFY(runAction(c, "deadLetterButton", true).startsWith(QLatin1String("Moved")));
        QCOMPARE(call(*m_client, {"LRANGE", "sim:jobs:mail:dead", "0", "-1"}).size(), 1);
        QVERIFY(runAction(c, "requeueStuckButton", true).startsWith(QLatin1String("Requeued 1")));
        QCOMPARE(call(*m_client, {"LRANGE", "sim:jobs:mail", "0", "-1"}).at(0).bytes(),
                 QByteArray("j2"));
        QTRY_COMPARE(stuck->rowCount(), 1);
        stuck->selectRow(0); // j3
        QVERIFY(runAction(c, "requeueButton", true).startsWith(QLatin1String("Moved")));
        QCOMPARE(call(*m_client, {"LLEN", "sim:jobs:mail:processing"}).toInteger(), 0);
    }

    void csvExport()
    {
        call(*m_client, {"SET", "sim:lock:1", "a1b2c3d4e5f6", "PX", "60000"});
        call(*m_client, {"SET", "sim:lock:2", "tok,with comma", "PX", "60000"});
        Console c(m_server, false, audit());
        QVERIFY(select(c, "lock", "sim:lock:2"));
        QVERIFY(select(c, "lock", "sim:lock:1"));
        const QString file = m_dir.filePath(QStringLiteral("locks.csv"));
        QVERIFY(c.window->exportCsv(QStringLiteral("lock"), file));
        QFile f(file);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QStringList lines
            = QString::fromUtf8(f.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 3);
        QVERIFY(lines.at(0).startsWith(QLatin1String("Key,Holder token,TTL")));
        QVERIFY2(lines.join(QLatin1Char('|')).contains(QLatin1String("\"tok,with comma\"")),
                 qPrintable(lines.join(QLatin1Char('|'))));
    }

    // Seed 003: a resource expands into its consumers.
    void resourceShowsConsumers()
    {
        const qint64 now = call(*m_client, {"TIME"}).at(0).toInteger() * 1000;
        const QByteArray t = QByteArray::number(now - 100);
        call(*m_client, {"ZADD", "sim:z:rl:resource:1{1}", t, "a", t, "b"});
        call(*m_client, {"ZADD", "sim:z:rl:resource:1{1}:consumer:0", t, "a"});
        call(*m_client, {"ZADD", "sim:z:rl:resource:1{1}:consumer:1", t, "b"});
        Console c(m_server, false, audit());
        QVERIFY(select(c, "limiter", "sim:z:rl:resource:1{1}"));
        auto *consumers = c.window->findChild<QListWidget *>(QStringLiteral("limiterParts"));
        QTRY_COMPARE(consumers->count(), 2);
        QVERIFY2(consumers->item(0)->text().contains(QLatin1String("1 / 12")),
                 qPrintable(consumers->item(0)->text()));
        QVERIFY2(consumers->item(0)->text().startsWith(QLatin1String(":consumer:0")),
                 qPrintable(consumers->item(0)->text()));
    }

    // The Overview lists what needs attention, each with a sparkline.
    void overviewSparklines()
    {
        const qint64 now = call(*m_client, {"TIME"}).at(0).toInteger() * 1000;
        QList<QByteArray> zadd{"ZADD", "sim:rl:api:1"};
        for (int i = 0; i < 20; ++i)
            zadd << QByteArray::number(now - i) << QByteArray::number(i);
        call(*m_client, zadd);
        Console c(m_server, false, audit());
        auto *hot = c.window->page(0)->findChild<QListWidget *>();
        QTRY_VERIFY_WITH_TIMEOUT(
            hot->count() > 0
                && hot->item(0)->data(OverviewPage::SparklineRole).value<QPolygonF>().size() >= 2,
            5000);
        QVERIFY(hot->item(0)->text().contains(QLatin1String("sim:rl:api:1")));
        QVERIFY(hot->item(0)->text().contains(QLatin1String("100 %")));
    }

    // Locks held longest are listed; held-for is a lower bound when the lock
    // was already held at the first reading.
    void overviewLongestHeldLocks()
    {
        call(*m_client, {"SET", "sim:lock:3", "a1b2c3d4e5f6", "PX", "60000"});
        Console c(m_server, false, audit());
        auto *hot = c.window->page(0)->findChild<QListWidget *>();
        // Listed once held past routine churn (LockUnit::RoutineHoldMs).
        QTRY_VERIFY_WITH_TIMEOUT(hot->count() > 0, 25000);
        QVERIFY2(hot->item(0)->text().contains(QStringLiteral("sim:lock:3 held for ≥ "))
                     && hot->item(0)->text().contains(QLatin1String("since watching began")),
                 qPrintable(hot->item(0)->text()));
    }

    // The charts follow the desktop's palette when it changes (light/dark).
    void chartsFollowPalette()
    {
        Console c(m_server, false, audit());
        QPalette dark = c.window->palette();
        dark.setColor(QPalette::Base, Qt::black);
        dark.setColor(QPalette::Text, Qt::white);
        c.window->setPalette(dark);
        const auto plots
            = c.window->chart(QStringLiteral("limiter"))->findChildren<QCustomPlot *>();
        QVERIFY(!plots.isEmpty());
        QTRY_COMPARE(plots.first()->xAxis->basePen().color(), QColor(Qt::white));
    }

    // Charts keep the data clear. Every legend shown is laid out outside
    // its plot's data area (a legend inside it covered the newest points).
    // On the window strip no request is drawn right of the now line, even
    // one stamped in the future by a client whose clock runs ahead of the
    // server's: requests are in the past. Retry slots are in the future,
    // right of the line.
    void chartsKeepDataClear()
    {
        const qint64 now = call(*m_client, {"TIME"}).at(0).toInteger() * 1000;
        QList<QByteArray> zadd{"ZADD", "sim:rl:api:1"};
        for (int i = 1; i <= 4; ++i)
            zadd << QByteArray::number(now - i * 1500) << "r" + QByteArray::number(i);
        zadd << QByteArray::number(now + 20000) << "ahead"; // its client's clock 20 s fast
        call(*m_client, zadd);
        call(*m_client, {"ZADD", "sim:rl:api:1:retry", QByteArray::number(now + 25000), "slot"});
        Console c(m_server, false, audit());
        c.window->resize(1280, 800);
        QVERIFY(select(c, "limiter", "sim:rl:api:1"));
        ChartPanel *chart = c.window->chart(QStringLiteral("limiter"));
        QVERIFY(chart);
        // Found afresh: the panel rebuilds its plots for an object that
        // charts otherwise.
        const auto findStrip = [&]() -> QCustomPlot * {
            for (QCustomPlot *plot : chart->findChildren<QCustomPlot *>()) {
                auto *title = qobject_cast<QCPTextElement *>(plot->plotLayout()->element(0, 0));
                if (title && title->text().startsWith(QLatin1String("Window strip")))
                    return plot;
            }
            return nullptr;
        };
        const auto graphNamed = [](QCustomPlot *plot, const QString &name) -> QCPGraph * {
            for (int g = 0; plot && g < plot->graphCount(); ++g) {
                if (plot->graph(g)->name() == name)
                    return plot->graph(g);
            }
            return nullptr;
        };
        // The detailed reading drawn: the request stamped ahead (it stays in
        // the window for 30 s) and the retry slot.
        const auto stripDrawn = [&] {
            QCustomPlot *strip = findStrip();
            QCPGraph *requests = graphNamed(strip, QStringLiteral("requests"));
            QCPGraph *retrySlots = graphNamed(strip, QStringLiteral("retry slots"));
            if (!requests || !retrySlots || retrySlots->dataCount() != 1)
                return false;
            for (auto it = requests->data()->constBegin(); it != requests->data()->constEnd(); ++it)
                if (it->key > -1.0) // the older requests are 1.5 s ago or more
                    return true;
            return false;
        };
        QTRY_VERIFY_WITH_TIMEOUT(stripDrawn(), 10000);
        QCustomPlot *strip = findStrip();
        const QList<QCustomPlot *> plots = chart->findChildren<QCustomPlot *>();

        int legends = 0;
        for (QCustomPlot *plot : plots) {
            if (!plot->isVisible())
                continue;
            plot->replot(QCustomPlot::rpImmediateRefresh); // lays the plot out at its size
            if (!plot->legend->visible())
                continue;
            ++legends;
            const QRect legend = plot->legend->outerRect();
            const QRect data = plot->axisRect()->rect();
            QVERIFY2(!legend.isEmpty() && !legend.intersects(data),
                     qPrintable(QStringLiteral("legend at %1,%2 %3x%4 over the data at %5,%6 %7x%8")
                                    .arg(legend.x())
                                    .arg(legend.y())
                                    .arg(legend.width())
                                    .arg(legend.height())
                                    .arg(data.x())
                                    .arg(data.y())
                                    .arg(data.width())
                                    .arg(data.height())));
        }
        QVERIFY(legends >= 1); // the strip's: requests and retry slots

        // The now line, where its "now" label stands, in pixels.
        QCPItemText *nowLabel = nullptr;
        for (int i = 0; i < strip->itemCount(); ++i) {
            if (auto *text = qobject_cast<QCPItemText *>(strip->item(i));
                text && text->text() == QLatin1String("now"))
                nowLabel = text;
        }
        QVERIFY(nowLabel);
        const double nowX = nowLabel->position->pixelPosition().x();
        bool line = false;
        for (int i = 0; i < strip->itemCount(); ++i) {
            if (auto *l = qobject_cast<QCPItemStraightLine *>(strip->item(i)))
                line |= qAbs(l->point1->pixelPosition().x() - nowX) < 0.5
                        && qAbs(l->point2->pixelPosition().x() - nowX) < 0.5;
        }
        QVERIFY2(line, "no vertical line at the \"now\" label");
        QCPGraph *requests = graphNamed(strip, QStringLiteral("requests"));
        for (auto it = requests->data()->constBegin(); it != requests->data()->constEnd(); ++it) {
            const double x = strip->xAxis->coordToPixel(it->key);
            QVERIFY2(x <= nowX + 0.5,
                     qPrintable(QStringLiteral("a request drawn at x = %1 px (t = %2 s), right of "
                                               "the now line at %3 px")
                                    .arg(x)
                                    .arg(it->key)
                                    .arg(nowX)));
        }
        // The retry slot, in the future: right of the line.
        QCPGraph *retrySlots = graphNamed(strip, QStringLiteral("retry slots"));
        QVERIFY(strip->xAxis->coordToPixel(retrySlots->data()->constBegin()->key) > nowX + 0.5);
        call(*m_client, {"DEL", "sim:rl:api:1", "sim:rl:api:1:retry"});
    }

    // File > Disconnect, then Connect back to the demo's own server: the
    // demo goes on. The simulator writes again, the window wears the DEMO
    // badge, and the demo profile is in use (its limits shown) unless the
    // dialog named another.
    void demoReconnectKeepsDemo_data()
    {
        QTest::addColumn<QString>("chosen"); // the profile in the Connect dialog
        QTest::addColumn<QString>("inUse");
        QTest::newRow("as the dialog opens (demo)") << "demo"
                                                    << "demo";
        QTest::newRow("autodetect chosen") << ""
                                           << "demo";
        QTest::newRow("another chosen") << "seeds"
                                        << "seeds";
    }
    void demoReconnectKeepsDemo()
    {
        QFETCH(QString, chosen);
        QFETCH(QString, inUse);
        DemoServer demo;
        QSignalSpy ready(&demo, &DemoServer::ready);
        QSignalSpy failed(&demo, &DemoServer::failed);
        demo.start();
        QVERIFY2(ready.wait(20000),
                 failed.isEmpty() ? "no answer" : qPrintable(failed.first().first().toString()));
        auto admin = gatehouse::test::connectedClient(demo.endpoint());
        QVERIFY(admin);
        // The time of the newest request in any simulated limiter: only a
        // write moves it forward (an expiry can only take it back).
        QList<QByteArray> limiters;
        const auto newest = [&] {
            double latest = 0;
            for (const QByteArray &key : std::as_const(limiters)) {
                const RedisValue v = call(*admin, {"ZRANGE", key, "-1", "-1", "WITHSCORES"});
                if (v.size() == 2)
                    latest = std::max(latest, v.at(1).bytes().toDouble());
            }
            return latest;
        };

        // `gatehouse --demo`: the demo's server, the demo profile.
        auto console = std::make_unique<DemoConsole>(
            demo.endpoint(), DemoServer::Console{true, QStringLiteral("demo")},
            m_dir.filePath(QStringLiteral("demo.jsonl")));
        limiters = console->simulator->slidingWindowKeys();
        QVERIFY(!limiters.isEmpty());
        double before = newest();
        QTRY_VERIFY_WITH_TIMEOUT(newest() > before, 10000);

        // File > Disconnect.
        auto *disconnectAction
            = console->window->findChild<QAction *>(QStringLiteral("disconnect"));
        QVERIFY(disconnectAction);
        QTRY_VERIFY(disconnectAction->isEnabled());
        disconnectAction->trigger();
        const auto stateText = [&] {
            return console->window->statusBar()->findChildren<QLabel *>().first()->text();
        };
        QTRY_COMPARE(stateText(), QStringLiteral("Disconnected"));

        // File > Connect: the dialog opens on the current connection (the
        // demo's URL and the profile in use, or autodetect picked instead)
        // and is accepted; the console is replaced as main.cpp does it.
        ConnectionSettings current;
        current.url = demo.endpoint().displayUrl();
        current.profile = chosen;
        ConnectionDialog dialog;
        dialog.setSettings(current);
        QVERIFY2(dialog.canConnect(), qPrintable(dialog.validationMessage()));
        const ConnectionSettings settings = dialog.settings();
        QCOMPARE(settings.profile, chosen);
        QString problem;
        const std::optional<RedisEndpoint> ep = dialog.endpoint(&problem);
        QVERIFY2(ep, qPrintable(problem));
        const DemoServer::Console next = demo.consoleFor(*ep, settings.profile);
        console.reset();
        // The old console's connections closed at the server: what they
        // sent has landed, and nothing writes until the next console.
        QTRY_VERIFY(
            call(*admin, {"INFO", "clients"}).bytes().contains("\r\nconnected_clients:1\r\n"));
        before = newest();
        console = std::make_unique<DemoConsole>(*ep, next,
                                                m_dir.filePath(QStringLiteral("demo.jsonl")));

        // The DEMO badge, in the title too.
        bool badge = false;
        for (QLabel *l : console->window->statusBar()->findChildren<QLabel *>())
            badge |= l->text() == QLatin1String("<b>DEMO</b>") && l->isVisible();
        QVERIFY(badge);
        QVERIFY2(console->window->windowTitle().contains(QLatin1String("DEMO")),
                 qPrintable(console->window->windowTitle()));
        // The simulator writes again.
        QTRY_VERIFY_WITH_TIMEOUT(newest() > before, 10000);
        // The profile in use, and what it says: the demo's limit of the
        // sim:rl:api limiters (autodetect cannot know it: "n / ?").
        if (inUse == QLatin1String("demo")) {
            ObjectTableModel *model = console->window->model(QStringLiteral("limiter"));
            int column = -1;
            for (int col = 0; col < model->columnCount(); ++col) {
                if (model->headerData(col, Qt::Horizontal).toString()
                    == QLatin1String("In window / limit"))
                    column = col;
            }
            QVERIFY(column >= 0);
            const auto cell = [&] {
                const int row = model->rowOf(limiters.first());
                return row < 0 ? QString() : model->index(row, column).data().toString();
            };
            QTRY_VERIFY2_WITH_TIMEOUT(cell().endsWith(QLatin1String(" / 20")), qPrintable(cell()),
                                      10000);
        }
        QVERIFY(console->monitor->options().profile);
        QCOMPARE(console->monitor->options().profile->name, inUse);
        console.reset();
        admin.reset();
    }

    // The token's payload is checked as it is typed: OK stays disabled
    // until it parses.
    void issueInputsRejectInvalidJson()
    {
        const PatternUnit *unit = PatternRegistry::instance().find(QStringLiteral("token-family"));
        QVERIFY(unit);
        PatternAction issue;
        for (const PatternAction &a : unit->actions())
            issue = a.id == QLatin1String("token.issue") ? a : issue;
        QCOMPARE(issue.id, QStringLiteral("token.issue"));
        ActionInputDialog dialog(*unit, issue, nullptr, {}, {});
        auto *ok = dialog.findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok);
        auto field = [&](const char *id) {
            return dialog.findChild<QLineEdit *>(QLatin1String("input_") + QLatin1String(id));
        };
        field("target")->setText(QStringLiteral("sim:code:"));
        field("ttl")->setText(QStringLiteral("60"));
        field("value")->setText(QStringLiteral("{\"user\": 42"));
        QVERIFY(!ok->isEnabled());
        // The problem names the field the way the form labels it.
        QVERIFY2(dialog.problem().startsWith(QStringLiteral("\u201cPayload (JSON)\u201d: ")),
                 qPrintable(dialog.problem()));
        QVERIFY2(dialog.problem().contains(QLatin1String("not valid JSON")),
                 qPrintable(dialog.problem()));
        field("value")->setText(QStringLiteral("{\"user\": 42}"));
        QVERIFY2(dialog.problem().isEmpty(), qPrintable(dialog.problem()));
        QVERIFY(ok->isEnabled());
    }

    void issueTokenCancelled()
    {
        Console c(m_server, false, audit());
        c.window->showPage(c.window->pageOf(QStringLiteral("token")));
        bool rejected = false;
        auto *timer = new QTimer(this);
        timer->setInterval(10);
        connect(timer, &QTimer::timeout, this, [&] {
            if (auto *dialog
                = qobject_cast<ActionInputDialog *>(QApplication::activeModalWidget())) {
                dialog->reject();
                rejected = true;
                timer->stop();
            }
        });
        timer->start();
        button(c, "issueTokenButton")->click();
        QTRY_VERIFY(rejected);
        delete timer;
        QCOMPARE(c.window->lastOutcome(), QStringLiteral("Cancelled: nothing was sent."));
        QCOMPARE(call(*m_client, {"DBSIZE"}).toInteger(), 0);
    }

    void issueAndRevokeToken()
    {
        Console c(m_server, false, audit());
        c.window->showPage(c.window->pageOf(QStringLiteral("token")));
        // Dialog 1: the inputs; 2: the confirmation; 3: the token shown once.
        QByteArray shownToken;
        bool cancelDefault = false, secretFits = false, copied = false;
        bool confirmCancelDefault = false;
        QString confirmTitle, confirmText;
        auto *timer = new QTimer(this);
        timer->setInterval(10);
        int step = 0;
        connect(timer, &QTimer::timeout, this, [&] {
            QWidget *modal = QApplication::activeModalWidget();
            if (!modal)
                return;
            if (step == 0 && modal->objectName() == QLatin1String("actionInputDialog")) {
                // Cancel is the default here too: Enter never issues by accident.
                auto *buttons = modal->findChild<QDialogButtonBox *>();
                cancelDefault = buttons && buttons->button(QDialogButtonBox::Cancel)->isDefault()
                                && !buttons->button(QDialogButtonBox::Ok)->isDefault();
                modal->findChild<QLineEdit *>(QStringLiteral("input_target"))
                    ->setText(QStringLiteral("sim:code:"));
                modal->findChild<QLineEdit *>(QStringLiteral("input_ttl"))
                    ->setText(QStringLiteral("60"));
                modal->findChild<QLineEdit *>(QStringLiteral("input_value"))
                    ->setText(QStringLiteral("{\"user\": 7}"));
                static_cast<QDialog *>(modal)->accept();
                step = 1;
            } else if (step == 1 && modal->objectName() == QLatin1String("confirmAction")) {
                auto *box = static_cast<QMessageBox *>(modal);
                confirmTitle = box->windowTitle();
                confirmText = box->text() + QLatin1Char('\n') + box->informativeText()
                              + QLatin1Char('\n') + box->detailedText();
                confirmCancelDefault = box->defaultButton() == box->button(QMessageBox::Cancel);
                box->button(QMessageBox::Ok)->click();
                step = 2;
            } else if (step == 2 && modal->objectName() == QLatin1String("issuedShown")) {
                auto *secret = modal->findChild<QLineEdit *>(QStringLiteral("secret"));
                shownToken = secret->text().toUtf8();
                // The whole secret fits its field; Copy says it copied.
                secretFits = secret->width()
                             >= QFontMetrics(secret->font()).horizontalAdvance(secret->text());
                auto *copy = modal->findChild<QPushButton *>(QStringLiteral("copySecret"));
                copy->click();
                copied = copy->text() == QLatin1String("Copied")
                         && QGuiApplication::clipboard()->text() == secret->text();
                static_cast<QDialog *>(modal)->accept();
                step = 3;
                timer->stop();
            }
        });
        timer->start();
        button(c, "issueTokenButton")->click();
        QTRY_COMPARE(step, 3);
        delete timer;
        QCOMPARE(shownToken.size(), 32);
        QVERIFY(cancelDefault);
        QVERIFY(secretFits);
        QVERIFY(copied);
        // The confirmation: a human title (not "Confirm: token.issue"), what
        // will run inline in a fixed-width block (not behind Show Details),
        // Cancel the default, and never the secret: that is shown once, after.
        QVERIFY2(!confirmTitle.contains(QLatin1String("token.")), qPrintable(confirmTitle));
        QVERIFY2(confirmText.contains(QLatin1String("This will run exactly:"))
                     && confirmText.contains(QLatin1String("white-space: pre-wrap"))
                     && confirmText.contains(QLatin1String("KEYS")),
                 qPrintable(confirmText));
        QVERIFY(confirmCancelDefault);
        QVERIFY2(!confirmText.contains(QString::fromUtf8(shownToken)), qPrintable(confirmText));
        QCOMPARE(call(*m_client, {"GET", "sim:code:" + shownToken}).bytes(),
                 QByteArray("{\"user\": 7}"));

        const QString outcome
            = runAction(c, "revokeTokenButton", true,
                        {{QStringLiteral("target"), QString::fromUtf8("sim:code:" + shownToken)}});
        QVERIFY2(outcome.startsWith(QLatin1String("Revoked")), qPrintable(outcome));
        QCOMPARE(call(*m_client, {"EXISTS", "sim:code:" + shownToken}).toInteger(), 0);
    }
};

QTEST_MAIN(tst_MainWindow)
#include "tst_mainwindow.moc"
