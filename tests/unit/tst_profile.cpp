// SPDX-License-Identifier: MIT
#include <monitor/profile.h>
#include <patterns/patternregistry.h>

#include <QtTest>

using namespace gatehouse;

class tst_Profile : public QObject
{
    Q_OBJECT

private slots:
    void builtInProfilesLoad();
    void errors_data();
    void errors();
    void windowRetryIsNotAnInstance();
    void queueRelatedKeysMapToQueue();
    void excludeGlobs();
    void roundTripDemo();
    void scanGlob();
};

void tst_Profile::builtInProfilesLoad()
{
    const QStringList names = Profile::builtInNames();
    QVERIFY(names.contains(QStringLiteral("demo")));
    for (const QString &name : names) {
        QString error;
        const auto p = Profile::load(name, &error);
        QVERIFY2(p.has_value(), qPrintable(name + QStringLiteral(": ") + error));
        QVERIFY2(!p->isEmpty(), qPrintable(name));
    }
}

void tst_Profile::errors_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QStringList>("mentions");
    QTest::newRow("unknown pattern")
        << QByteArray(R"({"rules":[{"pattern":"mutex","match":"a:*"}]})")
        << QStringList{QStringLiteral("x.json"), QStringLiteral("rules[0]"),
                       QStringLiteral("mutex"), QStringLiteral("lock"),
                       QStringLiteral("reliable-queue")};
    QTest::newRow("limit on a lock")
        << QByteArray(R"({"rules":[{"pattern":"lock","match":"l:*","limit":3}]})")
        << QStringList{QStringLiteral("x.json"), QStringLiteral("rules[0]"),
                       QStringLiteral("limit")};
    QTest::newRow("missing match")
        << QByteArray(R"({"rules":[{"pattern":"lock"}]})")
        << QStringList{QStringLiteral("x.json"), QStringLiteral("rules[0]"),
                       QStringLiteral("match")};
    QTest::newRow("missing prefix")
        << QByteArray(R"({"rules":[{"pattern":"lock","match":"l:*"},{"pattern":"token-family"}]})")
        << QStringList{QStringLiteral("x.json"), QStringLiteral("rules[1]"),
                       QStringLiteral("prefix")};
    QTest::newRow("template without {key}")
        << QByteArray(
               R"({"rules":[{"pattern":"sliding-window","match":"rl:*","retryKey":"retry"}]})")
        << QStringList{QStringLiteral("x.json"), QStringLiteral("rules[0]"),
                       QStringLiteral("retryKey"), QStringLiteral("{key}")};
    QTest::newRow("match not a string")
        << QByteArray(R"({"rules":[{"pattern":"lock","match":5}]})")
        << QStringList{QStringLiteral("x.json"), QStringLiteral("rules[0]"),
                       QStringLiteral("match")};
}

void tst_Profile::errors()
{
    QFETCH(QByteArray, json);
    QFETCH(QStringList, mentions);
    QString error;
    const auto p = Profile::fromJson(json, QStringLiteral("x.json"), &error);
    QVERIFY(!p.has_value());
    for (const QString &m : mentions)
        QVERIFY2(error.contains(m), qPrintable(QStringLiteral("'%1' lacks '%2'").arg(error, m)));
}

void tst_Profile::windowRetryIsNotAnInstance()
{
    QString error;
    const auto p = Profile::fromJson(
        R"({"rules":[{"pattern":"sliding-window","match":"rl:*","retryKey":"{key}:retry"}]})",
        QStringLiteral("x.json"), &error);
    QVERIFY2(p, qPrintable(error));
    const auto o = p->objectFor("rl:api");
    QVERIFY(o);
    QCOMPARE(o->key, QByteArray("rl:api"));
    QVERIFY(o->related.contains(QByteArray("rl:api:retry")));
    QVERIFY(!p->objectFor("rl:api:retry"));
}

void tst_Profile::queueRelatedKeysMapToQueue()
{
    QString error;
    const auto p
        = Profile::fromJson(R"({"rules":[{"pattern":"reliable-queue","match":"jobs:*",)"
                            R"("processingKey":"{key}:processing","claimsKey":"{key}:claims",)"
                            R"("deadKey":"{key}:dead","stuckAfter":30000}]})",
                            QStringLiteral("x.json"), &error);
    QVERIFY2(p, qPrintable(error));
    const auto o = p->objectFor("jobs:mail");
    QVERIFY(o);
    QVERIFY(o->related.contains(QByteArray("jobs:mail:processing")));
    QVERIFY(o->related.contains(QByteArray("jobs:mail:claims")));
    QVERIFY(o->related.contains(QByteArray("jobs:mail:dead")));
    // A queue's related keys match the queue's glob too: they name their queue.
    for (const QByteArray &related :
         {QByteArray("jobs:mail:processing"), QByteArray("jobs:mail:claims"),
          QByteArray("jobs:mail:dead")}) {
        const auto r = p->objectFor(related);
        QVERIFY2(r, related.constData());
        QCOMPARE(r->key, QByteArray("jobs:mail"));
    }
}

void tst_Profile::excludeGlobs()
{
    QString error;
    const auto p = Profile::fromJson(
        R"({"rules":[{"pattern":"lock","match":"lock:*","exclude":["lock:tmp:*"]}]})",
        QStringLiteral("x.json"), &error);
    QVERIFY2(p, qPrintable(error));
    QVERIFY(p->objectFor("lock:a"));
    QVERIFY(!p->objectFor("lock:tmp:a"));
    QCOMPARE(p->scanGlob(), QByteArray("lock:*"));
}

void tst_Profile::roundTripDemo()
{
    QString error;
    const auto p = Profile::load(QStringLiteral("demo"), &error);
    QVERIFY2(p, qPrintable(error));
    const QByteArray json = p->toJson();
    const auto q = Profile::fromJson(json, QStringLiteral("again.json"), &error);
    QVERIFY2(q, qPrintable(error));
    QCOMPARE(q->rules.size(), p->rules.size());
    QCOMPARE(q->toJson(), json);
    for (int i = 0; i < p->rules.size(); ++i) {
        const ProfileRule &a = p->rules.at(i);
        const ProfileRule &b = q->rules.at(i);
        QCOMPARE(b.kind, a.kind);
        QCOMPARE(b.match, a.match);
        QCOMPARE(b.prefix, a.prefix);
        QCOMPARE(b.exclude, a.exclude);
        QCOMPARE(b.consumerLimit, a.consumerLimit);
        QCOMPARE(b.retryKey, a.retryKey);
        QCOMPARE(b.processingKey, a.processingKey);
        QCOMPARE(b.claimsKey, a.claimsKey);
        QCOMPARE(b.deadKey, a.deadKey);
        QCOMPARE(b.counted, a.counted);
    }
}

void tst_Profile::scanGlob()
{
    QString error;
    const auto p = Profile::fromJson(R"({"rules":[{"pattern":"lock","match":"sim:lock:*"},)"
                                     R"({"pattern":"token-family","prefix":"sim:code:"}]})",
                                     QStringLiteral("x.json"), &error);
    QVERIFY2(p, qPrintable(error));
    // One SCAN must find both: their common literal prefix.
    QCOMPARE(p->scanGlob(), QByteArray("sim:*"));
    QVERIFY(p->objectFor("sim:lock:a"));
    QVERIFY(!p->objectFor("other:lock:a"));
}

QTEST_GUILESS_MAIN(tst_Profile)
#include "tst_profile.moc"
