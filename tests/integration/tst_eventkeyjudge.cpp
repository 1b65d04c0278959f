// SPDX-License-Identifier: MIT
// EventKeyJudge: keys that keyspace events name and no object holds, judged
// at once by a Discovery of just those keys on a real server (autodetection,
// no profile), in batches, without asking again about a family judged
// ordinary or a key an object holds.

#include <monitor/discovery.h>
#include <monitor/eventkeyjudge.h>
#include <patterns/keyclassifier.h>
#include <redis/redisclient.h>

#include "redisserver.h"

#include <QTest>

using namespace gatehouse;
using gatehouse::test::call;
using gatehouse::test::RedisServer;

namespace {

// The judge on a connection to server, counting the Discoveries it asks
// for and keeping what they found.
struct Judge
{
    explicit Judge(RedisClient *client)
        : judge(&context, host(client))
    {}

    EventKeyJudge::Host host(RedisClient *client)
    {
        EventKeyJudge::Host h;
        h.tracked = [this](const QByteArray &key) {
            return tracked.contains(key);
        };
        h.canRead = [this] {
            return readable;
        };
        h.discovery = [this, client] {
            ++discoveries;
            return std::make_unique<Discovery>(client, std::nullopt);
        };
        h.found = [this](const QList<PatternObject> &objects) {
            for (const PatternObject &o : objects) {
                found << o.key;
                tracked.insert(o.key); // as the monitor tracks it
            }
        };
        return h;
    }

    QObject context;
    QSet<QByteArray> tracked;
    bool readable = true;
    int discoveries = 0;
    QList<QByteArray> found;
    EventKeyJudge judge;
};

} // namespace

class tst_EventKeyJudge : public QObject
{
    Q_OBJECT

private:
    RedisServer m_server;
    std::unique_ptr<RedisClient> m_client;

    void setLock(const QByteArray &key)
    {
        call(*m_client, {"SET", key, "f3a9c07d51e24b8a96d0c2e7", "PX", "600000"});
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(m_server.start(), qPrintable(m_server.errorString()));
        m_client = gatehouse::test::connectedClient(m_server);
        QVERIFY(m_client);
    }

    void init() { call(*m_client, {"FLUSHALL"}); }

    // A lock taken since the last scan is found from its event alone.
    void writtenStructureFound()
    {
        setLock("lock:order:1");
        Judge j(m_client.get());
        j.judge.note("lock:order:1", "set");
        QTRY_COMPARE(j.found, QList<QByteArray>{"lock:order:1"});
        QCOMPARE(j.discoveries, 1);
        // An object holds it now: its next write asks nothing.
        j.judge.note("lock:order:1", "set");
        QTest::qWait(EventKeyJudge::EveryMs * 2);
        QCOMPARE(j.discoveries, 1);
    }

    // A key an object holds, or one deleted, is not asked about; nor is
    // anything while the monitor cannot read (paused, connection down).
    void nothingAskedInVain()
    {
        setLock("lock:held:1");
        Judge j(m_client.get());
        j.tracked.insert("lock:held:1");
        j.judge.note("lock:held:1", "set");
        j.judge.note("lock:gone:1", "del");
        j.judge.note("lock:gone:2", "expired");
        QTest::qWait(EventKeyJudge::EveryMs * 2);
        QCOMPARE(j.discoveries, 0);

        j.readable = false;
        setLock("lock:later:1");
        j.judge.note("lock:later:1", "set");
        QTest::qWait(EventKeyJudge::EveryMs * 2);
        QCOMPARE(j.discoveries, 0);
        // Still pending: the next key's batch takes it along.
        j.readable = true;
        setLock("lock:later:2");
        j.judge.note("lock:later:2", "set");
        QTRY_COMPARE(j.found.size(), 2);
        QCOMPARE(j.discoveries, 1);
    }

    // Stopped: what was pending is forgotten.
    void stopForgetsPending()
    {
        setLock("lock:before:1");
        setLock("lock:after:1");
        Judge j(m_client.get());
        j.readable = false;
        j.judge.note("lock:before:1", "set");
        QTest::qWait(EventKeyJudge::EveryMs);
        j.judge.stop();
        j.readable = true;
        j.judge.note("lock:after:1", "set");
        QTRY_COMPARE(j.found, QList<QByteArray>{"lock:after:1"});
        QTest::qWait(EventKeyJudge::EveryMs * 2);
        QCOMPARE(j.found, QList<QByteArray>{"lock:after:1"});
    }

    // A family whose keys were judged ordinary FamilyTries times (a cache)
    // is not asked about again until the next scan, nor one the last scan
    // judged ordinary.
    void ordinaryFamiliesAskedAboutLittle()
    {
        for (int n = 1; n <= 9; ++n)
            call(*m_client, {"SET", "cache:user:" + QByteArray::number(n), "{\"name\":\"Ada\"}"});
        Judge j(m_client.get());
        for (int n = 1; n <= EventKeyJudge::FamilyTries; ++n)
            j.judge.note("cache:user:" + QByteArray::number(n), "set");
        QTRY_COMPARE(j.discoveries, 1);
        QTest::qWait(EventKeyJudge::EveryMs * 2);
        QVERIFY(j.found.isEmpty());
        j.judge.note("cache:user:7", "set");
        QTest::qWait(EventKeyJudge::EveryMs * 2);
        QCOMPARE(j.discoveries, 1);

        // A scan finished: the family is asked about again...
        j.judge.scanned({});
        j.judge.note("cache:user:8", "set");
        QTRY_COMPARE(j.discoveries, 2);
        // ...unless the scan judged it ordinary.
        j.judge.scanned({gatehouse::familyOf("cache:user:9")});
        j.judge.note("cache:user:9", "set");
        QTest::qWait(EventKeyJudge::EveryMs * 2);
        QCOMPARE(j.discoveries, 2);
        // A new world: every key is judged afresh, but the scan's verdict on
        // the family stands until the world's own scan.
        j.judge.newWorld();
        j.judge.note("cache:user:9", "set");
        QTest::qWait(EventKeyJudge::EveryMs * 2);
        QCOMPARE(j.discoveries, 2);
        setLock("lock:new:1");
        j.judge.note("lock:new:1", "set");
        QTRY_COMPARE(j.found, QList<QByteArray>{"lock:new:1"});
    }

    // Batches: many keys at once are judged Batch at a time, EveryMs apart.
    void batched()
    {
        const int keys = EventKeyJudge::Batch + 10;
        for (int n = 0; n < keys; ++n)
            setLock("lock:many:" + QByteArray::number(n));
        Judge j(m_client.get());
        for (int n = 0; n < keys; ++n)
            j.judge.note("lock:many:" + QByteArray::number(n), "set");
        QTRY_COMPARE(j.found.size(), keys);
        QCOMPARE(j.discoveries, 2);
    }
};

QTEST_GUILESS_MAIN(tst_EventKeyJudge)
#include "tst_eventkeyjudge.moc"
