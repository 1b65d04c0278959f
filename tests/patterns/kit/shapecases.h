// SPDX-License-Identifier: MIT
#pragma once

// The registry of autodetection cases: each pattern's folder
// (tests/patterns/<pattern>/) registers a keyspace of its own and the cases
// that say what autodetection makes of its keys; tst_autodetector runs every
// pattern's hooks on the keyspaces and every case as one data row.
#include <monitor/autodetector.h>

#include <QStringList>

#include <functional>
#include <optional>

namespace gatehouse::test {

// How a case writes an object it expects.
enum class ObjectText {
    Key,     // "<pattern> <key>"
    Related, // "<pattern> <key> [<related>,...]"
    Full,    // describeFully(): parent, params, members as well
};

// One canned keyspace (the shapes autodetection's bounded look shows, at
// ShapeNowMs) and what must come out of it. An expectation left unset is
// not checked; every case also checks that each object is autodetected and
// carries enough evidence, that asking again finds as many, and that each
// candidate scores below the threshold and names sample keys.
struct ShapeCase
{
    QString name;
    QList<KeyShape> shapes;

    // Exactly these objects, as text says, in the order found (or both
    // sides sorted).
    std::optional<QStringList> objects;
    ObjectText text = ObjectText::Key;
    bool sorted = false;
    QStringList present;                       // "<pattern> <key>" of an object that must be found
    QStringList absent;                        // globs (globMatch) no "<pattern> <key>" matches
    QHash<QString, QList<QByteArray>> members; // by "<pattern> <key>"
    // Exactly these candidates, "<pattern> <family> <count>", in order.
    std::optional<QStringList> candidates;
    QStringList absentCandidates; // globs no "<pattern> <family> <count>" matches
    // The suggested profile's rules, as compact JSON (rulesJson).
    std::optional<QStringList> rules;
    // In the first object's (else the first candidate's) evidence, each
    // written "<kind> <weight>: <reason>".
    QString reason;
    std::function<void(const Detection &)> check; // what the fields cannot say
};

// Exactly these objects, "<pattern> <key>", in any order.
ShapeCase objectsCase(const QString &name, const QList<KeyShape> &shapes,
                      const QStringList &objects);
// Exactly these objects ("<pattern> <key>") and candidates, in order, and a
// reason in the first one's evidence (none when empty).
ShapeCase evidenceCase(const QString &name, const QList<KeyShape> &shapes,
                       const QStringList &objects, const QStringList &candidates,
                       const QString &reason);
// Exactly these objects, described fully, in order, and the rules of the
// profile an operator is offered for them.
ShapeCase profileCase(const QString &name, const QList<KeyShape> &shapes,
                      const QStringList &objects, const QStringList &rules);

// What a pattern registers.
struct PatternShapes
{
    // A keyspace with instances of the pattern and of no other: the shared
    // tests check its rule round trip and its evidence on it, and a pattern
    // without one fails them.
    QList<KeyShape> sample;
    QList<ShapeCase> cases;
};

// A pattern's cases file holds one, at namespace scope:
//   const ShapeRegistrar s_registrar("bullmq", &shapes);
// make() runs when the shapes are first asked for. The cases files are
// compiled into the test executable (no library the linker could drop
// them from).
class ShapeRegistrar
{
public:
    ShapeRegistrar(const char *pattern, PatternShapes (*make)());
};

QStringList shapePatterns();                           // sorted
const PatternShapes &shapesOf(const QString &pattern); // empty when unregistered
inline QList<KeyShape> sampleOf(const QString &pattern)
{
    return shapesOf(pattern).sample;
}

// The data rows of every registered case, named "<pattern>: <case>", with
// the columns "pattern" (QString) and "index" (int); and one row's checks.
void addShapeCaseRows();
void verifyShapeCase(const QString &pattern, int index);
// The same checks for a case of no pattern's (a test's own data row).
void verifyShapeCase(const ShapeCase &c);

// Each shape added at ShapeNowMs; keep, when given, is the detector after.
QList<PatternObject> detect(const QList<KeyShape> &shapes, AutoDetector *keep = nullptr);
QString describeKey(const PatternObject &o); // "<pattern> <key>"
QString describe(const PatternObject &o);    // "<pattern> <key> [<related>,...]"
QStringList describeAll(const QList<PatternObject> &objects);
// Everything autodetection fills in: kind, keys, parent, params, members.
QString describeFully(const PatternObject &o);
// A profile's rules as the JSON an operator saves, one compact object each.
QStringList rulesJson(const Profile &profile);

} // namespace gatehouse::test

Q_DECLARE_METATYPE(gatehouse::test::ShapeCase)
