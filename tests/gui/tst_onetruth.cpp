// SPDX-License-Identifier: MIT
// One truth per figure in the main window (offscreen): under the simulator's
// traffic on a real redis-server, the Overview's header and the side list say
// the same count for every section at any moment.
#include <mainwindow.h>
#include <patterns/patternregistry.h>
#include <redis/redisclient.h>
#include <sim/simulator.h>

#include "redisserver.h"
#include "testconsole.h"

#include <QElapsedTimer>
#include <QLabel>
#include <QListWidget>
#include <QTemporaryDir>
#include <QTest>

using namespace gatehouse;
using gatehouse::test::call;
using gatehouse::test::RedisServer;
using gatehouse::test::TestConsole;

class tst_OneTruth : public QObject
{
    Q_OBJECT

private slots:
    // Under the simulator's traffic, the Overview's header and the side list
    // say the same count for every section whenever the window is looked at:
    // both come from one snapshot at one moment.
    void overviewAndSideListAgreeAtEveryMoment()
    {
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        std::unique_ptr<RedisClient> redis = gatehouse::test::connectedClient(server);
        QVERIFY(redis);
        RedisClient simClient(server.endpoint());
        Simulator sim(&simClient, Simulator::Options());
        simClient.open();
        sim.start();
        // Its structures are there before the console's first scan.
        QTRY_VERIFY_WITH_TIMEOUT(call(*redis, {"EXISTS", "sim:jobs:mail"}).toInteger() == 1, 10000);
        QTest::qWait(1000);
        QTemporaryDir dir;
        TestConsole c(server, dir.filePath(QStringLiteral("audit.jsonl")));
        c.window->showPage(0);
        auto *side = c.window->findChild<QListWidget *>(QStringLiteral("sideList"));
        QVERIFY(side);
        const auto header = [&]() -> QString {
            for (QLabel *l : c.window->findChildren<QLabel *>()) {
                if (l->text().contains(QLatin1String("Locks: ")))
                    return l->text();
            }
            return {};
        };
        QTRY_VERIFY2_WITH_TIMEOUT(header().contains(QLatin1String("Queues: 2")),
                                  qPrintable(header()), 10000);
        int compared = 0;
        QElapsedTimer watching;
        watching.start();
        while (watching.elapsed() < 6000) {
            QTest::qWait(97); // any moment, not the window's own tick
            const QString said = header();
            for (const Section &section : PatternRegistry::instance().sections()) {
                for (int i = 0; i < side->count(); ++i) {
                    const QString item = side->item(i)->text();
                    if (!item.startsWith(section.title + QLatin1Char(' ')))
                        continue;
                    const QString count = item.section(QLatin1Char(' '), -1);
                    QVERIFY2(said.contains(QStringLiteral("%1: %2").arg(section.title, count)),
                             qPrintable(item + QLatin1String(" beside ") + said));
                    ++compared;
                }
            }
        }
        QVERIFY(compared > 100);
        sim.stop();
    }
};

QTEST_MAIN(tst_OneTruth)
#include "tst_onetruth.moc"
