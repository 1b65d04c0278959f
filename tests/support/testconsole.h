// SPDX-License-Identifier: MIT
#pragma once

// The console as the GUI tests drive it: a real Deployment (its connections,
// monitor, action engine and reads, made as the console makes them) and main
// window (shown offscreen) on a real server, with the demo profile and a fast
// tick. Header-only: only the GUI tests link the widgets.

#include "redisserver.h"

#include <actions/actionengine.h>
#include <deployment/deployment.h>
#include <mainwindow.h>
#include <monitor/monitor.h>
#include <monitor/profile.h>
#include <objecttablemodel.h>
#include <redis/redisclient.h>

#include <QApplication>
#include <QDialogButtonBox>
#include <QHash>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMessageBox>
#include <QPushButton>
#include <QSize>
#include <QTableView>
#include <QTest>
#include <QTimer>

#include <memory>

namespace gatehouse::test {

// How a test wants its console.
struct TestConsoleOptions
{
    bool readOnly = false;
    QString historyFile;     // empty: no history
    int rescanMs = -1;       // < 0: the monitor's default
    QSize size;              // empty: the window's default
    QString profile;         // a profile's file; empty: the demo's
    bool autodetect = false; // no profile at all: what autodetection finds
    Environment environment; // the window's; unset: none
    // The deployment's alert rules (Deployment::Options::alerts; the window's
    // Alerts page comes with MainWindow::setAlerts); unset: none.
    std::optional<QList<AlertRule>> alerts;
    // Not null: the monitor and its connection run there, as in the console.
    QThread *thread = nullptr;
};

// Accepts the next confirmation box (an action's: its inputs come from what
// the console shows) as soon as it opens; owner ends the watch. typed: what
// the operator types first in the action's form (ActionInputDialog), by
// input id; the form is then accepted with its OK, as the operator does (a
// form whose OK stays disabled is cancelled, its problem in said). said:
// when given, the confirmation's sentence (the action's summary).
inline void acceptNextConfirmation(QObject *owner, const QHash<QString, QString> &typed = {},
                                   QString *said = nullptr)
{
    auto *timer = new QTimer(owner);
    timer->setInterval(10);
    QObject::connect(timer, &QTimer::timeout, timer, [timer, typed, said] {
        QWidget *modal = QApplication::activeModalWidget();
        if (modal && modal->objectName() == QLatin1String("actionInputDialog")) {
            for (auto it = typed.cbegin(); it != typed.cend(); ++it) {
                const QString field = QStringLiteral("input_") + it.key();
                if (auto *edit = modal->findChild<QLineEdit *>(field))
                    edit->setText(it.value());
            }
            auto *buttons = modal->findChild<QDialogButtonBox *>();
            if (buttons->button(QDialogButtonBox::Ok)->isEnabled()) {
                buttons->button(QDialogButtonBox::Ok)->click();
                return;
            }
            if (said) {
                const auto *problem = modal->findChild<QLabel *>(QStringLiteral("inputProblem"));
                *said = QStringLiteral("the form was refused: ")
                        + (problem ? problem->text() : QString());
            }
            buttons->button(QDialogButtonBox::Cancel)->click();
            return;
        }
        auto *box = qobject_cast<QMessageBox *>(modal);
        if (!box)
            return;
        timer->stop();
        if (said)
            *said = box->text();
        box->button(QMessageBox::Ok)->click();
    });
    timer->start();
}

// The Overview's label that counts the objects of a section ("Queues: 2 ·
// Locks: 1"), found by "<title>: "; empty when none says it.
inline QString overviewCounts(const MainWindow &window, const QString &title)
{
    for (QLabel *l : window.findChildren<QLabel *>()) {
        if (l->text().contains(title + QLatin1String(": ")))
            return l->text();
    }
    return {};
}

// The side list's count for a section ("Queues 8" gives "8"); empty when none.
inline QString sideListCount(const MainWindow &window, const QString &title)
{
    auto *side = window.findChild<QListWidget *>(QStringLiteral("sideList"));
    for (int i = 0; side && i < side->count(); ++i) {
        if (side->item(i)->text().startsWith(title))
            return side->item(i)->text().section(QLatin1Char(' '), -1);
    }
    return {};
}

// A console with no profile (what autodetection finds), its window at size
// (empty: the window's default).
inline TestConsoleOptions autodetected(QSize size = {})
{
    TestConsoleOptions o;
    o.autodetect = true;
    o.size = size;
    return o;
}

// The deployment a test's window shows, as the console makes it (its
// monitor from the start, the first connection retried, the actions and the
// window's reads) on endpoint with the demo profile (or o.profile, or none
// with o.autodetect) and a 200 ms tick; not started.
inline std::unique_ptr<Deployment> testDeployment(const RedisEndpoint &endpoint,
                                                  const QString &auditPath,
                                                  const TestConsoleOptions &o = {})
{
    Deployment::Options options;
    options.endpoint = endpoint;
    QString error;
    if (!o.autodetect)
        options.monitor.profile
            = Profile::load(o.profile.isEmpty() ? QStringLiteral("demo") : o.profile, &error);
    options.monitor.intervalMs = 200;
    if (o.rescanMs >= 0)
        options.monitor.rescanMs = o.rescanMs;
    options.historyFile = o.historyFile;
    options.retryFirstConnection = true;
    options.thread = o.thread;
    options.actions = true;
    options.readOnly = o.readOnly;
    options.auditLogPath = auditPath;
    options.alerts = o.alerts;
    return std::make_unique<Deployment>(std::move(options));
}

struct TestConsole
{
    using Options = TestConsoleOptions;

    TestConsole(const RedisEndpoint &endpoint, const QString &auditPath, const Options &o = {})
        : deployment(testDeployment(endpoint, auditPath, o))
    {
        MainWindow::Options windowOptions;
        windowOptions.readOnly = o.readOnly;
        windowOptions.environment = o.environment;
        window = std::make_unique<MainWindow>(deployment.get(), windowOptions);
        if (!o.size.isEmpty())
            window->resize(o.size);
        window->show();
        deployment->start();
    }
    TestConsole(const RedisServer &server, const QString &auditPath, const Options &o = {})
        : TestConsole(server.endpoint(), auditPath, o)
    {}

    // The deployment's monitor (on its thread when Options::thread is set).
    Monitor *monitor() const { return deployment->monitor(); }
    // The actions' connection: what the window's actions and reads use.
    RedisClient &client() const { return *deployment->actionsClient(); }

    // The page named name ("Nodes"), as its class.
    template<typename Page>
    Page *page(const QString &name) const
    {
        return qobject_cast<Page *>(window->page(int(window->pageNames().indexOf(name))));
    }

    // Selects key's row on its section's page once it has been read.
    bool select(const QString &section, const QByteArray &key)
    {
        if (!QTest::qWaitFor(
                [&] {
                    const int row = window->model(section)->rowOf(key);
                    return row >= 0 && window->model(section)->stateAt(row)->reading.atMs > 0;
                },
                10000))
            return false;
        window->showPage(window->pageOf(section));
        QTableView *view = window->table(section);
        for (int row = 0; row < view->model()->rowCount(); ++row) {
            if (view->model()->index(row, 0).data(ObjectTableModel::KeyRole).toByteArray() == key) {
                view->selectRow(row);
                return true;
            }
        }
        return false;
    }

    std::unique_ptr<Deployment> deployment;
    std::unique_ptr<MainWindow> window; // before the deployment it shows goes
};

} // namespace gatehouse::test
