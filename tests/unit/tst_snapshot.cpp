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
    void nodesAndConnectionInJson();
    void historyPointsDownsampled();
};

// Every node the monitor reads is in the JSON with its connection's state;
// the server's own fields are the first node's.
void tst_Snapshot::nodesAndConnectionInJson()
{
    Snapshot snap;
    NodeStatus a;
    a.address = QStringLiteral("redis://10.0.0.1:6379");
    a.version = QStringLiteral("7.0.15");
    a.role = QStringLiteral("master");
    a.lastReadingAgeMs = 120;
    a.connection = {ConnectionState::Ready, QString(), -1};
    NodeStatus b;
    b.address = QStringLiteral("redis://10.0.0.2:6379");
    b.connection = {ConnectionState::Reconnecting,
                    QStringLiteral("Connection refused. Next attempt in 400 ms."), 1234};
    snap.server.nodes = {a, b};
    const QJsonObject server = snap.toJson().value(QStringLiteral("server")).toObject();
    QCOMPARE(server.value(QStringLiteral("address")).toString(), a.address);
    QCOMPARE(server.value(QStringLiteral("version")).toString(), a.version);
    QCOMPARE(server.value(QStringLiteral("connection")).toString(), QStringLiteral("ready"));
    const QJsonArray nodes = server.value(QStringLiteral("nodes")).toArray();
    QCOMPARE(nodes.size(), 2);
    QCOMPARE(nodes.at(0).toObject().value(QStringLiteral("lastReadingAgeMs")).toInt(), 120);
    const QJsonObject second = nodes.at(1).toObject();
    QCOMPARE(second.value(QStringLiteral("address")).toString(), b.address);
    QVERIFY(second.value(QStringLiteral("version")).isNull()); // unknown, not ""
    QCOMPARE(second.value(QStringLiteral("connection")).toString(), QStringLiteral("reconnecting"));
    QVERIFY(second.value(QStringLiteral("connectionMessage"))
                .toString()
                .contains(QLatin1String("Connection refused")));
    // No node at all (a snapshot before the monitor): the fields are null.
    const QJsonObject empty = Snapshot().toJson().value(QStringLiteral("server")).toObject();
    QVERIFY(empty.value(QStringLiteral("version")).isNull());
    QCOMPARE(empty.value(QStringLiteral("nodes")).toArray().size(), 0);
}

// A sparkline asks for as many points as it has pixels: evenly spaced, the
// oldest and the newest always in.
void tst_Snapshot::historyPointsDownsampled()
{
    ObjectHistory h;
    h.figures = {QStringLiteral("inWindow"), QStringLiteral("occupancy")};
    QList<QPointF> a, b;
    for (int i = 0; i < 900; ++i) {
        a.append(QPointF(1000.0 * i, i));
        b.append(QPointF(1000.0 * i, i / 900.0));
    }
    h.series = {a, b};
    QCOMPARE(h.points(QStringLiteral("inWindow")), a);
    QCOMPARE(h.points(QStringLiteral("occupancy")).size(), 900);
    QVERIFY(h.points(QStringLiteral("nope")).isEmpty());
    const QList<QPointF> spark = h.points(QStringLiteral("inWindow"), 80);
    QCOMPARE(spark.size(), 80);
    QCOMPARE(spark.first(), a.first());
    QCOMPARE(spark.last(), a.last());
    for (int i = 1; i < spark.size(); ++i) {
        const double step = spark.at(i).x() - spark.at(i - 1).x();
        QVERIFY2(step >= 11000 && step <= 12000, qPrintable(QString::number(step)));
    }
    QCOMPARE(h.points(QStringLiteral("inWindow"), 2000).size(), 900); // fewer than asked: all
}

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
        state.object.edit().kind = unit->kind();
        state.object.edit().key = "k:1";
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
    state.object.edit().kind = PatternRegistry::instance().units().first()->kind();
    state.object.edit().key = QByteArray("lock:\xff\xfe", 7);
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
             state.object->key);
}

QTEST_GUILESS_MAIN(tst_Snapshot)
#include "tst_snapshot.moc"
