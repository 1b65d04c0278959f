// SPDX-License-Identifier: MIT
#include "alertrule.h"

#include <patterns/globmatch.h>
#include <patterns/patternregistry.h>
#include <redis/userinput.h>

#include <QDir>
#include <QJsonDocument>
#include <QRegularExpression>

#include <algorithm>
#include <cmath>

namespace gatehouse {

namespace {

const QString s_node = QStringLiteral("node");

QList<const PatternUnit *> unitsFor(const QString &target)
{
    const PatternRegistry &registry = PatternRegistry::instance();
    if (target.isEmpty())
        return registry.units();
    if (registry.section(target))
        return registry.unitsIn(target);
    if (const PatternUnit *unit = registry.find(target))
        return {unit};
    return {};
}

std::optional<AlertRule::Comparison> comparisonFrom(const QString &op)
{
    if (op == QLatin1String(">"))
        return AlertRule::Comparison::Above;
    if (op == QLatin1String(">="))
        return AlertRule::Comparison::AtLeast;
    if (op == QLatin1String("<"))
        return AlertRule::Comparison::Below;
    if (op == QLatin1String("<="))
        return AlertRule::Comparison::AtMost;
    return std::nullopt;
}

std::optional<AlertRule::Severity> severityFrom(const QString &id)
{
    for (auto s :
         {AlertRule::Severity::Info, AlertRule::Severity::Warning, AlertRule::Severity::Critical}) {
        if (AlertRule::severityId(s) == id)
            return s;
    }
    return std::nullopt;
}

// A JSON value as the person wrote it, for error sentences.
QString written(const QJsonValue &v)
{
    if (v.isString())
        return QLatin1Char('"') + echoed(v.toString()) + QLatin1Char('"');
    return echoed(QString::fromUtf8(QJsonDocument(QJsonArray{v}).toJson(QJsonDocument::Compact))
                      .mid(1)
                      .chopped(1));
}

// "limiter", "limiter:sim:rl:*", "sim:rl:*", "node:10.0.0.2:6379".
void splitTarget(const QString &text, QString *target, QByteArray *match)
{
    const QStringList known = AlertRule::targets();
    if (known.contains(text)) {
        *target = text;
        match->clear();
        return;
    }
    const qsizetype colon = text.indexOf(QLatin1Char(':'));
    if (colon > 0 && known.contains(text.left(colon))) {
        *target = text.left(colon);
        *match = text.mid(colon + 1).toUtf8();
        return;
    }
    target->clear();
    *match = text.toUtf8();
}

// The known target a bare word was likely meant as ("queues", "bulmq"):
// within two edits of one; empty when none is that close.
QString nearTarget(const QString &word)
{
    const QString w = word.toLower();
    QString best;
    qsizetype bestDistance = 3;
    for (const QString &t : AlertRule::targets()) {
        // Levenshtein distance, one row at a time.
        QList<qsizetype> row(t.size() + 1);
        for (qsizetype j = 0; j <= t.size(); ++j)
            row[j] = j;
        for (qsizetype i = 1; i <= w.size(); ++i) {
            qsizetype diagonal = row[0];
            row[0] = i;
            for (qsizetype j = 1; j <= t.size(); ++j) {
                const qsizetype up = row[j];
                row[j] = std::min(
                    {row[j] + 1, row[j - 1] + 1, diagonal + (w.at(i - 1) == t.at(j - 1) ? 0 : 1)});
                diagonal = up;
            }
        }
        // One edit away, or two for longer words ("bulmq", "sempahore").
        const qsizetype allowed = std::min(w.size(), t.size()) >= 5 ? 2 : 1;
        if (row[t.size()] <= allowed && row[t.size()] < bestDistance) {
            bestDistance = row[t.size()];
            best = t;
        }
    }
    return best;
}

} // namespace

QStringList AlertRule::targets()
{
    QStringList out{s_node};
    for (const Section &s : PatternRegistry::instance().sections())
        out << s.id;
    // A pattern named as its section ("lock") is listed once.
    for (const QString &id : PatternRegistry::instance().ids()) {
        if (!out.contains(id))
            out << id;
    }
    return out;
}

QList<AlertFigure> AlertRule::nodeFigures()
{
    // Nodes are not patterns: their figures come from the snapshot's
    // ServerStatus, read by the AlertEngine; value() is unused for them.
    return {
        {QStringLiteral("down"), QStringLiteral("Down"), AlertFigure::Unit::Count, {}},
        {QStringLiteral("replicaLagBytes"),
         QStringLiteral("Replica lag (bytes)"),
         AlertFigure::Unit::Count,
         {}},
        {QStringLiteral("readingAgeMs"),
         QStringLiteral("Reading age"),
         AlertFigure::Unit::Duration,
         {}},
    };
}

std::optional<AlertFigure> AlertRule::findFigure(const QString &target, const QString &figure)
{
    if (target == s_node) {
        for (const AlertFigure &f : nodeFigures()) {
            if (f.id == figure)
                return f;
        }
        return std::nullopt;
    }
    for (const PatternUnit *unit : unitsFor(target)) {
        for (const AlertFigure &f : unit->alertFigures()) {
            if (f.id == figure)
                return f;
        }
    }
    return std::nullopt;
}

QStringList AlertRule::figureIds(const QString &target)
{
    QStringList out;
    const auto add = [&out](const QList<AlertFigure> &figures) {
        for (const AlertFigure &f : figures) {
            if (!out.contains(f.id))
                out << f.id;
        }
    };
    if (target == s_node) {
        add(nodeFigures());
        return out;
    }
    for (const PatternUnit *unit : unitsFor(target))
        add(unit->alertFigures());
    return out;
}

AlertFigure::Unit AlertRule::unit() const
{
    const std::optional<AlertFigure> f = findFigure(target, figure);
    return f ? f->unit : AlertFigure::Unit::Count;
}

bool AlertRule::holds(double value) const
{
    switch (comparison) {
    case Comparison::Above:
        return value > threshold;
    case Comparison::AtLeast:
        return value >= threshold;
    case Comparison::Below:
        return value < threshold;
    case Comparison::AtMost:
        return value <= threshold;
    }
    return false;
}

bool AlertRule::decidedByLowerBound(double lowerBound) const
{
    switch (comparison) {
    case Comparison::Above:
    case Comparison::AtLeast:
        return holds(lowerBound);
    case Comparison::Below:
    case Comparison::AtMost:
        return !holds(lowerBound);
    }
    return false;
}

bool AlertRule::targets(PatternKind kind, const QByteArray &key) const
{
    if (targetsNodes())
        return false;
    if (!target.isEmpty() && target != patternSection(kind) && target != patternId(kind))
        return false;
    return match.isEmpty() || globMatch(match, key);
}

QString AlertRule::comparisonText(Comparison c)
{
    switch (c) {
    case Comparison::Above:
        return QStringLiteral(">");
    case Comparison::AtLeast:
        return QStringLiteral(">=");
    case Comparison::Below:
        return QStringLiteral("<");
    case Comparison::AtMost:
        return QStringLiteral("<=");
    }
    return {};
}

QString AlertRule::severityId(Severity s)
{
    switch (s) {
    case Severity::Info:
        return QStringLiteral("info");
    case Severity::Warning:
        return QStringLiteral("warning");
    case Severity::Critical:
        return QStringLiteral("critical");
    }
    return {};
}

QString AlertRule::formatValue(double value, AlertFigure::Unit unit)
{
    switch (unit) {
    case AlertFigure::Unit::Ratio:
        return formatPercent(value) + QStringLiteral(" %");
    case AlertFigure::Unit::Duration:
        return formatMs(qint64(std::llround(value)));
    case AlertFigure::Unit::Count:
        break;
    }
    return QString::number(value, 'g', 12);
}

std::optional<double> AlertRule::parseValue(const QString &text, AlertFigure::Unit unit)
{
    static const QRegularExpression re(QStringLiteral(
        "^\\s*(-?[0-9]+(?:\\.[0-9]+)?(?:[eE][-+]?[0-9]+)?)\\s*(%|ms|s|m|min|h)?\\s*$"));
    const QRegularExpressionMatch m = re.match(text);
    if (!m.hasMatch())
        return std::nullopt;
    // The exponent form is how a large value is written back ("8.1e+19%").
    const double v = m.captured(1).toDouble();
    if (!std::isfinite(v))
        return std::nullopt;
    const QString suffix = m.captured(2);
    switch (unit) {
    case AlertFigure::Unit::Ratio:
        return suffix.isEmpty() || suffix == QLatin1String("%") ? std::optional(v / 100.0)
                                                                : std::nullopt;
    case AlertFigure::Unit::Duration:
        if (suffix == QLatin1String("ms"))
            return v;
        if (suffix.isEmpty() || suffix == QLatin1String("s"))
            return v * 1000.0;
        if (suffix == QLatin1String("m") || suffix == QLatin1String("min"))
            return v * 60000.0;
        if (suffix == QLatin1String("h"))
            return v * 3600000.0;
        return std::nullopt;
    case AlertFigure::Unit::Count:
        break;
    }
    return suffix.isEmpty() ? std::optional(v) : std::nullopt;
}

QString AlertRule::figureTitle() const
{
    const std::optional<AlertFigure> f = findFigure(target, figure);
    return f && !f->title.isEmpty() ? f->title : figure;
}

QString AlertRule::conditionText() const
{
    return QStringLiteral("%1 %2 %3")
        .arg(figureTitle(), comparisonText(comparison), formatValue(threshold, unit()));
}

namespace {

// How the console names a rule's target: a section's title ("Queues"), a
// pattern's ("Sidekiq deployment"), the nodes; the id itself otherwise.
QString targetTitle(const QString &target)
{
    if (target == QLatin1String("node"))
        return QStringLiteral("Nodes");
    if (const std::optional<Section> s = PatternRegistry::instance().section(target))
        return s->title;
    if (const std::optional<PatternKind> kind = patternFromId(target))
        return PatternUnit::of(*kind).title();
    return target;
}

} // namespace

QString AlertRule::shownName() const
{
    if (!name.isEmpty() && name != expression())
        return name;
    QString out = conditionText();
    if (forMs > 0)
        out += QStringLiteral(" for ") + formatValue(double(forMs), AlertFigure::Unit::Duration);
    // "on Queues", not "on Queues *": every key is what the section says.
    const QByteArray keys = match == "*" && !target.isEmpty() ? QByteArray() : match;
    if (!target.isEmpty() || !keys.isEmpty()) {
        out += QStringLiteral(" on ") + targetTitle(target);
        if (!target.isEmpty() && !keys.isEmpty())
            out += QLatin1Char(' ');
        out += QString::fromUtf8(keys);
    }
    return out;
}

QString AlertRule::expression() const
{
    const AlertFigure::Unit u = unit();
    QString value;
    switch (u) {
    case AlertFigure::Unit::Ratio:
        value = QString::number(threshold * 100.0, 'g', 12) + QLatin1Char('%');
        break;
    case AlertFigure::Unit::Duration:
        value = QString::number(threshold, 'g', 15) + QStringLiteral("ms");
        break;
    case AlertFigure::Unit::Count:
        value = QString::number(threshold, 'g', 15);
        break;
    }
    QString out = figure + QLatin1Char(' ') + comparisonText(comparison) + QLatin1Char(' ') + value;
    if (forMs > 0)
        out += QStringLiteral(" for %1ms").arg(forMs);
    if (!target.isEmpty() || !match.isEmpty()) {
        out += QStringLiteral(" on ") + target;
        if (!target.isEmpty() && !match.isEmpty())
            out += QLatin1Char(':');
        out += QString::fromUtf8(match);
    }
    if (severity != Severity::Warning)
        out += QStringLiteral(" severity ") + severityId(severity);
    return out;
}

QJsonObject AlertRule::toJson() const
{
    QJsonObject o{{QStringLiteral("name"), name},
                  {QStringLiteral("figure"), figure},
                  {QStringLiteral("op"), comparisonText(comparison)},
                  {QStringLiteral("severity"), severityId(severity)}};
    if (!target.isEmpty())
        o.insert(QStringLiteral("target"), target);
    if (!match.isEmpty())
        o.insert(QStringLiteral("match"), QString::fromUtf8(match));
    // Thresholds are written as a person reads them ("80%", "30000ms").
    const AlertFigure::Unit u = unit();
    if (u == AlertFigure::Unit::Ratio)
        o.insert(QStringLiteral("threshold"),
                 QString(QString::number(threshold * 100.0, 'g', 12) + QLatin1Char('%')));
    else if (u == AlertFigure::Unit::Duration)
        o.insert(QStringLiteral("threshold"),
                 QString(QString::number(threshold, 'g', 15) + QStringLiteral("ms")));
    else
        o.insert(QStringLiteral("threshold"), threshold);
    if (forMs > 0)
        o.insert(QStringLiteral("for"), QStringLiteral("%1ms").arg(forMs));
    return o;
}

std::optional<AlertRule> AlertRule::fromJson(const QJsonObject &o, const QString &where,
                                             QString *error)
{
    AlertRule rule;
    const auto fail = [&](const char *field, const QString &what) {
        *error = QStringLiteral("%1, field \"%2\": %3.").arg(where, QLatin1String(field), what);
        return std::nullopt;
    };
    static const QStringList fields{QStringLiteral("name"),    QStringLiteral("target"),
                                    QStringLiteral("match"),   QStringLiteral("figure"),
                                    QStringLiteral("op"),      QStringLiteral("threshold"),
                                    QStringLiteral("for"),     QStringLiteral("severity"),
                                    QStringLiteral("comment"), QStringLiteral("description")};
    for (auto it = o.begin(); it != o.end(); ++it) {
        if (!fields.contains(it.key())) {
            *error = QStringLiteral("%1: unknown field \"%2\"; an alert rule has %3.")
                         .arg(where, echoed(it.key()), fields.join(QStringLiteral(", ")));
            return std::nullopt;
        }
    }
    for (const char *field : {"name", "target", "match", "figure", "op", "severity"}) {
        const QJsonValue v = o.value(QLatin1String(field));
        if (!v.isUndefined() && !v.isString())
            return fail(field, QStringLiteral("must be a string, not %1").arg(written(v)));
    }
    rule.target = o.value(QLatin1String("target")).toString();
    if (!rule.target.isEmpty() && !targets().contains(rule.target))
        return fail("target",
                    QStringLiteral("must be \"node\", a section or a pattern id (%1), not \"%2\"")
                        .arg(targets().join(QStringLiteral(", ")), echoed(rule.target)));
    rule.match = o.value(QLatin1String("match")).toString().toUtf8();
    rule.figure = o.value(QLatin1String("figure")).toString();
    if (rule.figure.isEmpty())
        return fail("figure", QStringLiteral("is missing; use one of %1")
                                  .arg(figureIds(rule.target).join(QStringLiteral(", "))));
    const std::optional<AlertFigure> figure = findFigure(rule.target, rule.figure);
    if (!figure)
        return fail("figure",
                    QStringLiteral("\"%1\" is not a figure of %2; use one of %3")
                        .arg(echoed(rule.figure),
                             rule.target.isEmpty()
                                 ? QStringLiteral("any pattern")
                                 : QString(QLatin1Char('"') + rule.target + QLatin1Char('"')),
                             figureIds(rule.target).join(QStringLiteral(", "))));
    const QJsonValue op = o.value(QLatin1String("op"));
    const std::optional<Comparison> c
        = op.isUndefined() ? std::optional(Comparison::AtLeast) : comparisonFrom(op.toString());
    if (!c)
        return fail("op", QStringLiteral("must be one of >, >=, <, <=, not %1").arg(written(op)));
    rule.comparison = *c;
    const QJsonValue threshold = o.value(QLatin1String("threshold"));
    std::optional<double> t;
    if (threshold.isDouble())
        t = parseValue(QString::number(threshold.toDouble(), 'g', 17), figure->unit);
    else if (threshold.isString())
        t = parseValue(threshold.toString(), figure->unit);
    if (!t) {
        const QString example = figure->unit == AlertFigure::Unit::Ratio ? QStringLiteral("\"80%\"")
                                : figure->unit == AlertFigure::Unit::Duration
                                    ? QStringLiteral("\"30s\", \"500ms\" or \"5m\"")
                                    : QStringLiteral("a number such as 0 or 100");
        return fail("threshold",
                    threshold.isUndefined()
                        ? QStringLiteral("is missing; give %1").arg(example)
                        : QStringLiteral("must be %1, not %2").arg(example, written(threshold)));
    }
    rule.threshold = *t;
    const QJsonValue forValue = o.value(QLatin1String("for"));
    if (!forValue.isUndefined()) {
        std::optional<double> f;
        if (forValue.isDouble())
            f = parseValue(QString::number(forValue.toDouble(), 'g', 17),
                           AlertFigure::Unit::Duration);
        else if (forValue.isString())
            f = parseValue(forValue.toString(), AlertFigure::Unit::Duration);
        if (!f || *f < 0 || *f > 7 * 24 * 3600 * 1000.0)
            return fail("for", QStringLiteral("must be a duration from 0 to 7 days such as \"5s\" "
                                              "or \"2m\", not %1")
                                   .arg(written(forValue)));
        rule.forMs = qint64(std::llround(*f));
    }
    const QJsonValue severity = o.value(QLatin1String("severity"));
    if (!severity.isUndefined()) {
        const std::optional<Severity> s = severityFrom(severity.toString());
        if (!s)
            return fail(
                "severity",
                QStringLiteral("must be info, warning or critical, not %1").arg(written(severity)));
        rule.severity = *s;
    }
    rule.name = o.value(QLatin1String("name")).toString();
    if (rule.name.isEmpty())
        rule.name = rule.expression();
    return rule;
}

std::optional<QList<AlertRule>> AlertRule::listFromJson(const QJsonValue &json,
                                                        const QString &fileName, QString *error)
{
    const QString file = echoed(QDir::toNativeSeparators(fileName));
    QList<AlertRule> rules;
    if (json.isUndefined())
        return rules;
    if (!json.isArray()) {
        *error
            = QStringLiteral("%1: \"alerts\" must be a list of alert rules (objects).").arg(file);
        return std::nullopt;
    }
    const QJsonArray list = json.toArray();
    for (qsizetype i = 0; i < list.size(); ++i) {
        const QJsonObject o = list.at(i).toObject();
        QString where = QStringLiteral("%1: alert rule %2").arg(file).arg(i + 1);
        if (o.value(QLatin1String("name")).isString())
            where += QStringLiteral(" (\"%1\")")
                         .arg(echoed(o.value(QLatin1String("name")).toString()));
        if (!list.at(i).isObject()) {
            *error = where
                     + QStringLiteral(": must be an object with \"figure\", \"op\" and "
                                      "\"threshold\".");
            return std::nullopt;
        }
        const std::optional<AlertRule> rule = fromJson(o, where, error);
        if (!rule)
            return std::nullopt;
        for (const AlertRule &earlier : std::as_const(rules)) {
            if (earlier.name == rule->name) {
                *error = where
                         + QStringLiteral(", field \"name\": another rule is named \"%1\"; names "
                                          "tell firings apart, so each must be unique.")
                               .arg(echoed(rule->name));
                return std::nullopt;
            }
        }
        rules.append(*rule);
    }
    return rules;
}

QJsonArray AlertRule::listToJson(const QList<AlertRule> &rules)
{
    QJsonArray out;
    for (const AlertRule &r : rules)
        out.append(r.toJson());
    return out;
}

std::optional<AlertRule> AlertRule::parseExpression(const QString &text, QString *error)
{
    static const QRegularExpression head(QStringLiteral(
        "^\\s*([A-Za-z][A-Za-z0-9_.]*)\\s*(>=|<=|>|<)\\s*(-?[0-9.]+\\s*(?:%|ms|min|s|m|h)?)"
        "(?=\\s|$)(.*)$"));
    const QRegularExpressionMatch m = head.match(text);
    const QString grammar = QStringLiteral(
        "write FIGURE OP VALUE [for DURATION] [on TARGET] [as NAME] [severity info|warning|"
        "critical], such as \"occupancy >= 80% for 5s on limiter:sim:rl:*\"");
    if (!m.hasMatch()) {
        *error = QStringLiteral("--alert \"%1\" is not an alert expression: %2.")
                     .arg(echoed(text), grammar);
        return std::nullopt;
    }
    QJsonObject o{{QStringLiteral("figure"), m.captured(1)},
                  {QStringLiteral("op"), m.captured(2)},
                  {QStringLiteral("threshold"), m.captured(3)}};
    QStringList words = m.captured(4).split(QLatin1Char(' '), Qt::SkipEmptyParts);
    static const QStringList units{QStringLiteral("ms"), QStringLiteral("s"), QStringLiteral("m"),
                                   QStringLiteral("min"), QStringLiteral("h")};
    for (qsizetype i = 0; i < words.size(); ++i) {
        const QString word = words.at(i);
        if (i + 1 >= words.size()) {
            *error = QStringLiteral("--alert \"%1\": \"%2\" needs a value after it; %3.")
                         .arg(echoed(text), echoed(word), grammar);
            return std::nullopt;
        }
        QString value = words.at(++i);
        if (word == QLatin1String("for")) {
            // "for 5 s" reads as well as "for 5s"
            if (i + 1 < words.size() && units.contains(words.at(i + 1)))
                value += words.at(++i);
            o.insert(QStringLiteral("for"), value);
        } else if (word == QLatin1String("on")) {
            QString target;
            QByteArray match;
            splitTarget(value, &target, &match);
            // A bare word a letter or two off a target is a typo, not the
            // name of a key: a rule on it would never fire.
            static const QRegularExpression globOrPart(QStringLiteral("[:*?\\[{]"));
            if (target.isEmpty() && !value.contains(globOrPart)) {
                if (const QString near = nearTarget(value); !near.isEmpty()) {
                    *error = QStringLiteral("--alert \"%1\": \"%2\" is not a target; did you mean "
                                            "\"%3\"? (To watch a key of that name, write "
                                            "\"on %3:%2\".)")
                                 .arg(echoed(text), echoed(value), near);
                    return std::nullopt;
                }
            }
            if (!target.isEmpty())
                o.insert(QStringLiteral("target"), target);
            if (!match.isEmpty())
                o.insert(QStringLiteral("match"), QString::fromUtf8(match));
        } else if (word == QLatin1String("as")) {
            o.insert(QStringLiteral("name"), value);
        } else if (word == QLatin1String("severity")) {
            o.insert(QStringLiteral("severity"), value);
        } else {
            *error = QStringLiteral("--alert \"%1\": unexpected \"%2\"; %3.")
                         .arg(echoed(text), echoed(word), grammar);
            return std::nullopt;
        }
    }
    return fromJson(o, QStringLiteral("--alert \"%1\"").arg(echoed(text)), error);
}

} // namespace gatehouse
