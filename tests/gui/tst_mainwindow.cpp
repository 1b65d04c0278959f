// SPDX-License-Identifier: MIT
// The console window against a real redis-server, offscreen: it follows the
// connection (banners, status bar, stale rows, pause), shows what the monitor
// finds (pages, filters, the Overview, charts, CSV), and keeps the demo across a
// reconnect. Its actions are in tst_windowactions.
#include <actioninputdialog.h>
#include <actions/actionengine.h>
#include <chartpanel.h>
#include <connectiondialog.h>
#include <deployment/deployment.h>
#include <mainwindow.h>
#include <monitor/monitor.h>
#include <monitor/profile.h>
#include <objecttablemodel.h>
#include <overviewpage.h>
#include <patterns/lock/lockdata.h>
#include <redis/redisclient.h>
#include <sectionpage.h>
#include <sim/demoserver.h>
#include <sim/simulator.h>

#include <qcustomplot.h>

#include "loopback.h"
#include "redisserver.h"
#include "testconsole.h"
#include "windowtest.h"

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
using namespace gatehouse::test::windowtest;

namespace {

// The console app/gui/main.cpp starts on a connection (startConsole) as
// DemoServer::consoleFor decides it: on the demo's server the simulator
// writes through the monitor's client and the window wears the DEMO badge;
// the monitor reads with the profile decided (none: autodetect).
struct DemoConsole
{
    DemoConsole(const RedisEndpoint &endpoint, const DemoServer::Console &plan,
                const QString &auditPath)
    {
        Deployment::Options options;
        options.endpoint = endpoint;
        QString error;
        if (!plan.profile.isEmpty())
            options.monitor.profile = Profile::load(plan.profile, &error);
        options.monitor.intervalMs = 200;
        options.retryFirstConnection = true;
        options.actions = true;
        options.auditLogPath = auditPath;
        if (plan.demo)
            options.demoTraffic = Simulator::Options();
        deployment = std::make_unique<Deployment>(std::move(options));
        MainWindow::Options windowOptions;
        windowOptions.demo = plan.demo;
        window = std::make_unique<MainWindow>(deployment.get(), windowOptions);
        window->show();
        deployment->start();
    }

    Monitor *monitor() const { return deployment->monitor(); }

    std::unique_ptr<Deployment> deployment;
    std::unique_ptr<MainWindow> window; // before the deployment it shows goes
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

    // Nobody listens where the console was pointed: a banner says so where
    // the figures would be, not "measuring…" with the fault in the status bar.
    void unreachableServerShowsBanner()
    {
        RedisEndpoint endpoint;
        endpoint.host = QStringLiteral("127.0.0.1");
        endpoint.port = gatehouse::test::freeLoopbackPort();
        Console c(endpoint, false, audit());
        QVERIFY(QTest::qWaitForWindowExposed(c.window.get()));
        QTRY_VERIFY(!c.window->bannerText().isEmpty());
        QVERIFY2(c.window->bannerText().contains(QLatin1String("Not connected"))
                     && c.window->bannerText().contains(QLatin1String("connection refused")),
                 qPrintable(c.window->bannerText()));
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
        QMetaObject::Connection seen = connect(c.monitor(), &Monitor::snapshotReady, c.window.get(),
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
        c.monitor()->stop();               // no further snapshot may help
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
        limiters = console->deployment->simulator()->instanceKeys(QStringLiteral("sliding-window"));
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
            // The page's model as of the latest snapshot: a hidden page
            // applies snapshots when its model is asked for.
            const auto cell = [&] {
                ObjectTableModel *latest = console->window->model(QStringLiteral("limiter"));
                const int row = latest->rowOf(limiters.first());
                return row < 0 ? QStringLiteral("no row for %1 among %2 rows")
                                     .arg(QString::fromUtf8(limiters.first()))
                                     .arg(latest->rowCount())
                               : latest->index(row, column).data().toString();
            };
            QTRY_VERIFY2_WITH_TIMEOUT(cell().endsWith(QLatin1String(" / 20")), qPrintable(cell()),
                                      10000);
        }
        QVERIFY(console->monitor()->options().profile);
        QCOMPARE(console->monitor()->options().profile->name, inUse);
        console.reset();
        admin.reset();
    }
};

QTEST_MAIN(tst_MainWindow)
#include "tst_mainwindow.moc"
