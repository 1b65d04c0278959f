// SPDX-License-Identifier: MIT
#pragma once
// What the console window's tests share: a console on a test server, and an
// operator's hands: select a row, find an action's button, run an action
// through its inputs and confirmation.

#include <actioninputdialog.h>
#include <mainwindow.h>
#include <objecttablemodel.h>

#include "redisserver.h"
#include "testconsole.h"

#include <QApplication>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QTableView>
#include <QTest>
#include <QTimer>

namespace gatehouse::test::windowtest {

// Answers the next modal dialogs once they are up: an action's inputs
// (ActionInputDialog, its fields by input id, "target" for the key), then
// the confirmation (Run or Cancel). The timer goes with the confirmation;
// owner: whoever waits for the outcome (so it never outlives a test).
inline void answerNextDialog(bool accept, const QHash<QString, QString> &inputs = {},
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

// Selects the row of key in a section's table; false if it never shows up.
inline bool select(Console &c, const char *section, const QByteArray &key)
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
inline QPushButton *button(Console &c, const char *name)
{
    auto *b = c.window->findChild<QPushButton *>(QLatin1String(name));
    if (b)
        (void)QTest::qWaitFor([&] { return b->isEnabled(); }, 5000); // the caller checks
    return b;
}

// Clicks an action button, fills in its inputs, answers its
// confirmation, waits for the outcome.
inline QString runAction(Console &c, const char *buttonName, bool accept,
                         const QHash<QString, QString> &inputs = {})
{
    QString outcome;
    QObject owner; // no answering timer outlives this action, no outcome is taken after it
    QObject::connect(c.window.get(), &MainWindow::actionFinished, &owner,
                     [&](const QString &m) { outcome = m; });
    answerNextDialog(accept, inputs, &owner);
    button(c, buttonName)->click();
    (void)QTest::qWaitFor([&] { return !outcome.isEmpty(); }, 5000);
    return outcome;
}

} // namespace gatehouse::test::windowtest
