// SPDX-License-Identifier: MIT
// Redis's glob, as SCAN MATCH and PSUBSCRIBE read it, binary safe.
#include <patterns/globmatch.h>

#include <QTest>

using namespace gatehouse;

class tst_GlobMatch : public QObject
{
    Q_OBJECT

private slots:
    void match_data()
    {
        QTest::addColumn<QByteArray>("pattern");
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<bool>("matches");
        QTest::newRow("star") << QByteArray("rl:*") << QByteArray("rl:api:1") << true;
        QTest::newRow("star empty") << QByteArray("rl:*") << QByteArray("rl:") << true;
        QTest::newRow("star no") << QByteArray("rl:*") << QByteArray("lock:1") << false;
        QTest::newRow("inner star") << QByteArray("a*:retry") << QByteArray("abc:retry") << true;
        QTest::newRow("inner star no")
            << QByteArray("a*:retry") << QByteArray("abc:retryx") << false;
        QTest::newRow("two stars") << QByteArray("*lock*") << QByteArray("my:lock:1") << true;
        QTest::newRow("question") << QByteArray("h?llo") << QByteArray("hallo") << true;
        QTest::newRow("question length") << QByteArray("h?llo") << QByteArray("hllo") << false;
        QTest::newRow("class") << QByteArray("h[ae]llo") << QByteArray("hello") << true;
        QTest::newRow("class no") << QByteArray("h[ae]llo") << QByteArray("hillo") << false;
        QTest::newRow("range") << QByteArray("q[0-9]") << QByteArray("q7") << true;
        QTest::newRow("negated") << QByteArray("q[^0-9]") << QByteArray("q7") << false;
        QTest::newRow("escape star") << QByteArray("a\\*b") << QByteArray("a*b") << true;
        QTest::newRow("escape star no") << QByteArray("a\\*b") << QByteArray("axb") << false;
        QTest::newRow("hash tag braces")
            << QByteArray("z:rl:{12}*") << QByteArray("z:rl:{12}:c:1") << true;
        QTest::newRow("unclosed class literal") << QByteArray("a[b") << QByteArray("a[b") << true;
        QTest::newRow("binary") << QByteArray("k:*", 3) << QByteArray("k:\xff\x00z", 5) << true;
        QTest::newRow("empty pattern") << QByteArray() << QByteArray() << true;
    }

    void match()
    {
        QFETCH(QByteArray, pattern);
        QFETCH(QByteArray, text);
        QFETCH(bool, matches);
        QCOMPARE(globMatch(pattern, text), matches);
    }
};

QTEST_GUILESS_MAIN(tst_GlobMatch)
#include "tst_globmatch.moc"
