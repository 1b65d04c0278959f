// SPDX-License-Identifier: MIT
// The demo's private server knows its own endpoint: a reconnect from the
// Connect dialog to it keeps the demo (simulator, profile, badge), and only
// to it. (tst_mainwindow reconnects a demo console through it.)
#include <sim/demoserver.h>

#include <QSignalSpy>
#include <QTest>

using namespace gatehouse;

class tst_DemoServer : public QObject
{
    Q_OBJECT

private slots:
    void servesOnlyItself()
    {
        DemoServer demo;
        QSignalSpy ready(&demo, &DemoServer::ready);
        QSignalSpy failed(&demo, &DemoServer::failed);
        const RedisEndpoint before = demo.endpoint();
        QVERIFY(!demo.serves(before)); // not started
        demo.start();
        QVERIFY2(ready.wait(20000),
                 failed.isEmpty() ? "no answer" : qPrintable(failed.first().first().toString()));
        const RedisEndpoint ep = demo.endpoint();
        QVERIFY(demo.serves(ep));

        // As typed in the dialog: the URL it prefilled, or "localhost".
        QString error;
        auto typed = RedisEndpoint::fromUrl(ep.displayUrl(), &error);
        QVERIFY2(typed, qPrintable(error));
        QVERIFY(demo.serves(*typed));
        typed = RedisEndpoint::fromUrl(QStringLiteral("redis://localhost:%1").arg(ep.port), &error);
        QVERIFY(demo.serves(*typed));

        // Another port, database, host or transport is another server.
        RedisEndpoint other = ep;
        other.port = quint16(ep.port == 65535 ? 65534 : ep.port + 1);
        QVERIFY(!demo.serves(other));
        other = ep;
        other.db = 1;
        QVERIFY(!demo.serves(other));
        other = ep;
        other.host = QStringLiteral("10.0.0.7");
        QVERIFY(!demo.serves(other));
        other = ep;
        other.transport = RedisEndpoint::Transport::Tls;
        QVERIFY(!demo.serves(other));

        // What a console connected there runs: back on the demo's server the
        // demo goes on with its profile unless another was chosen; anywhere
        // else, no demo and the profile chosen.
        DemoServer::Console next = demo.consoleFor(*typed, QString());
        QVERIFY(next.demo);
        QCOMPARE(next.profile, QStringLiteral("demo"));
        next = demo.consoleFor(ep, QStringLiteral("seeds"));
        QVERIFY(next.demo);
        QCOMPARE(next.profile, QStringLiteral("seeds"));
        other = ep;
        other.db = 1;
        next = demo.consoleFor(other, QString());
        QVERIFY(!next.demo);
        QCOMPARE(next.profile, QString());

        demo.stop();
        QVERIFY(!demo.serves(ep));
        QVERIFY(!demo.consoleFor(ep, QString()).demo);
    }
};

QTEST_GUILESS_MAIN(tst_DemoServer)
#include "tst_demoserver.moc"
