// SPDX-License-Identifier: MIT
// CLUSTER SHARDS as the servers send it: which node holds a shard's slots.
// After a failover Valkey 8 keeps the failed master in its shard, still
// with role "master", beside the replica promoted in its place; the slots
// (and the keys the console reads there) are the promoted node's.

#include <redis/redisvalue.h>
#include <redis/topology.h>

#include <QTest>

using namespace gatehouse;

namespace {

RedisValue bulk(const char *s)
{
    return RedisValue::bulk(QByteArray(s));
}

RedisValue node(const char *id, qint64 port, const char *role, const char *health)
{
    return RedisValue::array({bulk("id"), bulk(id), bulk("port"), RedisValue::integer(port),
                              bulk("ip"), bulk("127.0.0.1"), bulk("endpoint"), bulk("127.0.0.1"),
                              bulk("role"), bulk(role), bulk("replication-offset"),
                              RedisValue::integer(14), bulk("health"), bulk(health)});
}

RedisValue shard(qint64 from, qint64 to, QList<RedisValue> nodes)
{
    return RedisValue::array(
        {bulk("slots"), RedisValue::array({RedisValue::integer(from), RedisValue::integer(to)}),
         bulk("nodes"), RedisValue::array(std::move(nodes))});
}

const TopologyNode *byPort(const Topology &t, quint16 port)
{
    for (const TopologyNode &n : t.nodes) {
        if (n.port == port)
            return &n;
    }
    return nullptr;
}

} // namespace

class tst_Topology : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void healthyShards()
    {
        const RedisValue reply = RedisValue::array(
            {shard(0, 8191,
                   {node("a", 7001, "master", "online"), node("b", 7002, "replica", "online")}),
             shard(8192, 16383,
                   {node("c", 7003, "master", "online"), node("d", 7004, "replica", "online")})});
        QString error;
        const auto t = Topology::fromClusterShards(reply, {}, &error);
        QVERIFY2(t, qPrintable(error));
        QCOMPARE(t->nodes.size(), 4);
        QCOMPARE(t->nodes.at(t->ownerOf(0)).port, quint16(7001));
        QCOMPARE(t->nodes.at(t->ownerOf(16383)).port, quint16(7003));
        QCOMPARE(byPort(*t, 7002)->masterId, QByteArray("a"));
        QCOMPARE(byPort(*t, 7004)->masterId, QByteArray("c"));
    }

    // The failed master is listed first, as Valkey 8.0.1 lists it.
    void failedMasterBesidePromotedReplica_data()
    {
        QTest::addColumn<QString>("health");
        QTest::newRow("fail") << "fail";
        QTest::newRow("failed") << "failed";
    }
    void failedMasterBesidePromotedReplica()
    {
        QFETCH(QString, health);
        const QByteArray h = health.toLatin1();
        const RedisValue reply = RedisValue::array(
            {shard(0, 8191,
                   {node("old", 7001, "master", h.constData()),
                    node("new", 7004, "master", "online")}),
             shard(8192, 16383,
                   {node("c", 7003, "master", "online"), node("d", 7005, "replica", "online")})});
        QString error;
        const auto t = Topology::fromClusterShards(reply, {}, &error);
        QVERIFY2(t, qPrintable(error));
        QCOMPARE(t->nodes.at(t->ownerOf(0)).port, quint16(7004));
        QCOMPARE(t->nodes.at(t->ownerOf(8191)).port, quint16(7004));
        QVERIFY(byPort(*t, 7001)->slotRanges.isEmpty());
        QCOMPARE(byPort(*t, 7004)->slotRanges.size(), 1);
    }

    // Redis 7.4.1 after a master was killed and its replica promoted: the
    // shard lists both, and no slots at all (recorded from 7.4.1's CLUSTER
    // SHARDS); CLUSTER SLOTS of the same moment names the promoted one.
    void redis74ShardWithoutSlotsAfterFailover()
    {
        RedisValue emptied = shard(
            0, 0, {node("old", 7001, "master", "fail"), node("new", 7004, "master", "online")});
        emptied = RedisValue::array(
            {bulk("slots"), RedisValue::array({}), bulk("nodes"), emptied.at(3)});
        const RedisValue reply = RedisValue::array(
            {emptied,
             shard(5461, 16383,
                   {node("c", 7003, "master", "online"), node("d", 7005, "replica", "online")})});
        auto t = Topology::fromClusterShards(reply, {}, nullptr);
        QVERIFY(t);
        QVERIFY(!t->coversAllSlots());
        QCOMPARE(t->ownerOf(0), -1);

        const auto endpoint = [](qint64 port, const char *id) {
            return RedisValue::array({bulk("127.0.0.1"), RedisValue::integer(port), bulk(id)});
        };
        const RedisValue slotsReply = RedisValue::array(
            {RedisValue::array(
                 {RedisValue::integer(0), RedisValue::integer(5460), endpoint(7004, "new")}),
             RedisValue::array({RedisValue::integer(5461), RedisValue::integer(16383),
                                endpoint(7003, "c"), endpoint(7005, "d")})});
        const auto fromSlots = Topology::fromClusterSlots(slotsReply, {}, nullptr);
        QVERIFY(fromSlots);
        t->fillUncoveredSlots(*fromSlots);
        QVERIFY(t->coversAllSlots());
        QCOMPARE(t->nodes.at(t->ownerOf(0)).port, quint16(7004));
        QCOMPARE(t->nodes.at(t->ownerOf(5460)).port, quint16(7004));
        QCOMPARE(byPort(*t, 7004)->slotsText(), QStringLiteral("0-5460"));
        // What SHARDS said stays: the failed master, its health, no slots;
        // the other shard as it was.
        QCOMPARE(byPort(*t, 7001)->health, QStringLiteral("fail"));
        QVERIFY(byPort(*t, 7001)->slotRanges.isEmpty());
        QCOMPARE(byPort(*t, 7003)->slotsText(), QStringLiteral("5461-16383"));
        QCOMPARE(t->nodes.size(), 4);
    }

    // Before the failover: the failed master is the only one, and its slots
    // stay its (unreachable) own rather than nobody's.
    void failedMasterAlone()
    {
        const RedisValue reply = RedisValue::array(
            {shard(0, 16383,
                   {node("old", 7001, "master", "fail"), node("r", 7004, "replica", "online")})});
        const auto t = Topology::fromClusterShards(reply, {}, nullptr);
        QVERIFY(t);
        QCOMPARE(t->nodes.at(t->ownerOf(0)).port, quint16(7001));
        QCOMPARE(byPort(*t, 7004)->masterId, QByteArray("old"));
    }
};

QTEST_GUILESS_MAIN(tst_Topology)
#include "tst_topology.moc"
