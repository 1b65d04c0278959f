// SPDX-License-Identifier: MIT
#include "kit/shapecases.h"

#include <patterns/globmatch.h>

#include "keyshapes.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QtTest>

namespace gatehouse::test {

namespace {

struct Registered
{
    PatternShapes (*make)() = nullptr;
    std::optional<PatternShapes> made;
};

// Filled by the registrars during static initialisation, read by the test
// functions afterwards (one thread).
QMap<QString, Registered> &registry()
{
    static QMap<QString, Registered> s_registry;
    return s_registry;
}

QString written(const PatternObject &o, ObjectText how)
{
    switch (how) {
    case ObjectText::Key:
        return describeKey(o);
    case ObjectText::Related:
        return describe(o);
    case ObjectText::Full:
        return describeFully(o);
    }
    return {};
}

bool matchesAny(const QStringList &globs, const QString &text)
{
    for (const QString &glob : globs) {
        if (globMatch(glob.toUtf8(), text.toUtf8()))
            return true;
    }
    return false;
}

} // namespace

ShapeCase objectsCase(const QString &name, const QList<KeyShape> &shapes,
                      const QStringList &objects)
{
    ShapeCase c;
    c.name = name;
    c.shapes = shapes;
    c.objects = objects;
    c.sorted = true;
    return c;
}

ShapeCase evidenceCase(const QString &name, const QList<KeyShape> &shapes,
                       const QStringList &objects, const QStringList &candidates,
                       const QString &reason)
{
    ShapeCase c = objectsCase(name, shapes, objects);
    c.sorted = false;
    c.candidates = candidates;
    c.reason = reason;
    return c;
}

ShapeCase profileCase(const QString &name, const QList<KeyShape> &shapes,
                      const QStringList &objects, const QStringList &rules)
{
    ShapeCase c = objectsCase(name, shapes, objects);
    c.sorted = false;
    c.text = ObjectText::Full;
    c.rules = rules;
    return c;
}

ShapeRegistrar::ShapeRegistrar(const char *pattern, PatternShapes (*make)())
{
    const QString id = QString::fromUtf8(pattern);
    if (registry().contains(id))
        qFatal("tests/patterns: the shapes of %s are registered twice", pattern);
    registry()[id].make = make;
}

QStringList shapePatterns()
{
    return registry().keys();
}

const PatternShapes &shapesOf(const QString &pattern)
{
    static const PatternShapes s_none;
    const auto it = registry().find(pattern);
    if (it == registry().end())
        return s_none;
    if (!it->made)
        it->made = it->make();
    return *it->made;
}

void addShapeCaseRows()
{
    QTest::addColumn<QString>("pattern");
    QTest::addColumn<int>("index");
    for (const QString &pattern : shapePatterns()) {
        const QList<ShapeCase> &cases = shapesOf(pattern).cases;
        for (int i = 0; i < cases.size(); ++i)
            QTest::addRow("%s: %s", qPrintable(pattern), qPrintable(cases.at(i).name))
                << pattern << i;
    }
}

void verifyShapeCase(const QString &pattern, int index)
{
    verifyShapeCase(shapesOf(pattern).cases.at(index));
}

void verifyShapeCase(const ShapeCase &c)
{
    AutoDetector detector;
    for (const KeyShape &s : c.shapes)
        detector.add(s, ShapeNowMs);
    const Detection d = detector.detect();

    QStringList found;
    QStringList keyed;
    for (const PatternObject &o : d.objects) {
        QCOMPARE(o.source, QStringLiteral("autodetected"));
        QVERIFY2(evidenceScore(o.evidence) >= AutoDetector::Threshold, qPrintable(describe(o)));
        found << written(o, c.text);
        keyed << describeKey(o);
    }
    QCOMPARE(detector.objects().size(), d.objects.size()); // asking again finds as many
    if (c.objects) {
        QStringList expected = *c.objects;
        if (c.sorted) {
            found.sort();
            expected.sort();
        }
        QCOMPARE(found, expected);
    }
    for (const QString &p : c.present)
        QVERIFY2(keyed.contains(p), qPrintable(p + QStringLiteral(" not in: ") + keyed.join(u',')));
    for (const QString &k : std::as_const(keyed))
        QVERIFY2(!matchesAny(c.absent, k), qPrintable(k));
    for (auto it = c.members.cbegin(); it != c.members.cend(); ++it) {
        const qsizetype i = keyed.indexOf(it.key());
        QVERIFY2(i >= 0, qPrintable(it.key()));
        QCOMPARE(d.objects.at(i).members, it.value());
    }

    QStringList candidates;
    for (const Candidate &cand : d.candidates) {
        QVERIFY(cand.score > 0 && cand.score < AutoDetector::Threshold);
        QVERIFY(!cand.sampleKeys.isEmpty());
        candidates << QStringLiteral("%1 %2 %3")
                          .arg(cand.kind.id(), QString::fromUtf8(cand.family))
                          .arg(cand.count);
    }
    if (c.candidates)
        QCOMPARE(candidates, *c.candidates);
    for (const QString &k : std::as_const(candidates))
        QVERIFY2(!matchesAny(c.absentCandidates, k), qPrintable(k));

    if (c.rules)
        QCOMPARE(rulesJson(detector.suggestedProfile()), *c.rules);
    if (!c.reason.isEmpty()) {
        const QList<Evidence> evidence = !d.objects.isEmpty()      ? d.objects.first().evidence
                                         : !d.candidates.isEmpty() ? d.candidates.first().evidence
                                                                   : QList<Evidence>();
        QStringList reasons;
        for (const Evidence &e : evidence)
            reasons << QStringLiteral("%1 %2: %3")
                           .arg(evidenceKindId(e.kind))
                           .arg(e.weight)
                           .arg(e.reason);
        QVERIFY2(reasons.join(u'\n').contains(c.reason), qPrintable(reasons.join(u'\n')));
    }
    if (c.check)
        c.check(d);
}

QList<PatternObject> detect(const QList<KeyShape> &shapes, AutoDetector *keep)
{
    AutoDetector detector;
    for (const KeyShape &s : shapes)
        detector.add(s, ShapeNowMs);
    if (keep)
        *keep = detector;
    return detector.objects();
}

QString describeKey(const PatternObject &o)
{
    return o.kind.id() + QLatin1Char(' ') + QString::fromUtf8(o.key);
}

QString describe(const PatternObject &o)
{
    QStringList related;
    for (const QByteArray &k : o.related)
        related << QString::fromUtf8(k);
    return QStringLiteral("%1 [%2]").arg(describeKey(o), related.join(QLatin1Char(',')));
}

QStringList describeAll(const QList<PatternObject> &objects)
{
    QStringList out;
    for (const PatternObject &o : objects)
        out << describe(o);
    return out;
}

QString describeFully(const PatternObject &o)
{
    QStringList members;
    for (const QByteArray &k : o.members)
        members << QString::fromUtf8(k);
    QString text = describe(o);
    if (!o.parent.isEmpty())
        text += QStringLiteral(" parent=") + QString::fromUtf8(o.parent);
    text += QStringLiteral(" window=%1ms unit=%2ms")
                .arg(o.params.windowMs)
                .arg(o.params.scoreUnitMs);
    if (o.params.limit)
        text += QStringLiteral(" limit=%1").arg(*o.params.limit);
    if (!members.isEmpty())
        text += QStringLiteral(" members=") + members.join(QLatin1Char(','));
    if (o.countedTokens)
        text += QStringLiteral(" counted");
    return text;
}

QStringList rulesJson(const Profile &profile)
{
    QStringList out;
    const QJsonArray rules = QJsonDocument::fromJson(profile.toJson())
                                 .object()
                                 .value(QStringLiteral("rules"))
                                 .toArray();
    for (const QJsonValue &rule : rules)
        out << QString::fromUtf8(QJsonDocument(rule.toObject()).toJson(QJsonDocument::Compact));
    return out;
}

} // namespace gatehouse::test
