// SPDX-License-Identifier: MIT
// A restart that lost every key is not "all clear": the real window (a real
// server, stopped and started again with no persistence) says so in its
// banner, with the keys before and after, until the operator dismisses it;
// what was shown is read again and the locks it held show as gone.
#include "testconsole.h"

#include <QPushButton>
#include <QTemporaryDir>

using namespace gatehouse;
using gatehouse::test::call;
using gatehouse::test::RedisServer;
using gatehouse::test::TestConsole;

class tst_WorldBanner : public QObject
{
    Q_OBJECT

private slots:
    void cleanupTestCase() { QCOMPARE(RedisServer::runningChildren(), 0); }

    void restartWithoutPersistence()
    {
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        {
            auto client = gatehouse::test::connectedClient(server);
            QVERIFY(client);
            for (int i = 0; i < 5; ++i)
                call(*client, {"SET", "sim:lock:" + QByteArray::number(i),
                               "holder-" + QByteArray::number(i * 7919), "PX", "600000"});
            for (int i = 0; i < 20; ++i)
                call(*client, {"SET", "page:" + QByteArray::number(i), "cached"});
        }
        QTemporaryDir dir;
        TestConsole c(server, dir.filePath(QStringLiteral("audit.jsonl")));
        QVERIFY(QTest::qWaitForWindowExposed(c.window.get()));
        const auto heldLocks = [&] {
            int held = 0;
            if (const auto s = c.window->snapshot()) {
                for (const ObjectState &o : s->objects)
                    held += o.object.key.startsWith("sim:lock:") && !o.gone && !o.stale ? 1 : 0;
            }
            return held;
        };
        QTRY_COMPARE_WITH_TIMEOUT(heldLocks(), 5, 10000);
        QCOMPARE(c.window->bannerText(), QString());

        server.stop(); // no persistence: everything is gone
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        QTRY_VERIFY_WITH_TIMEOUT(c.window->bannerText().contains(QLatin1String("restarted")),
                                 15000);
        const QString text = c.window->bannerText();
        QVERIFY2(text.contains(QStringLiteral("25 keys → 0")), qPrintable(text));
        QVERIFY2(text.contains(QLatin1String("not persisted")), qPrintable(text));
        // The locks it held are not shown as held once read again.
        QTRY_COMPARE_WITH_TIMEOUT(heldLocks(), 0, 5000);
        QTRY_VERIFY_WITH_TIMEOUT(c.window->bannerText().contains(QLatin1String("read again")),
                                 5000);
        // Dismissed: gone, and not back with the next snapshot.
        QPushButton *dismiss = nullptr;
        for (QPushButton *b : c.window->findChildren<QPushButton *>()) {
            if (b->text() == QLatin1String("Dismiss") && b->isVisible())
                dismiss = b;
        }
        QVERIFY(dismiss);
        dismiss->click();
        QCOMPARE(c.window->bannerText(), QString());
        QTest::qWait(600);
        QCOMPARE(c.window->bannerText(), QString());
    }
};

QTEST_MAIN(tst_WorldBanner)
#include "tst_worldbanner.moc"
