// SPDX-License-Identifier: MIT
#include <redis/hashslot.h>

#include <QTest>

using namespace gatehouse;

class tst_HashSlot : public QObject
{
    Q_OBJECT

private slots:
    void keySlots_data()
    {
        QTest::addColumn<QByteArray>("key");
        QTest::addColumn<int>("slot");
        // Reference values from CLUSTER KEYSLOT on a real cluster and the
        // cluster specification (CRC16 of "123456789" is 0x31C3).
        QTest::newRow("spec check value") << QByteArray("123456789") << (0x31C3 & 0x3fff);
        QTest::newRow("foo") << QByteArray("foo") << 12182;
        QTest::newRow("bar") << QByteArray("bar") << 5061;
        QTest::newRow("empty") << QByteArray() << 0;
        QTest::newRow("hash tag") << QByteArray("{foo}.anything") << 12182;
    }

    void keySlots()
    {
        QFETCH(QByteArray, key);
        QFETCH(int, slot);
        QCOMPARE(int(keyHashSlot(key)), slot);
    }

    // The hash-tag rules of the cluster specification.
    void hashTagRules()
    {
        QCOMPARE(keyHashSlot("{user1000}.following"), keyHashSlot("{user1000}.followers"));
        QCOMPARE(keyHashSlot("foo{{bar}}zap"), keyHashSlot("{bar"));
        QCOMPARE(keyHashSlot("foo{bar}{zap}"), keyHashSlot("bar"));
        // An empty tag "{}" means the whole key is hashed.
        QVERIFY(keyHashSlot("foo{}{bar}") != keyHashSlot("bar"));
        QVERIFY(keyHashSlot("{}foo") != keyHashSlot("foo"));
    }

    void seed003KeysShareASlot()
    {
        // Seed 003 hash-tags a resource and its consumers so one script can
        // touch both in a cluster.
        QCOMPARE(keyHashSlot("z:rl:resource:12{12}"),
                 keyHashSlot("z:rl:resource:12:consumer:1{12}"));
    }
};

QTEST_GUILESS_MAIN(tst_HashSlot)
#include "tst_hashslot.moc"
