// SPDX-License-Identifier: MIT
// The console window's actions against a real redis-server, offscreen: every
// kind of action through its inputs and confirmation (accept and cancel), the
// refusals that say why (a foreign lock, a reset without force, a Celery
// restore before its timeout), a reply lost mid-action, and no action at all
// when read-only.
#include <actioninputdialog.h>
#include <actions/actionengine.h>
#include <deployment/deployment.h>
#include <mainwindow.h>
#include <monitor/monitor.h>
#include <monitor/profile.h>
#include <objecttablemodel.h>
#include <patterns/patternregistry.h>
#include <redis/redisclient.h>
#include <sectionpage.h>

#include "redisserver.h"
#include "tcpproxy.h"
#include "testconsole.h"
#include "windowtest.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QDialogButtonBox>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QStatusBar>
#include <redis/redisscript.h>

#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <QTimer>

using namespace gatehouse;
using gatehouse::test::call;
using gatehouse::test::RedisServer;
using namespace gatehouse::test::windowtest;

class tst_WindowActions : public QObject
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
        QSignalSpy ready(&c.client(), &RedisClient::ready);
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

    // File > Disconnect on a window as the console makes it (its deployment
    // on a thread of its own, the demo's traffic on the monitor's
    // connection, the actions on theirs): every connection closes at the
    // server, the window says so, and nothing writes any more.
    void disconnectClosesEveryConnection()
    {
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        auto admin = gatehouse::test::connectedClient(server);
        QVERIFY(admin);
        QThread thread;
        thread.start();
        const auto stopThread = qScopeGuard([&thread] {
            thread.quit();
            thread.wait();
        });
        // A figure of INFO (the server's own count).
        const auto info = [&](const QByteArray &section, const QByteArray &field) {
            const QByteArray text = call(*admin, {"INFO", section}).bytes();
            const qsizetype at = text.indexOf(QByteArray("\r\n" + field + ':')) + field.size() + 3;
            return text.mid(at, text.indexOf('\r', at) - at).toLongLong();
        };
        const auto clients = [&] {
            return info("clients", "connected_clients");
        };
        const auto commands = [&] {
            return info("stats", "total_commands_processed");
        };
        {
            Deployment::Options o;
            o.endpoint = server.endpoint();
            QString error;
            o.monitor.profile = Profile::load(QStringLiteral("demo"), &error);
            o.monitor.intervalMs = 200;
            o.retryFirstConnection = true;
            o.thread = &thread;
            o.actions = true;
            o.demoTraffic = Simulator::Options();
            o.auditLogPath = audit();
            Deployment deployment(o);
            MainWindow window(&deployment, MainWindow::Options());
            window.show();
            deployment.start();
            const auto state = [&] {
                return window.statusBar()->findChildren<QLabel *>().first()->text();
            };
            QTRY_COMPARE_WITH_TIMEOUT(state(), QStringLiteral("Connected"), 10000);
            QTRY_VERIFY_WITH_TIMEOUT(call(*admin, {"DBSIZE"}).toInteger() > 10, 10000);
            QVERIFY(clients() >= 3); // this test's, the monitor's, the actions'

            auto *disconnect = window.findChild<QAction *>(QStringLiteral("disconnect"));
            QVERIFY(disconnect);
            disconnect->trigger();
            QTRY_COMPARE_WITH_TIMEOUT(state(), QStringLiteral("Disconnected"), 5000);
            QTRY_COMPARE_WITH_TIMEOUT(clients(), 1, 5000);
            // Nothing is sent any more: the server counts this test's INFO
            // and nothing else.
            const qint64 before = commands();
            QTest::qWait(1500);
            QVERIFY2(commands() - before <= 2, qPrintable(QString::number(commands() - before)));
            QCOMPARE(clients(), 1);
        }
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

QTEST_MAIN(tst_WindowActions)
#include "tst_windowactions.moc"
