// SPDX-License-Identifier: MIT
// The demo's console in a real X server (Xvfb, gatehouse-screenshots): it
// runs for a few seconds, every page is captured to PNG in the build
// directory, and the charts carry data and the tables have rows. Nothing is
// left running afterwards. `gatehouse --demo` itself quits on SIGTERM with
// its server.
#include "redisserver.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QTest>

class tst_Screenshots : public QObject
{
    Q_OBJECT

private slots:
    void demoPages()
    {
        const QString dir = QDir::current().filePath(QStringLiteral("screenshots"));
        QDir(dir).removeRecursively();
        QProcess p;
        p.setProcessChannelMode(QProcess::SeparateChannels);
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove(QStringLiteral("QT_QPA_PLATFORM")); // a real X server, not offscreen
        p.setProcessEnvironment(env);
        p.start(QStringLiteral(GATEHOUSE_XVFB_RUN),
                {QStringLiteral("-a"), QStringLiteral("-s"),
                 QStringLiteral("-screen 0 1700x1100x24"), QStringLiteral(GATEHOUSE_SCREENSHOTS),
                 dir, QStringLiteral("8")});
        QVERIFY2(p.waitForFinished(240000), "the screenshot run did not finish in 240 s");
        const QString out = QString::fromUtf8(p.readAllStandardOutput());
        QVERIFY2(p.exitCode() == 0, qPrintable(QString::fromUtf8(p.readAllStandardError())));

        // page=limiters look=1280x800-dark file=... rows=11 whole=9 points=28
        QRegularExpression line(
            QStringLiteral("page=(\\S+) look=(\\d+)x(\\d+)-(\\S+) file=(\\S+) rows=(-?\\d+) "
                           "whole=(-?\\d+) points=(-?\\d+)"));
        QMap<QString, QPair<int, int>> pages;
        QSet<QString> looks;
        auto it = line.globalMatch(out);
        while (it.hasNext()) {
            const auto m = it.next();
            const QImage image(m.captured(5));
            // Every page at both sizes, in both palettes: the window as asked.
            QVERIFY2(!image.isNull(), qPrintable(m.captured(5)));
            QCOMPARE(image.size(), QSize(m.captured(2).toInt(), m.captured(3).toInt()));
            looks.insert(m.captured(2) + QLatin1Char('x') + m.captured(3) + QLatin1Char('-')
                         + m.captured(4));
            pages.insert(m.captured(1), {m.captured(6).toInt(), m.captured(8).toInt()});
            // The list stays a list with a queue's jobs and charts open
            // below it: at least eight rows whole (all, when fewer) at
            // every look.
            if (m.captured(1) == QLatin1String("queues"))
                QVERIFY2(m.captured(7).toInt() >= std::min(8, m.captured(6).toInt()),
                         qPrintable(m.captured(0)));
        }
        QCOMPARE(looks.size(), 4);
        QCOMPARE(pages.keys(), (QStringList{"alerts", "audit-log", "limiters", "locks", "nodes",
                                            "other-keys", "overview", "queues", "semaphores",
                                            "timeline", "tokens", "unconfirmed"}));
        for (const char *table : {"limiters", "locks", "tokens", "queues"})
            QVERIFY2(pages.value(QLatin1String(table)).first > 0, table);
        QVERIFY(pages.value(QStringLiteral("limiters")).second > 0);
        QVERIFY(pages.value(QStringLiteral("queues")).second > 0);
        // The dialogs at 1280x800 in both palettes: Connect, a new token's
        // secret, the confirmation of a reset (cancelled).
        QRegularExpression dialogLine(
            QStringLiteral("dialog=(\\S+) look=(1280x800-\\S+) file=(\\S+) size=(\\d+)x(\\d+)"));
        QMap<QString, int> dialogs;
        auto d = dialogLine.globalMatch(out);
        while (d.hasNext()) {
            const auto m = d.next();
            const QImage image(m.captured(3));
            QVERIFY2(!image.isNull(), qPrintable(m.captured(3)));
            ++dialogs[m.captured(1)];
            // The secret's dialog is wide enough for the secret on one line
            // (it was 233 px, the key wrapped over three).
            if (m.captured(1) == QLatin1String("issued"))
                QVERIFY2(m.captured(4).toInt() >= 400, qPrintable(m.captured(0)));
        }
        QCOMPARE(dialogs.keys(), (QStringList{"confirm", "connect", "issued"}));
        for (int n : std::as_const(dialogs))
            QCOMPARE(n, 2);
        // The demo's redis-server went with it.
        QCOMPARE(QProcess::execute(QStringLiteral("pgrep"), {QStringLiteral("-f"), dir}), 1);
    }

    // SIGTERM (and SIGINT) quit like File > Quit: the demo's private
    // redis-server is stopped with the console, not left behind.
    void demoStopsItsServerOnSigterm()
    {
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        p.setProcessEnvironment(env);
        p.start(QStringLiteral(GATEHOUSE_GUI), {QStringLiteral("--demo")});
        QVERIFY(p.waitForStarted());
        QString server;
        QTRY_VERIFY_WITH_TIMEOUT(
            [&] {
                QProcess pgrep;
                pgrep.start(QStringLiteral("pgrep"),
                            {QStringLiteral("-P"), QString::number(p.processId()),
                             QStringLiteral("redis-server")});
                pgrep.waitForFinished();
                server = QString::fromUtf8(pgrep.readAllStandardOutput()).trimmed();
                return !server.isEmpty();
            }(),
            20000);
        QTest::qWait(1000); // running: monitor, simulator
        p.terminate();      // SIGTERM
        QVERIFY2(p.waitForFinished(20000), "gatehouse did not quit on SIGTERM");
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QCOMPARE(p.exitCode(), 0);
        QVERIFY2(!QFile::exists(QStringLiteral("/proc/") + server),
                 qPrintable(QStringLiteral("redis-server %1 left running").arg(server)));
    }
};

QTEST_GUILESS_MAIN(tst_Screenshots)
#include "tst_screenshots.moc"
