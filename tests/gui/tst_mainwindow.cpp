// SPDX-License-Identifier: MIT
#include <mainwindow.h>
#include <redis/redisclient.h>

#include "redisserver.h"

#include <QLabel>
#include <QStatusBar>
#include <QTest>

using namespace gatehouse;
using gatehouse::test::RedisServer;

class tst_MainWindow : public QObject
{
    Q_OBJECT

private slots:
    void cleanupTestCase() { QCOMPARE(RedisServer::runningChildren(), 0); }

    // The window follows the connection without ever waiting on it.
    void showsConnectionState()
    {
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        RedisClient client(server.endpoint());
        MainWindow window(&client);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(window.windowTitle().contains(server.endpoint().address()));
        client.open();
        auto *label = window.statusBar()->findChild<QLabel *>();
        QVERIFY(label);
        QTRY_COMPARE(label->text(), QStringLiteral("Connected"));

        server.kill();
        QTRY_COMPARE(label->text(), QStringLiteral("Reconnecting…"));
        QVERIFY(server.start());
        QTRY_COMPARE_WITH_TIMEOUT(label->text(), QStringLiteral("Connected"), 3000);
    }
};

QTEST_MAIN(tst_MainWindow)
#include "tst_mainwindow.moc"
