// SPDX-License-Identifier: MIT
// The Alerts page as an operator sees it (offscreen): a limiter driven over
// a rule's threshold by real writes shows on the page and as a badge on the
// side list, a click opens it on its page, and draining it clears both; the
// rule editor makes rules, refuses a bad one with a sentence, and saves them
// with the profile.
#include <actions/actionengine.h>
#include <alertrulesdialog.h>
#include <alerts/alertengine.h>
#include <alertspage.h>
#include <mainwindow.h>
#include <monitor/monitor.h>
#include <redis/redisclient.h>
#include <sectionpage.h>

#include "redisserver.h"
#include "testconsole.h"

#include <QApplication>
#include <QComboBox>
#include <QDateTime>
#include <QDialogButtonBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSignalSpy>
#include <QStackedWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

using namespace gatehouse;
using gatehouse::test::call;
using gatehouse::test::RedisServer;
using gatehouse::test::TestConsole;
using gatehouse::test::TestConsoleOptions;

class tst_AlertsPage : public QObject
{
    Q_OBJECT

private:
    RedisServer m_server;
    std::unique_ptr<RedisClient> m_client;
    QTemporaryDir m_dir;

    static QString badge(MainWindow &w)
    {
        auto *list = w.findChild<QListWidget *>();
        for (int i = 0; list && i < list->count(); ++i) {
            if (list->item(i)->text().startsWith(QLatin1String("Alerts")))
                return list->item(i)->text();
        }
        return {};
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(m_server.start(), qPrintable(m_server.errorString()));
        m_client = gatehouse::test::connectedClient(m_server);
        QVERIFY(m_client);
    }

    void cleanupTestCase()
    {
        m_client.reset();
        m_server.stop();
        QCOMPARE(RedisServer::runningChildren(), 0);
    }

    void firingShowsAndClears()
    {
        call(*m_client, {"FLUSHALL"});
        QString error;
        std::optional<Profile> profile = Profile::load(QStringLiteral("demo"), &error);
        QVERIFY2(profile, qPrintable(error));
        const auto rule = AlertRule::parseExpression(
            QStringLiteral("occupancy >= 80% on limiter:sim:rl:api:* as api-full"), &error);
        QVERIFY2(rule, qPrintable(error));
        TestConsoleOptions o; // the demo's profile
        o.alerts = QList<AlertRule>{*rule};
        TestConsole console(m_server, m_dir.filePath(QStringLiteral("audit.jsonl")), o);
        MainWindow &window = *console.window;
        window.setAlerts(*profile);
        QVERIFY(window.pageNames().contains(QStringLiteral("Alerts")));

        // The demo profile's api limiters allow 20 in 10 s: 20 requests fill one.
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        for (int i = 0; i < 20; ++i)
            call(*m_client, {"ZADD", "sim:rl:api:7", QByteArray::number(now - i * 10),
                             "req" + QByteArray::number(i)});
        QTRY_COMPARE_WITH_TIMEOUT(badge(window), QStringLiteral("Alerts (1)"), 15000);
        AlertsPage *page = window.alertsPage();
        QCOMPARE(page->firingTable()->rowCount(), 1);
        QCOMPARE(page->firingTable()->item(0, 1)->text(), QStringLiteral("api-full"));
        QCOMPARE(page->firingTable()->item(0, 2)->text(), QStringLiteral("limiter sim:rl:api:7"));
        QCOMPARE(page->firingTable()->item(0, 3)->text(), QStringLiteral("100 %"));
        QCOMPARE(page->recentTable()->rowCount(), 1);
        QCOMPARE(page->recentTable()->item(0, 1)->text(), QStringLiteral("firing"));

        // A click on the firing opens the limiter on its page.
        window.resize(1280, 800);
        QVERIFY(window.pageNames().contains(QStringLiteral("Alerts")));
        window.showPage(window.pageNames().indexOf(QStringLiteral("Alerts")));
        QTableWidget *firing = page->firingTable();
        // Columns fit their content on one line; the Object column takes the
        // rest (Severity was once given 500 px while Rule and Object wrapped).
        QTRY_VERIFY(firing->isVisible());
        QVERIFY(!firing->wordWrap());
        const int severity = firing->columnCount() - 1;
        const int object = 2;
        QVERIFY2(firing->columnWidth(severity)
                     <= firing->fontMetrics().horizontalAdvance(QStringLiteral("Severity")) + 40,
                 qPrintable(QString::number(firing->columnWidth(severity))));
        QVERIFY(firing->columnWidth(object) > firing->columnWidth(severity));
        QVERIFY(firing->columnWidth(1)
                >= firing->fontMetrics().horizontalAdvance(QStringLiteral("api-full")));
        QTest::mouseClick(firing->viewport(), Qt::LeftButton, {},
                          firing->visualItemRect(firing->item(0, 2)).center());
        auto *stack = window.findChild<QStackedWidget *>();
        QCOMPARE(stack->currentWidget(), window.page(window.pageOf(QStringLiteral("limiter"))));

        // Drained to 2 of 20 by real writes: resolved, the badge gone.
        call(*m_client, {"ZREMRANGEBYRANK", "sim:rl:api:7", "0", "17"});
        QTRY_COMPARE_WITH_TIMEOUT(badge(window), QStringLiteral("Alerts"), 15000);
        QCOMPARE(page->firingTable()->rowCount(), 0);
        QCOMPARE(page->recentTable()->rowCount(), 2);
        QCOMPARE(page->recentTable()->item(0, 1)->text(), QStringLiteral("resolved"));
        QCOMPARE(page->recentTable()->item(0, 4)->text(), QStringLiteral("10 %"));
        console.monitor()->stop();
    }

    // A node's alert (its own server stopped): a click opens the Nodes page
    // with the node's row selected.
    void nodeAlertOpensNodesPage()
    {
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        QString error;
        const auto rule
            = AlertRule::parseExpression(QStringLiteral("down > 0 on node as node-down"), &error);
        QVERIFY2(rule, qPrintable(error));
        TestConsoleOptions o;
        o.autodetect = true; // no profile
        o.alerts = QList<AlertRule>{*rule};
        TestConsole console(server, m_dir.filePath(QStringLiteral("audit-node.jsonl")), o);
        MainWindow &window = *console.window;
        window.setAlerts(Profile());
        QTest::qWait(600); // a reading or two while it is up
        server.stop();
        AlertsPage *page = window.alertsPage();
        QTRY_COMPARE_WITH_TIMEOUT(page->firingTable()->rowCount(), 1, 15000);
        const QString target = page->firingTable()->item(0, 2)->text();
        QVERIFY2(target.startsWith(QLatin1String("node "))
                     && target.endsWith(server.endpoint().address()),
                 qPrintable(target));
        const QString address = target.mid(5); // as the Nodes page names it
        QTableWidget *firing = page->firingTable();
        window.showPage(window.pageNames().indexOf(QStringLiteral("Alerts (1)")));
        QTest::mouseClick(firing->viewport(), Qt::LeftButton, {},
                          firing->visualItemRect(firing->item(0, 2)).center());
        auto *stack = window.findChild<QStackedWidget *>();
        const QString shown = window.pageNames().value(stack->currentIndex());
        QVERIFY2(shown.startsWith(QLatin1String("Nodes")), qPrintable(shown));
        auto *table
            = qobject_cast<QTableWidget *>(stack->currentWidget()->findChild<QTableWidget *>());
        QVERIFY(table);
        QVERIFY(table->selectionModel()->hasSelection());
        QCOMPARE(table->item(table->currentRow(), 0)->text(), address);
        console.monitor()->stop();
    }

    void ruleEditor()
    {
        AlertRulesDialog dialog({});
        auto *figure = dialog.findChild<QComboBox *>(QStringLiteral("alertFigure"));
        auto *target = dialog.findChild<QComboBox *>(QStringLiteral("alertTarget"));
        auto *threshold = dialog.findChild<QLineEdit *>(QStringLiteral("alertThreshold"));
        auto *forEdit = dialog.findChild<QLineEdit *>(QStringLiteral("alertFor"));
        auto *name = dialog.findChild<QLineEdit *>(QStringLiteral("alertName"));
        QVERIFY(figure && target && threshold && forEdit && name);
        target->setCurrentIndex(target->findData(QStringLiteral("lock")));
        QVERIFY(figure->findData(QStringLiteral("heldForMs")) >= 0); // the targets' own figures
        QVERIFY(figure->findData(QStringLiteral("occupancy")) < 0);
        // Shown by title, not id; "lock" (section and pattern) listed once.
        QCOMPARE(figure->itemText(figure->findData(QStringLiteral("heldForMs"))),
                 QStringLiteral("Held for"));
        int locks = 0;
        for (int i = 0; i < target->count(); ++i) {
            locks += target->itemData(i).toString() == QLatin1String("lock");
            QVERIFY2(!target->itemText(i).isEmpty(), qPrintable(target->itemData(i).toString()));
        }
        QCOMPARE(locks, 1);
        figure->setCurrentIndex(figure->findData(QStringLiteral("heldForMs")));
        threshold->setText(QStringLiteral("soon"));
        QVERIFY(!dialog.apply());
        QVERIFY2(dialog.problem().contains(QLatin1String("field \"threshold\"")),
                 qPrintable(dialog.problem()));
        QVERIFY(dialog.rules().isEmpty());
        threshold->setText(QStringLiteral("30s"));
        forEdit->setText(QStringLiteral("5s"));
        name->setText(QStringLiteral("long lock"));
        QVERIFY2(dialog.apply(), qPrintable(dialog.problem()));
        QCOMPARE(dialog.rules().size(), 1);
        QCOMPARE(dialog.rules().first().threshold, 30000.0);
        QCOMPARE(dialog.rules().first().forMs, 5000);
        // The same name again is refused.
        auto *list = dialog.findChild<QListWidget *>(QStringLiteral("alertRuleList"));
        list->setCurrentRow(-1);
        QVERIFY(!dialog.apply());
        QVERIFY(dialog.problem().contains(QLatin1String("long lock")));
    }

    // Save keeps what the form shows: a new rule filled in and saved (no
    // "Add as new" first) and an edit of the selected one; a form that is
    // not a rule keeps the dialog open with what was typed.
    void saveKeepsTheForm()
    {
        AlertRulesDialog dialog({});
        dialog.show();
        auto *target = dialog.findChild<QComboBox *>(QStringLiteral("alertTarget"));
        auto *figure = dialog.findChild<QComboBox *>(QStringLiteral("alertFigure"));
        auto *op = dialog.findChild<QComboBox *>(QStringLiteral("alertOp"));
        auto *threshold = dialog.findChild<QLineEdit *>(QStringLiteral("alertThreshold"));
        auto *list = dialog.findChild<QListWidget *>(QStringLiteral("alertRuleList"));
        auto *save = dialog.findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Save);
        QVERIFY(target && figure && op && threshold && list && save);
        const auto choose = [](QComboBox *combo, int index) {
            QVERIFY(index >= 0);
            combo->setCurrentIndex(index);
            Q_EMIT combo->activated(index); // as a click on an entry does
        };
        choose(target, target->findData(QStringLiteral("lock")));
        choose(figure, figure->findData(QStringLiteral("heldForMs")));
        choose(op, op->findText(QStringLiteral(">")));
        QTest::keyClicks(threshold, QStringLiteral("soon"));
        QTest::mouseClick(save, Qt::LeftButton);
        QVERIFY(dialog.isVisible()); // not a rule: nothing lost, nothing closed
        QVERIFY(!dialog.problem().isEmpty());
        QCOMPARE(threshold->text(), QStringLiteral("soon"));
        threshold->clear();
        QTest::keyClicks(threshold, QStringLiteral("0"));
        QTest::mouseClick(save, Qt::LeftButton);
        QCOMPARE(dialog.result(), int(QDialog::Accepted));
        QCOMPARE(dialog.rules().size(), 1);
        QCOMPARE(dialog.rules().first().figure, QStringLiteral("heldForMs"));
        QCOMPARE(dialog.rules().first().comparison, AlertRule::Comparison::Above);
        // The list names a rule named by its condition once, by the figure's
        // title as the editor shows it, never its id.
        QCOMPARE(list->count(), 1);
        QCOMPARE(list->item(0)->text(), dialog.rules().first().shownName());
        QVERIFY2(!list->item(0)->text().contains(QLatin1String("heldForMs")),
                 qPrintable(list->item(0)->text()));
        QVERIFY2(list->item(0)->text().startsWith(QLatin1String("Held for > ")),
                 qPrintable(list->item(0)->text()));

        // An edit of the selected rule, saved directly, replaces it.
        AlertRulesDialog again(dialog.rules());
        again.show();
        auto *list2 = again.findChild<QListWidget *>(QStringLiteral("alertRuleList"));
        list2->setCurrentRow(0);
        auto *threshold2 = again.findChild<QLineEdit *>(QStringLiteral("alertThreshold"));
        QVERIFY(!again.formEdited()); // shown, not typed
        threshold2->selectAll();
        QTest::keyClicks(threshold2, QStringLiteral("45s"));
        QTest::mouseClick(again.findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Save),
                          Qt::LeftButton);
        QCOMPARE(again.result(), int(QDialog::Accepted));
        QCOMPARE(again.rules().size(), 1);
        QCOMPARE(again.rules().first().threshold, 45000.0);
    }

    // A rule filled in on the page and saved (no "Add as new") reaches the
    // engine, the page's list and the profile's file.
    void savedRuleLandsInFile()
    {
        const QString path = m_dir.filePath(QStringLiteral("typed.json"));
        QString error;
        auto profile = Profile::fromJson(
            R"({"name": "typed", "rules": [{"pattern": "lock", "match": "l:*"}], "alerts": []})",
            path, &error);
        QVERIFY2(profile, qPrintable(error));
        AlertEngine engine;
        AlertsPage page(&engine);
        page.setProfile(*profile);
        QSignalSpy saved(&page, &AlertsPage::saved);
        QTimer::singleShot(0, this, [] {
            auto *dialog = qobject_cast<AlertRulesDialog *>(QApplication::activeModalWidget());
            if (!dialog)
                return;
            auto *target = dialog->findChild<QComboBox *>(QStringLiteral("alertTarget"));
            const int t = target->findData(QStringLiteral("lock"));
            target->setCurrentIndex(t);
            Q_EMIT target->activated(t);
            auto *figure = dialog->findChild<QComboBox *>(QStringLiteral("alertFigure"));
            figure->setCurrentIndex(figure->findData(QStringLiteral("heldForMs")));
            QTest::keyClicks(dialog->findChild<QLineEdit *>(QStringLiteral("alertThreshold")),
                             QStringLiteral("2m"));
            QTest::mouseClick(
                dialog->findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Save),
                Qt::LeftButton);
        });
        page.editRules();
        QCOMPARE(engine.rules().size(), 1);
        QVERIFY(saved.wait(10000));
        QVERIFY2(page.findChild<QLabel *>(QStringLiteral("alertsSummary"))
                     ->text()
                     .contains(QLatin1String("1 rule")),
                 qPrintable(page.findChild<QLabel *>(QStringLiteral("alertsSummary"))->text()));
        const auto again = Profile::load(path, &error);
        QVERIFY2(again, qPrintable(error));
        QCOMPARE(again->alerts.size(), 1);
        QCOMPARE(again->alerts.first().threshold, 120000.0);
    }

    // Rules edited on the page reach the engine and the profile's file.
    void rulesSavedWithProfile()
    {
        const QString path = m_dir.filePath(QStringLiteral("mine.json"));
        QString error;
        auto profile = Profile::fromJson(
            R"({"name": "mine", "rules": [{"pattern": "lock", "match": "l:*"}], "alerts": []})",
            path, &error);
        QVERIFY2(profile, qPrintable(error));
        AlertEngine engine;
        AlertsPage page(&engine);
        page.setProfile(*profile);
        QVERIFY(page.saveNote().contains(QLatin1String("mine.json")));
        QSignalSpy saved(&page, &AlertsPage::saved);
        QTimer::singleShot(0, this, [] {
            auto *dialog = qobject_cast<AlertRulesDialog *>(QApplication::activeModalWidget());
            if (!dialog)
                return;
            auto *target = dialog->findChild<QComboBox *>(QStringLiteral("alertTarget"));
            target->setCurrentIndex(target->findData(QStringLiteral("lock")));
            auto *figure = dialog->findChild<QComboBox *>(QStringLiteral("alertFigure"));
            figure->setCurrentIndex(figure->findData(QStringLiteral("heldForMs")));
            dialog->findChild<QLineEdit *>(QStringLiteral("alertThreshold"))
                ->setText(QStringLiteral("2m"));
            if (dialog->apply())
                dialog->accept();
        });
        page.editRules();
        QCOMPARE(engine.rules().size(), 1);
        QVERIFY(saved.wait(10000));
        QCOMPARE(saved.first().at(1).toString(), QString());
        const auto again = Profile::load(path, &error);
        QVERIFY2(again, qPrintable(error));
        QCOMPARE(again->rules.size(), 1);
        QCOMPARE(again->alerts.size(), 1);
        QCOMPARE(again->alerts.first().threshold, 120000.0);
    }
};

QTEST_MAIN(tst_AlertsPage)
#include "tst_alertspage.moc"
