// SPDX-License-Identifier: MIT
#include <monitor/snapshot.h>
#include <patterns/patternregistry.h>

#include <QJsonArray>
#include <QtTest>

using namespace gatehouse;

class tst_Snapshot : public QObject
{
    Q_OBJECT

private slots:
    void everySectionIsAnArray();
    void objectInItsSection();
    void nonUtf8KeyIsBase64();
};

void tst_Snapshot::everySectionIsAnArray()
{
    const QJsonObject json = Snapshot().toJson();
    for (const Section &s : PatternRegistry::instance().sections()) {
        QVERIFY2(json.value(s.jsonKey).isArray(), qPrintable(s.jsonKey));
        QCOMPARE(json.value(s.jsonKey).toArray().size(), 0);
    }
}

void tst_Snapshot::objectInItsSection()
{
    for (const PatternUnit *unit : PatternRegistry::instance().units()) {
        Snapshot snap;
        ObjectState state;
        state.object.kind = unit->kind();
        state.object.key = "k:1";
        snap.objects.append(state);
        const QJsonObject json = snap.toJson();
        const QJsonArray mine = json.value(unit->section().jsonKey).toArray();
        QVERIFY2(mine.size() == 1, qPrintable(unit->kind().id()));
        QCOMPARE(mine.first().toObject().value(QStringLiteral("key")).toString(),
                 QStringLiteral("k:1"));
        QCOMPARE(mine.first().toObject().value(QStringLiteral("pattern")).toString(),
                 unit->kind().id());
        for (const Section &s : PatternRegistry::instance().sections()) {
            if (s.id != unit->section().id)
                QVERIFY2(json.value(s.jsonKey).toArray().isEmpty(), qPrintable(s.jsonKey));
        }
    }
}

void tst_Snapshot::nonUtf8KeyIsBase64()
{
    Snapshot snap;
    ObjectState state;
    state.object.kind = PatternRegistry::instance().units().first()->kind();
    state.object.key = QByteArray("lock:\xff\xfe", 7);
    snap.objects.append(state);
    const QJsonArray mine
        = snap.toJson()
              .value(PatternRegistry::instance().units().first()->section().jsonKey)
              .toArray();
    QCOMPARE(mine.size(), 1);
    // A key that is not UTF-8 must survive JSON byte for byte.
    const QJsonValue key = mine.first().toObject().value(QStringLiteral("key"));
    QVERIFY(key.isObject());
    QCOMPARE(QByteArray::fromBase64(
                 key.toObject().value(QStringLiteral("base64")).toString().toLatin1()),
             state.object.key);
}

QTEST_GUILESS_MAIN(tst_Snapshot)
#include "tst_snapshot.moc"
