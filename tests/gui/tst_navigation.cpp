// SPDX-License-Identifier: MIT
// The keyboard, the menus and the Audit page against a real redis-server,
// offscreen: Ctrl+1..n reach every page, Ctrl+K finds an object and selects
// it on its page, Enter shows its details, Delete opens its primary action's
// confirmation (Cancel sends nothing, Run acts), Copy key and Copy token
// fill the clipboard; the Audit page names the OS user when USER is unset,
// filters, shows an entry in full and opens its object.
#include <actions/actionengine.h>
#include <alerts/alertengine.h>
#include <auditpage.h>
#include <consolenavigation.h>
#include <mainwindow.h>
#include <monitor/monitor.h>
#include <monitor/profile.h>
#include <objectsearch.h>
#include <objecttablemodel.h>
#include <redis/redisclient.h>
#include <redis/serverinfo.h>
#include <sectionpage.h>
#include <serverpanel.h>
#include <theme.h>

#include "redisserver.h"
#include "testconsole.h"

#include <QApplication>
#include <QClipboard>
#include <QDialog>
#include <QFile>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSet>
#include <QSettings>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <pwd.h>
#include <unistd.h>

using namespace gatehouse;
using gatehouse::test::call;
using gatehouse::test::RedisServer;

namespace {

struct Console : gatehouse::test::TestConsole
{
    using TestConsole::TestConsole;
    ConsoleNavigation *navigation() const
    {
        return window->findChild<ConsoleNavigation *>(QStringLiteral("consoleNavigation"));
    }
};

// The confirmation (a QMessageBox) once it is up: Run or Cancel; true if one came.
bool answerConfirmation(bool run)
{
    QMessageBox *box = nullptr;
    if (!QTest::qWaitFor(
            [&] {
                box = qobject_cast<QMessageBox *>(QApplication::activeModalWidget());
                return box != nullptr;
            },
            5000))
        return false;
    box->button(run ? QMessageBox::Ok : QMessageBox::Cancel)->click();
    return true;
}

} // namespace

class tst_Navigation : public QObject
{
    Q_OBJECT

private:
    RedisServer m_server;
    std::unique_ptr<RedisClient> m_client;
    QTemporaryDir m_dir;

    QString audit() const { return m_dir.filePath(QStringLiteral("audit.jsonl")); }
    // The demo's profile, and alert rules (none yet) as the app has them.
    static gatehouse::test::TestConsoleOptions withAlerts()
    {
        gatehouse::test::TestConsoleOptions o;
        o.alerts = QList<AlertRule>();
        return o;
    }

    // The key's row, read at least once, on its page, selected.
    bool select(Console &c, const QString &section, const QByteArray &key)
    {
        if (!QTest::qWaitFor(
                [&] {
                    const int row = c.window->model(section)->rowOf(key);
                    return row >= 0 && c.window->model(section)->stateAt(row)->reading.atMs > 0;
                },
                5000))
            return false;
        c.window->showPage(c.window->pageOf(section));
        return c.window->sectionPage(section)->selectKey(key);
    }

private slots:
    void initTestCase()
    {
        // QSettings (the palette chosen) goes to this test's own directory.
        qputenv("XDG_CONFIG_HOME", m_dir.filePath(QStringLiteral("config")).toUtf8());
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

    // View > Palette switches the whole console at once and is remembered
    // for the next start.
    void paletteMenuSwitchesAndRemembers()
    {
        Console c(m_server, audit());
        auto *dark = c.window->findChild<QAction *>(QStringLiteral("palette-dark"));
        auto *light = c.window->findChild<QAction *>(QStringLiteral("palette-light"));
        QVERIFY(dark && light);
        QVERIFY(dark->isChecked() != light->isChecked()); // one of the two, exclusive
        dark->trigger();
        QCOMPARE(theme::schemeOf(QApplication::palette()), theme::Scheme::Dark);
        QTRY_COMPARE(theme::schemeOf(c.window->palette()), theme::Scheme::Dark); // by event
        QVERIFY(dark->isChecked() && !light->isChecked());
        QCOMPARE(QSettings().value(QLatin1String(theme::SettingsKey)).toString(),
                 QStringLiteral("dark"));
        light->trigger();
        QCOMPARE(theme::schemeOf(QApplication::palette()), theme::Scheme::Light);
        QCOMPARE(QSettings().value(QLatin1String(theme::SettingsKey)).toString(),
                 QStringLiteral("light"));
    }

    // Ctrl+1, Ctrl+2 … (Ctrl+0 the tenth, Alt+1 the eleventh) reach every
    // page, in the side list's order; each side-list entry's tooltip and its
    // View > Pages entry name its shortcut.
    void ctrlDigitReachesEveryPage()
    {
        // As the app does: the Alerts page too.
        Console c(m_server, audit(), withAlerts());
        c.window->setAlerts(Profile());
        QVERIFY(QTest::qWaitForWindowActive(c.window.get()));
        const int pages = int(c.window->pageNames().size());
        // Overview, the sections, Unconfirmed, Other keys, Nodes, Audit log
        // and Alerts: past the ten Ctrl+digit keys.
        QVERIFY2(pages >= 11, qPrintable(c.window->pageNames().join(QLatin1String(", "))));
        QVERIFY(pages <= ConsoleNavigation::MaxPages);
        // The Overview (Ctrl+1) carries the server's figures.
        auto *panel = c.window->page(0)->findChild<ServerPanel *>(QStringLiteral("serverPanel"));
        QVERIFY(panel);
        QTRY_COMPARE_WITH_TIMEOUT(
            panel->value(QStringLiteral("Version")),
            QString::fromLatin1(
                parseInfo(call(*m_client, {"INFO", "server"}).bytes()).value("redis_version")),
            5000);
        auto *side = c.window->findChild<QListWidget *>();
        QVERIFY(side);
        QCOMPARE(side->count(), pages);
        for (int i = pages - 1; i >= 0; --i) {
            const int digit = (i % 10 + 1) % 10;
            const Qt::Key key = Qt::Key(Qt::Key_0 + digit);
            const Qt::KeyboardModifier modifier = i < 10 ? Qt::ControlModifier : Qt::AltModifier;
            const QString name = QStringLiteral("%1+%2")
                                     .arg(i < 10 ? QStringLiteral("Ctrl") : QStringLiteral("Alt"))
                                     .arg(digit);
            QTest::keyClick(c.window.get(), key, modifier);
            QVERIFY2(c.window->currentPage() == i, qPrintable(name));
            QVERIFY2(side->item(i)->toolTip().contains(name), qPrintable(side->item(i)->toolTip()));
        }
        // The eleventh page is not left out (the Ctrl+digit keys end at ten).
        QTest::keyClick(c.window.get(), Qt::Key_1, Qt::AltModifier);
        QCOMPARE(c.window->currentPage(), 10);
        QTest::keyClick(c.window.get(), Qt::Key_0, Qt::ControlModifier);
        QCOMPARE(c.window->currentPage(), 9);
        // The View menu lists them all.
        QMenu *view = nullptr;
        for (QAction *a : c.window->menuBar()->actions()) {
            if (a->text() == QLatin1String("&View"))
                view = a->menu();
        }
        QVERIFY(view);
        QMenu *pagesMenu = nullptr;
        for (QAction *a : view->actions()) {
            if (a->text() == QLatin1String("&Pages"))
                pagesMenu = a->menu();
        }
        QVERIFY(pagesMenu);
        Q_EMIT pagesMenu->aboutToShow(); // filled as it opens: Alerts came after the window
        QCOMPARE(int(pagesMenu->actions().size()), pages);
        for (int i = 0; i < pages; ++i) {
            const QString text = pagesMenu->actions().at(i)->text();
            QVERIFY2(text.endsWith(
                         QLatin1Char('\t')
                         + ConsoleNavigation::pageShortcut(i).toString(QKeySequence::NativeText)),
                     qPrintable(text));
        }
        for (const QString &m : {QStringLiteral("&Actions"), QStringLiteral("&Help")}) {
            bool found = false;
            for (QAction *a : c.window->menuBar()->actions())
                found |= a->text() == m;
            QVERIFY2(found, qPrintable(m));
        }
    }

    // Ctrl+K, a part of a key, Enter: the object is selected on its own page.
    // docs/console.md lists exactly the keys the console binds: every
    // shortcut of the window's menus and pages is there, and every key the
    // page names is one the console has. Help > Keyboard shortcuts is the
    // same list, read from the menus.
    void shortcutsAreDocumented()
    {
        // The console the app starts has the Alerts page.
        Console c(m_server, audit(), withAlerts());
        c.window->setAlerts(Profile());
        QSet<QString> app;
        for (const ConsoleNavigation::Shortcut &s : c.navigation()->shortcuts())
            app.insert(s.keys);
        // What an operator reaches the most: pages, search, detail, the primary action.
        for (const char *keys : {"Ctrl+1", "Ctrl+0", "Ctrl+K", "Enter", "Del", "Ctrl+O", "F5"})
            QVERIFY2(app.contains(QLatin1String(keys)), keys);

        QFile doc(QStringLiteral(GATEHOUSE_SOURCE_DIR "/docs/console.md"));
        QVERIFY(doc.open(QIODevice::ReadOnly));
        const QString section = QString::fromUtf8(doc.readAll());
        QSet<QString> documented;
        static const QRegularExpression keysPattern(
            QStringLiteral("\\b(?:(?:Ctrl|Alt|Shift)\\+)+(?:[A-Z0-9]\\b|F\\d+)|\\bF\\d+\\b|"
                           "\\bEnter\\b|\\bDelete\\b"));
        for (auto it = keysPattern.globalMatch(section); it.hasNext();) {
            const QString keys = it.next().captured();
            documented.insert(QKeySequence(keys).toString(QKeySequence::PortableText));
        }
        QStringList undocumented;
        for (const QString &keys : app) {
            if (!documented.contains(keys))
                undocumented << keys;
        }
        QStringList unbound;
        for (const QString &keys : documented) {
            if (!app.contains(keys))
                unbound << keys;
        }
        undocumented.sort();
        unbound.sort();
        QVERIFY2(undocumented.isEmpty(),
                 qPrintable(QStringLiteral("bound but not in docs/console.md: ")
                            + undocumented.join(QStringLiteral(", "))));
        QVERIFY2(unbound.isEmpty(), qPrintable(QStringLiteral("in docs/console.md but not bound: ")
                                               + unbound.join(QStringLiteral(", "))));
    }

    void ctrlKFindsAnObject()
    {
        call(*m_client, {"SET", "sim:lock:payments", "tok-123456", "PX", "60000"});
        call(*m_client, {"SET", "sim:lock:mail", "tok-abcdef", "PX", "60000"});
        Console c(m_server, audit());
        QVERIFY(QTest::qWaitForWindowActive(c.window.get()));
        QTRY_VERIFY_WITH_TIMEOUT(
            c.window->model(QStringLiteral("lock"))->rowOf("sim:lock:payments") >= 0, 5000);
        c.window->showPage(0); // from the Overview
        QTest::keyClick(c.window.get(), Qt::Key_K, Qt::ControlModifier);
        auto *search = c.window->findChild<ObjectSearch *>(QStringLiteral("objectSearch"));
        QVERIFY(search);
        QVERIFY(QTest::qWaitForWindowExposed(search));
        auto *query = search->findChild<QLineEdit *>(QStringLiteral("objectSearchQuery"));
        QTest::keyClicks(query, QStringLiteral("PAYM")); // any case
        QCOMPARE(search->results()->count(), 1);
        QVERIFY(search->results()->item(0)->text().contains(QLatin1String("sim:lock:payments")));
        QTest::keyClick(query, Qt::Key_Return);
        QCOMPARE(c.window->currentPage(), c.window->pageOf(QStringLiteral("lock")));
        const ObjectState *s = c.window->sectionPage(QStringLiteral("lock"))->selected();
        QVERIFY(s);
        QCOMPARE(s->object->key, QByteArray("sim:lock:payments"));
        // No match says so instead of an empty list.
        ObjectSearch *again = c.navigation()->openSearch();
        again->setQuery(QStringLiteral("no-such-key"));
        QCOMPARE(again->results()->count(), 1);
        QVERIFY(again->results()->item(0)->text().startsWith(QLatin1String("No object")));
        again->close();
    }

    // Delete on a selected lock: its primary action (force release) through
    // the confirmation; Cancel sends nothing, Run releases it.
    void deleteOpensPrimaryConfirmation()
    {
        call(*m_client, {"SET", "sim:lock:1", "a1b2c3d4e5f6", "PX", "60000"});
        Console c(m_server, audit());
        QVERIFY(QTest::qWaitForWindowActive(c.window.get()));
        QVERIFY(select(c, QStringLiteral("lock"), "sim:lock:1"));
        QTableView *table = c.window->table(QStringLiteral("lock"));
        auto *release = c.window->findChild<QPushButton *>(QStringLiteral("forceReleaseButton"));
        QTRY_VERIFY_WITH_TIMEOUT(release->isEnabled(), 5000);
        table->setFocus();

        QString outcome;
        connect(c.window.get(), &MainWindow::actionFinished, this,
                [&](const QString &m) { outcome = m; });
        QTimer::singleShot(0, this, [] { QVERIFY(answerConfirmation(false)); });
        QTest::keyClick(table, Qt::Key_Delete);
        QTRY_COMPARE_WITH_TIMEOUT(outcome, QStringLiteral("Cancelled: nothing was sent."), 5000);
        QCOMPARE(call(*m_client, {"EXISTS", "sim:lock:1"}).toInteger(), 1);

        outcome.clear();
        // The confirmation took the focus: back to the window, as after any dialog.
        c.window->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(c.window.get()));
        table->setFocus();
        QTimer::singleShot(0, this, [] { QVERIFY(answerConfirmation(true)); });
        QTest::keyClick(table, Qt::Key_Delete);
        QTRY_VERIFY_WITH_TIMEOUT(outcome.startsWith(QLatin1String("Released")), 5000);
        QCOMPARE(call(*m_client, {"EXISTS", "sim:lock:1"}).toInteger(), 0);

        // In the filter field Delete edits the text: no action.
        auto *filter = c.window->findChild<QLineEdit *>(QStringLiteral("lockFilter"));
        filter->setText(QStringLiteral("ab"));
        filter->setFocus();
        filter->setCursorPosition(0);
        QTest::keyClick(filter, Qt::Key_Delete);
        QCOMPARE(filter->text(), QStringLiteral("b"));
        QVERIFY(!QApplication::activeModalWidget());
    }

    // Enter shows every column of the selection; Copy key and Copy token
    // put them on the clipboard.
    void enterShowsDetailAndCopies()
    {
        call(*m_client, {"SET", "sim:lock:detail", "holder-7788", "PX", "60000"});
        Console c(m_server, audit());
        QVERIFY(QTest::qWaitForWindowActive(c.window.get()));
        QVERIFY(select(c, QStringLiteral("lock"), "sim:lock:detail"));
        QTableView *table = c.window->table(QStringLiteral("lock"));
        table->setFocus();
        QTest::keyClick(table, Qt::Key_Return);
        auto *detail = c.window->findChild<QDialog *>(QStringLiteral("objectDetail"));
        QVERIFY(detail);
        QStringList texts;
        for (const QLabel *l : detail->findChildren<QLabel *>())
            texts << l->text();
        QVERIFY2(texts.contains(QStringLiteral("sim:lock:detail")), qPrintable(texts.join('|')));
        QVERIFY2(texts.contains(QStringLiteral("holder-7788")), qPrintable(texts.join('|')));
        detail->close();

        c.navigation()->copyKey();
        QCOMPARE(QGuiApplication::clipboard()->text(), QStringLiteral("sim:lock:detail"));
        c.navigation()->copyToken();
        QCOMPARE(QGuiApplication::clipboard()->text(), QStringLiteral("holder-7788"));
    }

    // No dead band between the side list and the pages (about 100 px of
    // grey once), and a minimum window size (at 640x420 the y label read
    // "uests").
    void noDeadBandAndAMinimumSize()
    {
        Console c(m_server, audit());
        QVERIFY(QTest::qWaitForWindowExposed(c.window.get()));
        QVERIFY(c.window->minimumSize().width() >= 900);
        QVERIFY(c.window->minimumSize().height() >= 560);
        c.window->resize(640, 420);
        QVERIFY(c.window->width() >= c.window->minimumSize().width());
        c.window->resize(1280, 800);
        auto *side = c.window->findChild<QWidget *>(QStringLiteral("sideList"));
        QVERIFY(side);
        for (int page = 0; page < c.window->pageNames().size(); ++page) {
            c.window->showPage(page);
            QCoreApplication::processEvents();
            QWidget *shown = c.window->page(page);
            const int sideRight = side->mapTo(c.window.get(), QPoint(side->width(), 0)).x();
            const int pageLeft = shown->mapTo(c.window.get(), QPoint(0, 0)).x();
            QVERIFY2(pageLeft - sideRight <= 24 && pageLeft >= sideRight,
                     qPrintable(QStringLiteral("%1: %2 px between the side list and the page")
                                    .arg(c.window->pageNames().at(page))
                                    .arg(pageLeft - sideRight)));
            // The page takes the rest of the window's width.
            const int pageRight = shown->mapTo(c.window.get(), QPoint(shown->width(), 0)).x();
            QVERIFY2(c.window->width() - pageRight <= 24,
                     qPrintable(QStringLiteral("%1: %2 px right of the page")
                                    .arg(c.window->pageNames().at(page))
                                    .arg(c.window->width() - pageRight)));
        }
    }

    // USER and USERNAME unset: the audit log names the account all the same.
    // The page filters, shows an entry in full and opens its object.
    void auditUserFilterDetailLink()
    {
        const QByteArray user = qgetenv("USER");
        const QByteArray username = qgetenv("USERNAME");
        qunsetenv("USER");
        qunsetenv("USERNAME");
        const passwd *pw = getpwuid(geteuid());
        QVERIFY(pw);
        const QString account = QString::fromLocal8Bit(pw->pw_name);
        QCOMPARE(ActionEngine::osUser(), account);

        call(*m_client, {"SET", "sim:lock:a", "aaaa1111", "PX", "60000"});
        call(*m_client, {"SET", "sim:lock:b", "bbbb2222", "PX", "60000"});
        const QString path = m_dir.filePath(QStringLiteral("audit-user.jsonl"));
        Console c(m_server, path);
        QVERIFY(QTest::qWaitForWindowActive(c.window.get()));
        for (const QByteArray &key : {QByteArray("sim:lock:a"), QByteArray("sim:lock:b")}) {
            QVERIFY(select(c, QStringLiteral("lock"), key));
            QString outcome;
            QMetaObject::Connection conn = connect(c.window.get(), &MainWindow::actionFinished,
                                                   this, [&](const QString &m) { outcome = m; });
            QTimer::singleShot(0, this, [] { QVERIFY(answerConfirmation(true)); });
            QVERIFY(c.navigation()->triggerPrimaryAction());
            QTRY_VERIFY_WITH_TIMEOUT(!outcome.isEmpty(), 5000);
            disconnect(conn);
        }
        if (!user.isNull())
            qputenv("USER", user);
        if (!username.isNull())
            qputenv("USERNAME", username);

        auto *page = c.window->findChild<AuditPage *>();
        QTRY_COMPARE_WITH_TIMEOUT(page->table()->rowCount(), 2, 5000);
        c.window->showPage(int(c.window->pageNames().indexOf(QStringLiteral("Audit log"))));
        // Newest first, the full date and time, the account.
        QCOMPARE(page->table()->item(0, 3)->text(), QStringLiteral("sim:lock:b"));
        QVERIFY(QDateTime::fromString(page->table()->item(0, 0)->text(),
                                      QStringLiteral("yyyy-MM-dd HH:mm:ss"))
                    .isValid());
        QCOMPARE(page->table()->item(0, 1)->text(), account);
        // Time, user, action and outcome whole, one line per entry.
        QTableWidget *table = page->table();
        const QFontMetrics metrics(table->font());
        for (int row = 0; row < table->rowCount(); ++row) {
            for (int column : {0, 1, 2, 4}) {
                const QString text = table->item(row, column)->text();
                QVERIFY2(table->columnWidth(column) >= metrics.horizontalAdvance(text) + 4,
                         qPrintable(QStringLiteral("\"%1\" cut at %2 px")
                                        .arg(text)
                                        .arg(table->columnWidth(column))));
            }
            QCOMPARE(table->rowHeight(row), table->verticalHeader()->defaultSectionSize());
            QVERIFY(table->rowHeight(row) < 2 * metrics.height());
        }

        // Ctrl+F reaches the Audit page's own filter.
        c.window->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(c.window.get()));
        QTest::keyClick(c.window.get(), Qt::Key_F, Qt::ControlModifier);
        auto *filter = page->findChild<QLineEdit *>(QStringLiteral("auditFilter"));
        QVERIFY(filter->hasFocus());
        QTest::keyClicks(filter, QStringLiteral("LOCK:A"));
        QCOMPARE(page->visibleRows(), 1);
        QVERIFY(page->table()->isRowHidden(0));

        // The entry in full, pretty-printed; the link opens the lock's page.
        page->table()->selectRow(1);
        const QString detail
            = page->findChild<QPlainTextEdit *>(QStringLiteral("auditDetail"))->toPlainText();
        QVERIFY2(detail.contains(QLatin1String("\"action\": \"lock.force-release\"")),
                 qPrintable(detail));
        QVERIFY(detail.contains(QLatin1Char('\n')));
        auto *open = page->findChild<QPushButton *>(QStringLiteral("auditOpenObject"));
        QVERIFY(open->isEnabled());
        call(*m_client, {"SET", "sim:lock:a", "again-3333", "PX", "60000"}); // back, to be selected
        QTRY_VERIFY_WITH_TIMEOUT(
            c.window->model(QStringLiteral("lock"))->rowOf("sim:lock:a") >= 0
                && !c.window->model(QStringLiteral("lock"))
                        ->index(c.window->model(QStringLiteral("lock"))->rowOf("sim:lock:a"), 0)
                        .data(ObjectTableModel::GoneRole)
                        .toBool(),
            5000);
        open->click();
        QCOMPARE(c.window->currentPage(), c.window->pageOf(QStringLiteral("lock")));
        const ObjectState *s = c.window->sectionPage(QStringLiteral("lock"))->selected();
        QVERIFY(s);
        QCOMPARE(s->object->key, QByteArray("sim:lock:a"));
    }
};

QTEST_MAIN(tst_Navigation)
#include "tst_navigation.moc"
