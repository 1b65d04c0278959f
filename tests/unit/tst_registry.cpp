// SPDX-License-Identifier: MIT
#include <patterns/article.h>
#include <patterns/patternregistry.h>

#include <QSet>
#include <QtTest>

using namespace gatehouse;

class tst_Registry : public QObject
{
    Q_OBJECT

private slots:
    void idsUniqueAndNonEmpty();
    void sectionsDeclared();
    void columnsKeyFirstStatusLast();
    void failedReadingShowsNoFigures();
    void figuresUnique();
    void actionsComplete();
    void titlesTakeTheirArticle();
};

void tst_Registry::idsUniqueAndNonEmpty()
{
    const auto &registry = PatternRegistry::instance();
    QVERIFY(!registry.units().isEmpty());
    QSet<QString> seen;
    for (const PatternUnit *unit : registry.units()) {
        const QString id = unit->kind().id();
        QVERIFY2(!id.isEmpty(), "a registered pattern has an empty id");
        QVERIFY2(!seen.contains(id), qPrintable(id));
        seen.insert(id);
        QCOMPARE(registry.find(id), unit);
        QCOMPARE(registry.find(unit->kind()), unit);
    }
    QCOMPARE(registry.find(QStringLiteral("no-such-pattern")), nullptr);
    QVERIFY(!patternFromId(QStringLiteral("no-such-pattern")).has_value());
}

void tst_Registry::sectionsDeclared()
{
    const auto &registry = PatternRegistry::instance();
    QSet<QString> sectionIds;
    for (const Section &s : registry.sections()) {
        QVERIFY(!s.id.isEmpty());
        QVERIFY(!s.jsonKey.isEmpty());
        QVERIFY(!s.title.isEmpty());
        QVERIFY2(!sectionIds.contains(s.id), qPrintable(s.id));
        sectionIds.insert(s.id);
    }
    for (const PatternUnit *unit : registry.units()) {
        QVERIFY2(sectionIds.contains(unit->section().id), qPrintable(unit->kind().id()));
        QVERIFY(registry.unitsIn(unit->section().id).contains(unit));
    }
}

void tst_Registry::columnsKeyFirstStatusLast()
{
    for (const PatternUnit *unit : PatternRegistry::instance().units()) {
        const QList<Column> columns = unit->columns();
        QVERIFY2(columns.size() >= 2, qPrintable(unit->kind().id()));
        for (const Column &c : columns) {
            QVERIFY2(!c.header.isEmpty(), qPrintable(unit->kind().id()));
            QVERIFY2(bool(c.text), qPrintable(unit->kind().id() + QLatin1Char('/') + c.header));
        }
        // The first column names the object (its header is the pattern's:
        // "Key", "Queue", "Family"): its key, or the name the pattern gives
        // it (PatternUnit::displayName); the table is unusable without it.
        ObjectState state;
        state.object.edit().kind = unit->kind();
        state.object.edit().key = "probe:key:42";
        QVERIFY2(columns.first().text(state, 1000).contains(unit->displayName(state.object)),
                 qPrintable(unit->kind().id() + QStringLiteral(": ") + columns.first().header));
        QCOMPARE(columns.last().header, QStringLiteral("Status"));
    }
    for (const Section &s : PatternRegistry::instance().sections()) {
        const SectionColumns sc(s.id);
        QVERIFY(sc.count() >= 2);
        QCOMPARE(sc.headers().first(),
                 PatternRegistry::instance().unitsIn(s.id).first()->columns().first().header);
        QCOMPARE(sc.headers().last(), QStringLiteral("Status"));
    }
}

// A failed reading (a refused or lost read) has no figures: every cell read
// from it says "–", never a 0 the server did not say; the object is still
// named, and its status says what failed.
void tst_Registry::failedReadingShowsNoFigures()
{
    for (const Section &s : PatternRegistry::instance().sections()) {
        const SectionColumns sc(s.id);
        for (const PatternUnit *unit : PatternRegistry::instance().unitsIn(s.id)) {
            ObjectState state;
            state.object.edit().kind = unit->kind();
            state.object.edit().key = "probe:key:42";
            state.reading.status = Reading::Status::Error;
            state.reading.message = QStringLiteral("Reading failed: NOPERM");
            const QString where = unit->kind().id() + QLatin1Char('/');
            QVERIFY2(sc.text(0, state, 1000).contains(unit->displayName(state.object)),
                     qPrintable(where + sc.headers().first()));
            QVERIFY2(sc.text(sc.count() - 1, state, 1000) != QStringLiteral("–"),
                     qPrintable(where + QStringLiteral("Status")));
            for (int c = 1; c < sc.count() - 1; ++c) {
                const QString text = sc.text(c, state, 1000);
                QVERIFY2(text.isEmpty() || text == QStringLiteral("–")
                             || sc.headers().at(c) == QStringLiteral("Pattern"),
                         qPrintable(where + sc.headers().at(c) + QStringLiteral(": ") + text));
            }
        }
    }
}

void tst_Registry::figuresUnique()
{
    for (const PatternUnit *unit : PatternRegistry::instance().units()) {
        QSet<QString> ids;
        for (const Figure &f : unit->figures()) {
            QVERIFY2(!f.id.isEmpty(), qPrintable(unit->kind().id()));
            QVERIFY2(!ids.contains(f.id), qPrintable(unit->kind().id() + QLatin1Char('/') + f.id));
            ids.insert(f.id);
            QVERIFY(bool(f.value));
        }
    }
}

void tst_Registry::actionsComplete()
{
    for (const PatternUnit *unit : PatternRegistry::instance().units()) {
        for (const PatternAction &a : unit->actions()) {
            const QString where = unit->kind().id() + QLatin1Char('/') + a.id;
            QVERIFY2(!a.id.isEmpty(), qPrintable(where));
            QVERIFY2(!a.label.isEmpty(), qPrintable(where));
            QVERIFY2(!a.objectName.isEmpty(), qPrintable(where));
            QVERIFY2(bool(a.build), qPrintable(where));
            // The CLI's: a verb and a usage line; the console's own: neither
            // (the CLI would offer a verb it cannot fill in).
            QVERIFY2(a.verb.isEmpty() == a.consoleOnly, qPrintable(where));
            QVERIFY2(a.usage.isEmpty() == a.consoleOnly, qPrintable(where));
        }
    }
}

// Sentences name a pattern by its title after an article ("is not an asynq
// queue layout"): every registered title gets the one it is read with.
void tst_Registry::titlesTakeTheirArticle()
{
    QCOMPARE(withArticle(QStringLiteral("asynq queue")), QStringLiteral("an asynq queue"));
    QCOMPARE(withArticle(QStringLiteral("RQ queue")), QStringLiteral("an RQ queue"));
    QCOMPARE(withArticle(QStringLiteral("SETNX lock")), QStringLiteral("a SETNX lock"));
    QCOMPARE(withArticle(QStringLiteral("unique token")), QStringLiteral("a unique token"));
    QCOMPARE(withArticle(QStringLiteral("Unique token")), QStringLiteral("a Unique token"));
    QCOMPARE(withArticle(QStringLiteral("Redisson lock")), QStringLiteral("a Redisson lock"));
    for (const PatternUnit *unit : PatternRegistry::instance().units()) {
        const QString t = unit->title();
        const bool an = withArticle(t).startsWith(QLatin1String("an "));
        const bool vowel = QStringLiteral("aeiou").contains(t.at(0).toLower());
        QVERIFY2(an == (vowel || t.startsWith(QLatin1String("RQ"))), qPrintable(withArticle(t)));
    }
}

QTEST_GUILESS_MAIN(tst_Registry)
#include "tst_registry.moc"
