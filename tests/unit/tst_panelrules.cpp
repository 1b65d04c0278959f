// SPDX-License-Identifier: MIT
// The console's side of the patterns: the panel registry gives each page the
// panels of its patterns, and no file of widgets/, app/ or backend/ outside a
// pattern's own folders names a pattern or a section to compare it; widgets
// do not touch the wire.
#include <panels/panelregistry.h>
#include <patterns/patternregistry.h>
#include <patterns/patternunit.h>

#include <QDirIterator>
#include <QFile>
#include <QRegularExpression>
#include <QTest>

using namespace gatehouse;

namespace {

const QString Source = QStringLiteral(GATEHOUSE_SOURCE_DIR);

// Every pattern id and section id the backend registry knows.
QStringList registeredIds()
{
    QStringList ids;
    for (const PatternUnit *unit : PatternRegistry::instance().units()) {
        ids << unit->kind().id() << unit->section().id;
    }
    ids.removeDuplicates();
    return ids;
}

// The C++ files of widgets/, app/ and backend/, relative to the source tree.
QStringList consoleFiles()
{
    QStringList files;
    for (const QString &dir :
         {QStringLiteral("widgets"), QStringLiteral("app"), QStringLiteral("backend")}) {
        QDirIterator it(Source + QLatin1Char('/') + dir,
                        {QStringLiteral("*.cpp"), QStringLiteral("*.h")}, QDir::Files,
                        QDirIterator::Subdirectories);
        while (it.hasNext())
            files << it.next().mid(Source.size() + 1);
    }
    files.sort();
    return files;
}

QString read(const QString &relative)
{
    QFile f(Source + QLatin1Char('/') + relative);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QString::fromUtf8(f.readAll());
}

// The lines of text that match re, as "file:line: text".
QStringList matches(const QString &file, const QString &text, const QRegularExpression &re)
{
    QStringList out;
    const QStringList lines = text.split(QLatin1Char('\n'));
    for (int i = 0; i < lines.size(); ++i) {
        const QString line = lines.at(i).trimmed();
        if (line.startsWith(QLatin1String("//")))
            continue;
        if (re.match(line).hasMatch())
            out << QStringLiteral("%1:%2: %3").arg(file).arg(i + 1).arg(line);
    }
    return out;
}

// A pattern's own folder, a pattern's or a shared section's own panels
// folder, and the two files that register them, may name it. A pattern's
// folder may use another's (a unit built on another's, like Bull on BullMQ's).
bool mayName(const QString &file, const QStringList &ids)
{
    if (file == QLatin1String("widgets/panels/builtinpanels.cpp")
        || file == QLatin1String("backend/patterns/builtinpatterns.cpp"))
        return true;
    for (const QString &id : ids) {
        if (file.startsWith(QLatin1String("widgets/panels/") + id + QLatin1Char('/'))
            || file.startsWith(QLatin1String("backend/patterns/") + id + QLatin1Char('/')))
            return true;
    }
    return false;
}

} // namespace

class tst_PanelRules : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    // A registry lookup instead of a comparison: a file outside a pattern's
    // folders that compares a pattern or section id (as a string, or as a
    // pattern's Kind), makes a kind from a literal id, or includes a
    // pattern's own header, is named here.
    void noPatternOrSectionIdCompared()
    {
        const QStringList ids = registeredIds();
        QVERIFY(ids.contains(QStringLiteral("lock")));
        QVERIFY(ids.contains(QStringLiteral("queue")));
        QStringList quoted;
        for (const QString &id : ids)
            quoted << QRegularExpression::escape(QLatin1Char('"') + id + QLatin1Char('"'));
        const QString literal = QStringLiteral("(?:%1)").arg(quoted.join(QLatin1Char('|')));
        const QString wrapped
            = QStringLiteral("(?:(?:QLatin1String|QLatin1StringView|QStringLiteral|QString|"
                             "QByteArray|QByteArrayLiteral|u8?)\\s*\\(\\s*)?");
        const QRegularExpression compare(
            QStringLiteral("(?:==|!=)\\s*%1%2|%2\\s*\\)?\\s*(?:==|!=)|PatternKind\\s*\\w*\\s*[({]"
                           "\\s*%2|(?:==|!=)\\s*\\w+Unit::Kind\\b|\\b\\w+Unit::Kind\\s*(?:==|!=)|#"
                           "include\\s*<patterns/[a-z-]+/")
                .arg(wrapped, literal));
        QVERIFY(compare.isValid());
        QStringList found;
        int scanned = 0;
        for (const QString &file : consoleFiles()) {
            if (mayName(file, ids))
                continue;
            ++scanned;
            found << matches(file, read(file), compare);
        }
        QVERIFY2(scanned > 50,
                 qPrintable(QStringLiteral("only %1 files under %2").arg(scanned).arg(Source)));
        QVERIFY2(found.isEmpty(), qPrintable(QStringLiteral("\n") + found.join(QLatin1Char('\n'))));

        // The check itself: it sees the comparisons it is for.
        QVERIFY(!matches(QStringLiteral("x.cpp"),
                         QStringLiteral("if (section == QLatin1String(\"token\"))"), compare)
                     .isEmpty());
        QVERIFY(!matches(QStringLiteral("x.cpp"),
                         QStringLiteral("static const PatternKind legacyLock(\"legacy-lock\");"),
                         compare)
                     .isEmpty());
        QVERIFY(!matches(QStringLiteral("x.cpp"),
                         QStringLiteral("if (o.object->kind == TokenFamilyUnit::Kind)"), compare)
                     .isEmpty());
        QVERIFY(matches(QStringLiteral("x.cpp"),
                        QStringLiteral("if (theme == QLatin1String(\"dark\"))"), compare)
                    .isEmpty());
    }

    // Widgets get snapshots and send requests: no widget file includes a
    // header of the wire or names a client. The files listed still read
    // Redis themselves (docs/architecture.md says which and how); the list
    // only shrinks.
    void widgetsDoNotTouchTheWire()
    {
        const QStringList stillReading = {
            QStringLiteral("widgets/connectiondialog.cpp"),
        };
        const QRegularExpression wire(QStringLiteral(
            "#include\\s*[<\"]redis/"
            "(?:redisclient|redisconnection|redisrouter|redissubscriber|redisscript|"
            "connectionprobe)\\.h|\\b(?:RedisClient|ConnectionProbe|RedisRouter|RedisSubscriber|"
            "RedisScript)\\b|\\bRedisConnection\\b(?!::(?:State|ErrorKind))"));
        QStringList found;
        QStringList cleaned;
        for (const QString &file : consoleFiles()) {
            if (!file.startsWith(QLatin1String("widgets/")))
                continue;
            const QStringList lines = matches(file, read(file), wire);
            if (stillReading.contains(file)) {
                if (lines.isEmpty())
                    cleaned << file;
            } else {
                found << lines;
            }
        }
        QVERIFY2(found.isEmpty(), qPrintable(QStringLiteral("\n") + found.join(QLatin1Char('\n'))));
        // A file that stopped reading leaves the list (and the docs' list).
        QVERIFY2(cleaned.isEmpty(), qPrintable(cleaned.join(QLatin1String(", "))));
    }

    // The registry: a page gets its patterns' panels, once each, serving the
    // patterns of that page; tiles and the queue chart are asked by kind.
    void registryAnswersByKind()
    {
        const PanelRegistry &panels = PanelRegistry::instance();
        const PatternRegistry &patterns = PatternRegistry::instance();
        QStringList tileNames;
        for (const PanelRegistry::Tile &t : panels.tiles())
            tileNames << t.name;
        QCOMPARE(tileNames,
                 QStringList({QStringLiteral("tileStuck"), QStringLiteral("tileDead"),
                              QStringLiteral("tileLimited"), QStringLiteral("tileExpired")}));
        for (const PatternUnit *unit : patterns.units()) {
            const bool queue = unit->section().id == QLatin1String("queue");
            QCOMPARE(panels.inQueueActivity(unit->kind()), queue);
            if (queue)
                QCOMPARE(panels.tilesOf(unit->kind()), QList<int>({0, 1}));
        }
        const std::optional<Section> locks = patterns.section(QStringLiteral("lock"));
        QVERIFY(locks);
        QWidget parent;
        const QList<ObjectPanel *> made = panels.createPanels(*locks, {}, &parent);
        QCOMPARE(made.size(), 1);
        QCOMPARE(made.first()->objectName(), QStringLiteral("lockTimelinePanel"));
        const std::optional<Section> limiters = patterns.section(QStringLiteral("limiter"));
        QVERIFY(limiters);
        QVERIFY(panels.createPanels(*limiters, {}, &parent).isEmpty());
    }
};

QTEST_MAIN(tst_PanelRules)
#include "tst_panelrules.moc"
