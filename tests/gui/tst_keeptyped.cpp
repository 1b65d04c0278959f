// SPDX-License-Identifier: MIT
// Forms keep what was typed: an action's form cancelled, or its confirmation
// cancelled, opens again with the same fields for the same action on the same
// object (and empty for another object); nothing is written meanwhile. Against
// a real redis-server, the real window offscreen.
#include <actioninputdialog.h>

#include "redisserver.h"
#include "testconsole.h"

#include <QApplication>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

using namespace gatehouse;
using gatehouse::test::call;
using gatehouse::test::RedisServer;
using gatehouse::test::TestConsole;

namespace {

// What the next action form holds when it opens (by input id), after which
// `type` is typed into it and it is accepted or cancelled; then, if it was
// accepted, the confirmation is cancelled.
struct FormStep
{
    QHash<QString, QString> type;
    bool acceptForm = true;
};

QHash<QString, QString> runForm(QPushButton *button, const FormStep &step, bool *confirmSeen)
{
    QHash<QString, QString> found;
    bool formDone = false;
    bool done = false;
    *confirmSeen = false;
    QTimer timer;
    timer.setInterval(10);
    QObject::connect(&timer, &QTimer::timeout, [&] {
        QWidget *modal = QApplication::activeModalWidget();
        if (auto *form = qobject_cast<ActionInputDialog *>(modal); form && !formDone) {
            for (QLineEdit *edit : form->findChildren<QLineEdit *>()) {
                if (edit->objectName().startsWith(QLatin1String("input_")))
                    found.insert(edit->objectName().mid(6), edit->text());
            }
            for (auto it = step.type.cbegin(); it != step.type.cend(); ++it)
                form->findChild<QLineEdit *>(QStringLiteral("input_") + it.key())
                    ->setText(it.value());
            formDone = true;
            if (step.acceptForm) {
                form->accept();
            } else {
                form->reject();
                done = true;
            }
            return;
        }
        if (auto *box = qobject_cast<QMessageBox *>(modal); box && formDone) {
            *confirmSeen = true;
            box->button(QMessageBox::Cancel)->click();
            done = true;
        }
    });
    timer.start();
    button->click();
    QTest::qWaitFor([&] { return done; }, 10000);
    if (!done)
        qWarning("no form or confirmation answered; modal: %s",
                 QApplication::activeModalWidget()
                     ? QApplication::activeModalWidget()->metaObject()->className()
                     : "none");
    return found;
}

} // namespace

class tst_KeepTyped : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase() { QVERIFY2(m_server.start(), qPrintable(m_server.errorString())); }
    void cleanupTestCase() { m_server.stop(); }

    // Issuing a token: three typed fields survive a cancelled confirmation
    // and a cancelled form.
    void issueFormKeepsWhatWasTyped()
    {
        QTemporaryDir dir;
        TestConsole c(m_server, dir.filePath(QStringLiteral("audit.jsonl")));
        auto client = gatehouse::test::connectedClient(m_server);
        QVERIFY(client);
        c.window->showPage(c.window->pageOf(QStringLiteral("token")));
        auto *issue = c.window->findChild<QPushButton *>(QStringLiteral("issueTokenButton"));
        QVERIFY(issue);
        QTRY_VERIFY(issue->isEnabled()); // once the console has read the server
        bool confirmed = false;
        const QHash<QString, QString> first
            = runForm(issue,
                      {{{QStringLiteral("target"), QStringLiteral("sim:code:")},
                        {QStringLiteral("ttl"), QStringLiteral("60")},
                        {QStringLiteral("value"), QStringLiteral("{\"user\": 7}")}}},
                      &confirmed);
        QVERIFY2(confirmed, qPrintable(c.window->lastOutcome()));
        QCOMPARE(first.value(QStringLiteral("ttl")), QString());
        // Opened again: as typed. Then the TTL changed and the form cancelled.
        const QHash<QString, QString> second
            = runForm(issue, {{{QStringLiteral("ttl"), QStringLiteral("120")}}, false}, &confirmed);
        QVERIFY(!confirmed);
        QCOMPARE(second.value(QStringLiteral("target")), QStringLiteral("sim:code:"));
        QCOMPARE(second.value(QStringLiteral("ttl")), QStringLiteral("60"));
        QCOMPARE(second.value(QStringLiteral("value")), QStringLiteral("{\"user\": 7}"));
        const QHash<QString, QString> third = runForm(issue, {{}, false}, &confirmed);
        QCOMPARE(third.value(QStringLiteral("ttl")), QStringLiteral("120"));
        QCOMPARE(third.value(QStringLiteral("value")), QStringLiteral("{\"user\": 7}"));
        QCOMPARE(call(*client, {"DBSIZE"}).toInteger(), 0); // nothing was sent
    }

    // Extending a lock: what was typed for one lock is that lock's; another
    // lock's form starts empty.
    void typedIsPerObject()
    {
        auto client = gatehouse::test::connectedClient(m_server);
        QVERIFY(client);
        call(*client, {"FLUSHALL"});
        call(*client, {"SET", "sim:lock:a", "tok-a", "PX", "600000"});
        call(*client, {"SET", "sim:lock:b", "tok-b", "PX", "600000"});
        QTemporaryDir dir;
        TestConsole c(m_server, dir.filePath(QStringLiteral("audit.jsonl")));
        auto *extend = c.window->findChild<QPushButton *>(QStringLiteral("extendButton"));
        QVERIFY(extend);
        bool confirmed = false;
        QVERIFY(c.select(QStringLiteral("lock"), "sim:lock:a"));
        QTRY_VERIFY(extend->isEnabled());
        runForm(extend, {{{QStringLiteral("ttl"), QStringLiteral("90000")}}}, &confirmed);
        QVERIFY(confirmed);
        QVERIFY(c.select(QStringLiteral("lock"), "sim:lock:b"));
        QCOMPARE(runForm(extend, {{}, false}, &confirmed).value(QStringLiteral("ttl")), QString());
        QVERIFY(c.select(QStringLiteral("lock"), "sim:lock:a"));
        QCOMPARE(runForm(extend, {{}, false}, &confirmed).value(QStringLiteral("ttl")),
                 QStringLiteral("90000"));
        // Nothing was extended.
        QVERIFY(call(*client, {"PTTL", "sim:lock:a"}).toInteger() <= 600000);
        QCOMPARE(call(*client, {"GET", "sim:lock:a"}).bytes(), QByteArray("tok-a"));
    }

private:
    RedisServer m_server;
};

QTEST_MAIN(tst_KeepTyped)
#include "tst_keeptyped.moc"
