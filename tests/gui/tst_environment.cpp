// SPDX-License-Identifier: MIT
// A connection's environment against a real redis-server, offscreen: the
// label leads the window's title and sits in the status bar in its colour;
// every action's confirmation names it in a line across the top; on
// production Run (and Force) stays disabled until the label is typed back,
// and only then does the action reach Redis; staging needs no typing;
// without an environment the confirmation is as it was. The Connect
// dialog's environment and colour are saved and read back.
#include <confirmactiondialog.h>
#include <connectiondialog.h>
#include <environment.h>
#include <environmentbadge.h>
#include <mainwindow.h>
#include <theme.h>

#include "redisserver.h"
#include "testconsole.h"

#include <QAbstractButton>
#include <QApplication>
#include <QComboBox>
#include <QDialog>
#include <QDir>
#include <QLayout>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>
#include <QStyle>
#include <QStyleFactory>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <functional>
#include <memory>

using namespace gatehouse;
using gatehouse::test::call;
using gatehouse::test::RedisServer;
using gatehouse::test::TestConsole;

namespace {

// Where a run that wants to look at them saves its pictures; empty: none.
QString shotPath(const QString &name)
{
    const QString dir = qEnvironmentVariable("GATEHOUSE_SCREENSHOT_DIR");
    return dir.isEmpty() ? QString() : QDir(dir).filePath(name);
}

// w's rectangle in box's coordinates (a button lies in the button box).
QRect inBox(const QWidget *w, const QWidget *box)
{
    return QRect(w->mapTo(box, QPoint(0, 0)), w->size());
}

QAbstractButton *buttonNamed(QMessageBox *box, const QString &text)
{
    for (QAbstractButton *b : box->buttons()) {
        if (b->text() == text)
            return b;
    }
    return nullptr;
}

// Answers the confirmations as they open, one handler per box in order;
// a handler returns once it has answered. owner ends the watch.
void answerEach(QObject *owner, QList<std::function<void(QMessageBox *)>> handlers)
{
    auto *timer = new QTimer(owner);
    timer->setInterval(10);
    auto pending = std::make_shared<QList<std::function<void(QMessageBox *)>>>(handlers);
    auto answered = std::make_shared<QPointer<QMessageBox>>();
    QObject::connect(timer, &QTimer::timeout, timer, [timer, pending, answered] {
        auto *box = qobject_cast<QMessageBox *>(QApplication::activeModalWidget());
        if (!box || box == *answered || pending->isEmpty())
            return;
        if (!box->isVisible())
            return;
        *answered = box;
        // Laid out as the operator sees it before anything is looked at.
        if (!QTest::qWaitForWindowExposed(box))
            return;
        QCoreApplication::sendPostedEvents(box, QEvent::LayoutRequest);
        pending->takeFirst()(box);
        if (pending->isEmpty())
            timer->stop();
        if (*answered && (*answered)->isVisible()) // a check failed before the answer
            (*answered)->reject();
    });
    timer->start();
}

} // namespace

class tst_Environment : public QObject
{
    Q_OBJECT

private:
    RedisServer m_server;
    std::unique_ptr<RedisClient> m_redis;
    QTemporaryDir m_dir;

    QString audit() const { return m_dir.filePath(QStringLiteral("audit.jsonl")); }

    std::unique_ptr<TestConsole> console(const Environment &environment)
    {
        TestConsole::Options o;
        o.environment = environment;
        o.size = QSize(1280, 800);
        return std::make_unique<TestConsole>(m_server, audit(), o);
    }

    // Clicks an action button once it is enabled and waits for the outcome
    // (the confirmations answered by answerEach).
    QString run(TestConsole &c, const char *buttonName)
    {
        auto *b = c.window->findChild<QPushButton *>(QLatin1String(buttonName));
        if (!b || !QTest::qWaitFor([&] { return b->isEnabled(); }, 5000))
            return QStringLiteral("no enabled %1").arg(QLatin1String(buttonName));
        QString outcome;
        const QMetaObject::Connection conn = connect(c.window.get(), &MainWindow::actionFinished,
                                                     this, [&](const QString &m) { outcome = m; });
        b->click();
        (void)QTest::qWaitFor([&] { return !outcome.isEmpty(); }, 10000);
        disconnect(conn);
        return outcome;
    }

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true); // settings in a test location
        QCoreApplication::setOrganizationName(QStringLiteral("GatehouseTest"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_environment"));
        QSettings().clear();
        QVERIFY2(m_server.start(), qPrintable(m_server.errorString()));
        m_redis = gatehouse::test::connectedClient(m_server);
        QVERIFY(m_redis);
    }

    void init() { QCOMPARE(call(*m_redis, {"FLUSHALL"}).bytes(), QByteArray("OK")); }

    void cleanupTestCase()
    {
        QSettings().clear();
        m_redis.reset();
        m_server.stop();
        QCOMPARE(RedisServer::runningChildren(), 0);
    }

    void labels_data()
    {
        QTest::addColumn<QString>("label");
        QTest::addColumn<bool>("production");
        QTest::addColumn<QString>("colour");
        QTest::newRow("production") << "production" << true << "red";
        QTest::newRow("Prod-EU") << "Prod-EU" << true << "red";
        QTest::newRow("staging") << "staging" << false << "amber";
        QTest::newRow("development") << "development" << false << "green";
        QTest::newRow("qa") << "qa" << false << "grey";
        QTest::newRow("none") << "" << false << "grey";
    }
    void labels()
    {
        QFETCH(QString, label);
        QFETCH(bool, production);
        QFETCH(QString, colour);
        const Environment e = Environment::named(label);
        QCOMPARE(e.isSet(), !label.isEmpty());
        QCOMPARE(e.isProduction(), production);
        QCOMPARE(Environment::colourName(e.colour), colour);
        QCOMPARE(Environment::colourFromName(colour.toUpper()), e.colour);
        QCOMPARE(e.shown(), label.toUpper());
        if (e.isSet()) {
            QVERIFY(e.typedBack(QLatin1Char(' ') + label.toUpper() + QLatin1Char(' ')));
            QVERIFY(!e.typedBack(label.left(label.size() - 1)));
        }
    }

    // Every environment colour reads in both palettes, and a badge follows
    // a switch of palette (View > Palette).
    void badgeColours()
    {
        for (theme::Scheme scheme : {theme::Scheme::Light, theme::Scheme::Dark}) {
            const QPalette p = theme::palette(scheme);
            for (const QString &name : Environment::colourNames()) {
                const theme::Badge b
                    = theme::environmentBadge(*Environment::colourFromName(name), p);
                QVERIFY2(
                    theme::contrast(b.text, b.fill) >= 4.5,
                    qPrintable(
                        QStringLiteral("%1: %2 on %3").arg(name, b.text.name(), b.fill.name())));
            }
        }
        theme::apply(theme::Scheme::Light);
        EnvironmentBadge badge(Environment::named(QStringLiteral("production")));
        badge.show();
        const QPalette light = theme::palette(theme::Scheme::Light);
        QCOMPARE(badge.colours().fill,
                 theme::environmentBadge(Environment::Colour::Red, light).fill);
        theme::apply(theme::Scheme::Dark);
        const QPalette dark = theme::palette(theme::Scheme::Dark);
        QTRY_COMPARE(badge.colours().fill,
                     theme::environmentBadge(Environment::Colour::Red, dark).fill);
        theme::apply(theme::Scheme::Light);
        QTRY_COMPARE(badge.colours().fill,
                     theme::environmentBadge(Environment::Colour::Red, light).fill);
    }

    void titleAndBadge()
    {
        auto c = console(Environment::named(QStringLiteral("production")));
        QVERIFY(QTest::qWaitForWindowExposed(c->window.get()));
        const QString url = m_server.endpoint().displayUrl();
        QCOMPARE(c->window->windowTitle(), QStringLiteral("[PRODUCTION] %1").arg(url));
        auto *badge = c->window->statusBar()->findChild<EnvironmentBadge *>(
            QStringLiteral("environmentBadge"));
        QVERIFY(badge);
        QVERIFY(badge->isVisible());
        QCOMPARE(badge->text(), QStringLiteral("PRODUCTION"));
        QCOMPARE(badge->colours().fill,
                 theme::environmentBadge(Environment::Colour::Red, QApplication::palette()).fill);
        QCOMPARE(environmentOf(c->window.get()).label, QStringLiteral("production"));
        QCOMPARE(connectionOf(c->window.get()), url);
        if (const QString path = shotPath(QStringLiteral("environment-window.png"));
            !path.isEmpty())
            c->window->grab().save(path);

        // A colour chosen for it is the badge's.
        auto blue = console({QStringLiteral("staging"), Environment::Colour::Blue});
        auto *blueBadge = blue->window->statusBar()->findChild<EnvironmentBadge *>(
            QStringLiteral("environmentBadge"));
        QVERIFY(blueBadge);
        QCOMPARE(blueBadge->text(), QStringLiteral("STAGING"));
        QCOMPARE(blueBadge->colours().fill,
                 theme::environmentBadge(Environment::Colour::Blue, QApplication::palette()).fill);
    }

    // Force release on production: the line names the environment and the
    // server, Run waits for the word (a wrong one, or Enter, does nothing),
    // and the lock is released only after it.
    void productionAsksForTheWord()
    {
        call(*m_redis, {"SET", "sim:lock:1", "a1b2c3d4e5f6", "PX", "60000"});
        auto c = console(Environment::named(QStringLiteral("production")));
        QVERIFY(c->select(QStringLiteral("lock"), "sim:lock:1"));
        const QString url = m_server.endpoint().displayUrl();
        QObject owner;
        bool checked = false;
        answerEach(&owner, {[&](QMessageBox *box) {
            auto *line
                = box->findChild<EnvironmentBadge *>(QStringLiteral("confirmEnvironmentLine"));
            auto *typed = box->findChild<QLineEdit *>(QStringLiteral("confirmEnvironment"));
            QAbstractButton *runButton = box->button(QMessageBox::Ok);
            QVERIFY(line && typed && runButton);
            QVERIFY(line->isVisible());
            if (const QString path = shotPath(QStringLiteral("confirm-production-empty.png"));
                !path.isEmpty())
                box->grab().save(path);
            QCOMPARE(line->text(), QStringLiteral("PRODUCTION — %1").arg(url));
            QVERIFY(box->windowTitle().startsWith(QLatin1String("[PRODUCTION] ")));
            // Above everything else, across the box.
            for (QWidget *w : {static_cast<QWidget *>(runButton),
                               box->findChild<QWidget *>(QStringLiteral("confirmSummary"))})
                QVERIFY(inBox(line, box).bottom() < inBox(w, box).top());
            QVERIFY(inBox(line, box).width() > box->width() / 2);
            QVERIFY(typed->isVisible());
            QVERIFY(inBox(typed, box).bottom() < inBox(runButton, box).top());
            QVERIFY(box->rect().contains(inBox(typed, box)));
            QCOMPARE(box->defaultButton(), box->button(QMessageBox::Cancel));
            QVERIFY(!runButton->isEnabled());
            typed->setText(QStringLiteral("staging"));
            QVERIFY(!runButton->isEnabled());
            typed->setText(QStringLiteral("productio"));
            QVERIFY(!runButton->isEnabled());
            // Enter in the field neither runs nor cancels.
            typed->setFocus();
            QTest::keyClick(typed, Qt::Key_Return);
            QVERIFY(box->isVisible());
            runButton->click(); // disabled: nothing
            QVERIFY(box->isVisible());
            QCOMPARE(call(*m_redis, {"EXISTS", "sim:lock:1"}).toInteger(), 1);
            typed->setText(QStringLiteral(" Production "));
            QVERIFY(runButton->isEnabled());
            if (const QString path = shotPath(QStringLiteral("confirm-production.png"));
                !path.isEmpty())
                box->grab().save(path);
            checked = true;
            runButton->click();
        }});
        const QString outcome = run(*c, "forceReleaseButton");
        QVERIFY(checked);
        QVERIFY2(outcome.startsWith(QLatin1String("Released")), qPrintable(outcome));
        QCOMPARE(call(*m_redis, {"EXISTS", "sim:lock:1"}).toInteger(), 0);
    }

    // Cancel after a wrong word: nothing is sent.
    void productionCancelSendsNothing()
    {
        call(*m_redis, {"SET", "sim:lock:1", "a1b2c3d4e5f6", "PX", "60000"});
        auto c = console(Environment::named(QStringLiteral("production")));
        QVERIFY(c->select(QStringLiteral("lock"), "sim:lock:1"));
        QObject owner;
        answerEach(&owner, {[](QMessageBox *box) {
            box->findChild<QLineEdit *>(QStringLiteral("confirmEnvironment"))
                ->setText(QStringLiteral("prod"));
            box->button(QMessageBox::Cancel)->click();
        }});
        QCOMPARE(run(*c, "forceReleaseButton"), QStringLiteral("Cancelled: nothing was sent."));
        QCOMPARE(call(*m_redis, {"EXISTS", "sim:lock:1"}).toInteger(), 1);
    }

    // A refused reset forced on production: the refusal's Force and the
    // forced call's own confirmation each wait for the word.
    void productionForceAsksForTheWord()
    {
        call(*m_redis, {"ZADD", "sim:rl:api:1", "1", "alice", "2", "bob"});
        auto c = console(Environment::named(QStringLiteral("production")));
        QVERIFY(c->select(QStringLiteral("limiter"), "sim:rl:api:1"));
        QObject owner;
        QStringList seen;
        const auto typeAndPress = [&](QMessageBox *box, QAbstractButton *press) {
            seen << box->objectName();
            QVERIFY(box->findChild<EnvironmentBadge *>(QStringLiteral("confirmEnvironmentLine")));
            auto *typed = box->findChild<QLineEdit *>(QStringLiteral("confirmEnvironment"));
            QVERIFY(typed);
            QVERIFY(!press->isEnabled());
            typed->setText(QStringLiteral("production"));
            QVERIFY(press->isEnabled());
            press->click();
        };
        answerEach(&owner,
                   {[&](QMessageBox *box) { typeAndPress(box, box->button(QMessageBox::Ok)); },
                    [&](QMessageBox *box) {
                        QAbstractButton *force = buttonNamed(box, QStringLiteral("Force"));
                        QVERIFY(force);
                        if (const QString path
                            = shotPath(QStringLiteral("confirm-force-production.png"));
                            !path.isEmpty())
                            box->grab().save(path);
                        typeAndPress(box, force);
                    },
                    [&](QMessageBox *box) {
                        typeAndPress(box, box->button(QMessageBox::Ok));
                    }});
        const QString outcome = run(*c, "resetLimiterButton");
        QCOMPARE(seen, (QStringList{QStringLiteral("confirmAction"), QStringLiteral("forceAction"),
                                    QStringLiteral("confirmAction")}));
        QVERIFY2(outcome.startsWith(QLatin1String("Deleted 1")), qPrintable(outcome));
        QCOMPARE(call(*m_redis, {"EXISTS", "sim:rl:api:1"}).toInteger(), 0);
    }

    // Staging: the line, no word to type.
    void stagingShowsTheLineOnly()
    {
        call(*m_redis, {"SET", "sim:lock:1", "a1b2c3d4e5f6", "PX", "60000"});
        auto c = console(Environment::named(QStringLiteral("staging")));
        QVERIFY(c->select(QStringLiteral("lock"), "sim:lock:1"));
        QObject owner;
        bool checked = false;
        answerEach(&owner, {[&](QMessageBox *box) {
            auto *line
                = box->findChild<EnvironmentBadge *>(QStringLiteral("confirmEnvironmentLine"));
            QVERIFY(line);
            QVERIFY(line->isVisible());
            QVERIFY(line->text().startsWith(QStringLiteral("STAGING — ")));
            QCOMPARE(
                line->colours().fill,
                theme::environmentBadge(Environment::Colour::Amber, QApplication::palette()).fill);
            QVERIFY(!box->findChild<QLineEdit *>(QStringLiteral("confirmEnvironment")));
            QVERIFY(box->button(QMessageBox::Ok)->isEnabled());
            checked = true;
            box->button(QMessageBox::Ok)->click();
        }});
        const QString outcome = run(*c, "forceReleaseButton");
        QVERIFY(checked);
        QVERIFY2(outcome.startsWith(QLatin1String("Released")), qPrintable(outcome));
        QCOMPARE(call(*m_redis, {"EXISTS", "sim:lock:1"}).toInteger(), 0);
    }

    // No environment: no badge, no line, no field, the title as before.
    void noEnvironmentAsBefore()
    {
        call(*m_redis, {"SET", "sim:lock:1", "a1b2c3d4e5f6", "PX", "60000"});
        auto c = console(Environment());
        // The URL alone: Qt adds " — Gatehouse" (the display name) once.
        QCOMPARE(c->window->windowTitle(), m_server.endpoint().displayUrl());
        QVERIFY(!c->window->findChild<EnvironmentBadge *>());
        QVERIFY(c->select(QStringLiteral("lock"), "sim:lock:1"));
        QObject owner;
        bool checked = false;
        answerEach(&owner, {[&](QMessageBox *box) {
            QVERIFY(!box->findChild<EnvironmentBadge *>());
            QVERIFY(!box->findChild<QLineEdit *>(QStringLiteral("confirmEnvironment")));
            QVERIFY(box->windowTitle().startsWith(QLatin1String("Confirm: ")));
            QVERIFY(box->button(QMessageBox::Ok)->isEnabled());
            checked = true;
            box->button(QMessageBox::Ok)->click();
        }});
        const QString outcome = run(*c, "forceReleaseButton");
        QVERIFY(checked);
        QVERIFY2(outcome.startsWith(QLatin1String("Released")), qPrintable(outcome));
    }

    // A style change lays QMessageBox out again: the line and the field are
    // put back in their places, and the gate still holds.
    void styleChangeKeepsTheLine()
    {
        QWidget window;
        markWindow(&window, Environment::named(QStringLiteral("production")),
                   QStringLiteral("redis://10.0.0.5:6379"));
        ScriptCall call;
        call.action = QStringLiteral("lock.force-release");
        call.title = QStringLiteral("Force release");
        call.script = QStringLiteral("lock_release");
        call.keys = {"orders:lock"};
        call.args = {"t-1"};
        call.summary = QStringLiteral("Delete lock \"orders:lock\".");
        ConfirmActionDialog dialog(call, &window);
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        std::unique_ptr<QStyle> windows(QStyleFactory::create(QStringLiteral("Windows")));
        QVERIFY(windows);
        dialog.setStyle(windows.get());
        QTest::qWait(50);
        auto *line = dialog.findChild<QWidget *>(QStringLiteral("confirmEnvironmentLine"));
        auto *typed = dialog.findChild<QLineEdit *>(QStringLiteral("confirmEnvironment"));
        QVERIFY(line && typed);
        for (QWidget *w : {line, typed->parentWidget()}) {
            QVERIFY(dialog.layout()->indexOf(w) >= 0);
            QVERIFY(w->isVisible());
        }
        QVERIFY(
            inBox(line, &dialog).bottom()
            < inBox(dialog.findChild<QWidget *>(QStringLiteral("confirmSummary")), &dialog).top());
        QVERIFY(inBox(typed, &dialog).bottom()
                < inBox(dialog.button(QMessageBox::Ok), &dialog).top());
        QVERIFY(!dialog.button(QMessageBox::Ok)->isEnabled());
        QVERIFY(!dialog.environmentConfirmed());
        typed->setText(QStringLiteral("production"));
        QVERIFY(dialog.button(QMessageBox::Ok)->isEnabled());
        QVERIFY(dialog.environmentConfirmed());
        dialog.setStyle(nullptr);
    }

    // A confirmation outside a marked window (no parent) is unmarked, and
    // one from a dialog of a marked window finds the window's mark.
    void markFoundThroughDialogs()
    {
        QWidget window;
        markWindow(&window, Environment::named(QStringLiteral("production")),
                   QStringLiteral("redis://10.0.0.5:6379"));
        QDialog dialog(&window);
        QLineEdit inDialog(&dialog);
        QCOMPARE(environmentOf(&inDialog).label, QStringLiteral("production"));
        QCOMPARE(connectionOf(&inDialog), QStringLiteral("redis://10.0.0.5:6379"));
        QVERIFY(!environmentOf(nullptr).isSet());
        QWidget unmarked;
        QVERIFY(!environmentOf(&unmarked).isSet());
    }

    // The Connect dialog: presets take their colours, a colour chosen stays,
    // and the environment is saved and read back with the connection.
    void connectionDialogRoundTrip()
    {
        ConnectionDialog dialog;
        auto *label = dialog.findChild<QComboBox *>(QStringLiteral("environment"));
        auto *colour = dialog.findChild<QComboBox *>(QStringLiteral("environmentColour"));
        QVERIFY(label && colour);
        QVERIFY(!dialog.settings().environment.isSet());
        QVERIFY(!colour->isEnabled());
        label->setCurrentIndex(label->findText(QStringLiteral("production")));
        QCOMPARE(dialog.settings().environment.label, QStringLiteral("production"));
        QCOMPARE(dialog.settings().environment.colour, Environment::Colour::Red);
        QVERIFY(colour->isEnabled());
        label->setCurrentIndex(label->findText(QStringLiteral("staging")));
        QCOMPARE(dialog.settings().environment.colour, Environment::Colour::Amber);
        // A colour of the operator's own is kept when the label changes.
        colour->setCurrentIndex(colour->findData(QStringLiteral("blue")));
        label->setEditText(QStringLiteral("prod-eu"));
        QCOMPARE(dialog.settings().environment.label, QStringLiteral("prod-eu"));
        QCOMPARE(dialog.settings().environment.colour, Environment::Colour::Blue);
        QVERIFY(dialog.settings().environment.isProduction());
        label->setCurrentIndex(0); // (none)
        QVERIFY(!dialog.settings().environment.isSet());

        ConnectionSettings saved;
        saved.name = QStringLiteral("orders eu");
        saved.url = QStringLiteral("redis://10.0.0.5:6379");
        saved.environment = {QStringLiteral("production"), Environment::Colour::Amber};
        dialog.setSettings(saved);
        QCOMPARE(dialog.settings().environment, saved.environment);
        ConnectionStore::save(dialog.settings());
        ConnectionSettings plain;
        plain.name = QStringLiteral("cache");
        ConnectionStore::save(plain);
        const QList<ConnectionSettings> all = ConnectionStore::saved();
        QCOMPARE(all.size(), 2);
        for (const ConnectionSettings &c : all) {
            if (c.name == saved.name)
                QCOMPARE(c.environment, saved.environment);
            else
                QVERIFY(!c.environment.isSet());
        }
        // A free label round-trips as typed, in its own colour.
        saved.environment = {QStringLiteral("QA-2"), Environment::Colour::Green};
        ConnectionStore::save(saved);
        for (const ConnectionSettings &c : ConnectionStore::saved()) {
            if (c.name == saved.name)
                QCOMPARE(c.environment, saved.environment);
        }
        ConnectionDialog again;
        again.setSettings(saved);
        QCOMPARE(again.findChild<QComboBox *>(QStringLiteral("environment"))->currentText(),
                 QStringLiteral("QA-2"));
        QCOMPARE(again.settings().environment, saved.environment);
        ConnectionStore::remove(saved.name);
        ConnectionStore::remove(plain.name);
    }
};

QTEST_MAIN(tst_Environment)
#include "tst_environment.moc"
