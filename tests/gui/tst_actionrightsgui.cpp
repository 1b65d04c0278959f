// SPDX-License-Identifier: MIT
// The console knows the connected user's rights before a click: against a
// real redis-server with ACL users, a lock's release and extend buttons are
// disabled for a user whose ACL lets it read the lock's key but not write
// it, with a tooltip that names the user and what to grant (where EVAL_RO is
// refused, as before Redis 7.0, for the script call on its keys); a user with
// the rights, or one whose server cannot say, keeps them enabled; a grant
// takes effect after a reconnect; and asking acts on nothing. The job
// browser's verbs are asked the same way: on a real BullMQ queue (npm
// bullmq) a user who may only read it sees Purge disabled with why.
#include <actions/actionengine.h>
#include <mainwindow.h>
#include <sectionpage.h>

#include "commandstats.h"
#include "redisserver.h"
#include "testconsole.h"

#include <QComboBox>
#include <QProcess>
#include <QPushButton>
#include <QTabBar>
#include <QTemporaryDir>
#include <QTest>

using namespace gatehouse;
using gatehouse::test::call;
using gatehouse::test::RedisServer;
using gatehouse::test::TestConsole;

namespace {

const QByteArray LockKey = "sim:lock:orders";
const QString LibrariesDir = QStringLiteral(GATEHOUSE_LIBRARIES_DIR);

} // namespace

class tst_ActionRightsGui : public QObject
{
    Q_OBJECT

private:
    std::unique_ptr<RedisServer> m_server;
    std::unique_ptr<RedisClient> m_admin;
    QTemporaryDir m_dir;

    RedisEndpoint as(const QString &user) const
    {
        RedisEndpoint ep = m_server->endpoint();
        ep.user = user;
        ep.password = QStringLiteral("pw");
        return ep;
    }

    static QPushButton *button(TestConsole &c, const char *name)
    {
        return c.window->sectionPage(QStringLiteral("lock"))
            ->findChild<QPushButton *>(QLatin1String(name));
    }

private slots:
    void initTestCase()
    {
        RedisServer::Options options;
        options.config << QStringLiteral("user default on nopass ~* &* +@all")
                       << QStringLiteral("user locker on >pw ~* &* +@all")
                       << QStringLiteral("user lockreader on >pw %R~sim:lock:* ~sim:other:* &* "
                                         "+@all")
                       << QStringLiteral("user noevalro on >pw ~* &* +@all -eval_ro")
                       << QStringLiteral("user noevalroreader on >pw %R~sim:lock:* ~sim:other:* "
                                         "&* +@all -eval_ro")
                       << QStringLiteral("user queuereader on >pw %R~bull:* &* +@all");
        m_server = std::make_unique<RedisServer>(options);
        QVERIFY2(m_server->start(), qPrintable(m_server->errorString()));
        m_admin = gatehouse::test::connectedClient(*m_server);
        QVERIFY(m_admin);
    }

    void init()
    {
        call(*m_admin,
             {"ACL", "SETUSER", "lockreader", "resetkeys", "%R~sim:lock:*", "~sim:other:*"});
        QCOMPARE(call(*m_admin, {"SET", LockKey, "holder-A", "PX", "600000"}).bytes(),
                 QByteArray("OK"));
    }

    void cleanupTestCase()
    {
        m_admin.reset();
        m_server.reset();
        QCOMPARE(RedisServer::runningChildren(), 0);
    }

    // Read access only: shown, but every action on it is disabled with why.
    void refusedUserSeesWhyBeforeClicking()
    {
        const qint64 checksBefore = gatehouse::test::commandStat(*m_admin, "eval_ro");
        const QString audit = m_dir.filePath(QStringLiteral("refused.jsonl"));
        TestConsole c(as(QStringLiteral("lockreader")), audit);
        QVERIFY(c.select(QStringLiteral("lock"), LockKey));
        for (const char *name : {"forceReleaseButton", "extendButton"}) {
            QPushButton *b = button(c, name);
            QVERIFY2(b, name);
            QTRY_VERIFY2_WITH_TIMEOUT(!b->isEnabled(), qPrintable(b->toolTip()), 10000);
            const QString tip = b->toolTip();
            QVERIFY2(tip.startsWith(QLatin1String("Your Redis user may not run this.")),
                     qPrintable(tip));
            QVERIFY2(tip.contains(QLatin1String("\"lockreader\"")), qPrintable(tip));
            QVERIFY2(tip.contains(QLatin1String("ACL SETUSER lockreader")), qPrintable(tip));
            QVERIFY2(tip.contains(QString::fromLatin1(LockKey)), qPrintable(tip));
            QVERIFY2(!tip.contains(QLatin1String("Nothing was sent")), qPrintable(tip));
        }
        // The server was asked (EVAL_RO of the rights check); no action was
        // attempted (the audit log records every attempt) and the lock is as it was.
        QVERIFY(gatehouse::test::commandStat(*m_admin, "eval_ro") > checksBefore);
        QVERIFY(ActionEngine::readAudit(audit).isEmpty());
        QCOMPARE(call(*m_admin, {"GET", LockKey}).bytes(), QByteArray("holder-A"));

        // Granted write access: once the connection is made again (the ACL
        // kills the user's connections when asked to), the buttons come back.
        call(*m_admin, {"ACL", "SETUSER", "lockreader", "~sim:lock:*"});
        call(*m_admin, {"CLIENT", "KILL", "USER", "lockreader"});
        QTRY_VERIFY2_WITH_TIMEOUT(button(c, "forceReleaseButton")->isEnabled(),
                                  qPrintable(button(c, "forceReleaseButton")->toolTip()), 15000);
        QVERIFY(button(c, "extendButton")->isEnabled());
        QCOMPARE(call(*m_admin, {"GET", LockKey}).bytes(), QByteArray("holder-A"));
    }

    // A server that cannot check the commands inside a script (EVAL_RO
    // refused, as before Redis 7.0) still answers for the script call on
    // the lock's key: refused there, the buttons are disabled with why.
    void scriptCallRefusedWithoutAclCheck()
    {
        const qint64 refusedBefore
            = gatehouse::test::commandStat(*m_admin, "eval_ro", "rejected_calls");
        const QString audit = m_dir.filePath(QStringLiteral("noevalro.jsonl"));
        TestConsole c(as(QStringLiteral("noevalroreader")), audit);
        QVERIFY(c.select(QStringLiteral("lock"), LockKey));
        QPushButton *b = button(c, "forceReleaseButton");
        QVERIFY(b);
        QTRY_VERIFY2_WITH_TIMEOUT(!b->isEnabled(), qPrintable(b->toolTip()), 10000);
        const QString tip = b->toolTip();
        QVERIFY2(tip.startsWith(QLatin1String("Your Redis user may not run this.")),
                 qPrintable(tip));
        QVERIFY2(tip.contains(QLatin1String("may run neither EVALSHA nor EVAL with the keys")),
                 qPrintable(tip));
        QVERIFY2(tip.contains(QLatin1String("ACL SETUSER noevalroreader")), qPrintable(tip));
        QVERIFY(gatehouse::test::commandStat(*m_admin, "eval_ro", "rejected_calls")
                > refusedBefore);
        QVERIFY(ActionEngine::readAudit(audit).isEmpty());
        QCOMPARE(call(*m_admin, {"GET", LockKey}).bytes(), QByteArray("holder-A"));
    }

    // Every right, or a server that cannot say: the buttons stay enabled
    // (the engine asks again before it sends, and the server has the last word).
    void allowedOrUnknownStaysEnabled_data()
    {
        QTest::addColumn<QString>("user");
        QTest::newRow("every right") << QStringLiteral("locker");
        QTest::newRow("EVAL_RO refused") << QStringLiteral("noevalro");
    }
    void allowedOrUnknownStaysEnabled()
    {
        QFETCH(QString, user);
        TestConsole c(as(user), m_dir.filePath(QStringLiteral("audit.jsonl")));
        QVERIFY(c.select(QStringLiteral("lock"), LockKey));
        QPushButton *b = button(c, "forceReleaseButton");
        QVERIFY(b);
        // Long enough for the check to have answered (a round trip on loopback).
        QTest::qWait(1500);
        QVERIFY2(b->isEnabled(), qPrintable(b->toolTip()));
        QVERIFY2(b->toolTip().isEmpty(), qPrintable(b->toolTip()));
    }

    // A queue the user may read but not write: the job browser's verbs
    // (actions of the queue) are disabled with the same sentence.
    void jobBrowserVerbsAskedToo()
    {
        QVERIFY2(QFile::exists(LibrariesDir + QStringLiteral("/node_modules/bullmq/package.json")),
                 "npm packages missing: run .ci/install-deps");
        QProcess producer;
        producer.start(QStringLiteral("node"),
                       {LibrariesDir + QStringLiteral("/bullmq-app.js"), QStringLiteral("bullmq"),
                        m_server->url(), QStringLiteral("emails"), QStringLiteral("produce"),
                        QStringLiteral("2")});
        QVERIFY(producer.waitForFinished(60000));
        QCOMPARE(producer.exitCode(), 0);
        const auto purgeOf = [](TestConsole &c) {
            SectionPage *page = c.window->sectionPage(QStringLiteral("queue"));
            auto *stages = page->findChild<QTabBar *>(QStringLiteral("queueJobStages"));
            auto *state = page->findChild<QComboBox *>(QStringLiteral("queueJobState"));
            for (int t = 0; stages && t < stages->count(); ++t) {
                if (stages->tabText(t).startsWith(QLatin1String("Dead (")))
                    stages->setCurrentIndex(t);
            }
            if (state)
                state->setCurrentIndex(state->findData(QStringLiteral("failed")));
            return page->findChild<QPushButton *>(QStringLiteral("queuePurgeDead"));
        };
        const QString audit = m_dir.filePath(QStringLiteral("queue.jsonl"));
        TestConsole::Options autodetect;
        autodetect.autodetect = true;
        {
            TestConsole c(as(QStringLiteral("queuereader")), audit, autodetect);
            QVERIFY(c.select(QStringLiteral("queue"), "bull:emails"));
            QPushButton *purge = purgeOf(c);
            QVERIFY(purge && !purge->isHidden());
            QTRY_VERIFY2_WITH_TIMEOUT(!purge->isEnabled(), qPrintable(purge->toolTip()), 10000);
            const QString tip = purge->toolTip();
            QVERIFY2(tip.startsWith(QLatin1String("Your Redis user may not run this.")),
                     qPrintable(tip));
            QVERIFY2(tip.contains(QLatin1String("ACL SETUSER queuereader")), qPrintable(tip));
        }
        // The user with every right: Purge is enabled (nothing needs choosing).
        TestConsole c(as(QStringLiteral("locker")), audit, autodetect);
        QVERIFY(c.select(QStringLiteral("queue"), "bull:emails"));
        QPushButton *purge = purgeOf(c);
        QVERIFY(purge);
        QTest::qWait(1500); // the check's round trip
        QVERIFY2(purge->isEnabled(), qPrintable(purge->toolTip()));
        QVERIFY(ActionEngine::readAudit(audit).isEmpty()); // asking ran nothing
    }
};

QTEST_MAIN(tst_ActionRightsGui)
#include "tst_actionrightsgui.moc"
