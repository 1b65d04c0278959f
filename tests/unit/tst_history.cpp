// SPDX-License-Identifier: MIT
// History rings: bounded, oldest first, 4 bytes per sample per figure.
#include <monitor/history.h>
#include <monitor/snapshot.h>
#include <redis/redisvalue.h>

#include <QJsonObject>
#include <QTest>

using namespace gatehouse;

class tst_History : public QObject
{
    Q_OBJECT

private slots:
    void ringKeepsTheLastSamples()
    {
        HistoryRing ring(2, 3);
        for (int i = 1; i <= 5; ++i) {
            const float v[2] = {float(i), float(10 * i)};
            ring.append(v);
        }
        QCOMPARE(ring.size(), 3);
        QCOMPARE(ring.at(0, 0), 3.0f); // the oldest kept
        QCOMPARE(ring.at(0, 2), 5.0f);
        QCOMPARE(ring.at(1, 1), 40.0f);
        QCOMPARE(ring.bytes(), qsizetype(2 * 3 * sizeof(float)));
    }

    // Full size from the start: memory does not grow while the ring fills,
    // and a partly filled ring shows only what was appended.
    void fullSizeUpFront()
    {
        HistoryRing ring(3, 100);
        QCOMPARE(ring.bytes(), qsizetype(3 * 100 * sizeof(float)));
        const float v[3] = {1, 2, 3};
        ring.append(v);
        QCOMPARE(ring.size(), 1);
        QCOMPARE(ring.at(2, 0), 3.0f);
        QCOMPARE(ring.bytes(), qsizetype(3 * 100 * sizeof(float)));
    }

    void noCapacityNoMemory()
    {
        HistoryRing ring(3, 0);
        const float v[3] = {1, 2, 3};
        ring.append(v);
        QCOMPARE(ring.size(), 0);
        QCOMPARE(ring.bytes(), qsizetype(0));
    }

    void keysInJson()
    {
        QCOMPARE(keyToJson("rl:api:1").toString(), QStringLiteral("rl:api:1"));
        QCOMPARE(
            keyToJson(QByteArray("a\0b", 3)).toObject().value(QLatin1String("base64")).toString(),
            QStringLiteral("YQBi"));
        QCOMPARE(keyToJson("\xff\xfe").toObject().value(QLatin1String("base64")).toString(),
                 QStringLiteral("//4="));
        QCOMPARE(keyToJson("caf\xc3\xa9").toString(), QString::fromUtf8("caf\xc3\xa9"));
    }
};

QTEST_GUILESS_MAIN(tst_History)
#include "tst_history.moc"
