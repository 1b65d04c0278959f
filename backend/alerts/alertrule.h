// SPDX-License-Identifier: MIT
#pragma once

#include <patterns/alertfigure.h>
#include <patterns/patternkind.h>

#include <QByteArray>
#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QString>

#include <optional>

namespace gatehouse {

// One alert rule (README, "Alerts"): a condition on one figure of the
// objects it targets, held for a while before it fires. Kept in the profile's
// "alerts" list; written on the command line as an expression
// (`--alert 'occupancy >= 80% for 5s on limiter:sim:rl:*'`).
struct AlertRule
{
    enum class Comparison { Above, AtLeast, Below, AtMost };
    enum class Severity { Info, Warning, Critical };

    QString name;
    // Which objects: a section ("limiter", or "node" for the nodes), a
    // pattern id ("sliding-window"), or empty for every one; and a key glob
    // (a node's address for "node"), empty for every key.
    QString target;
    QByteArray match;
    QString figure; // an AlertFigure id of the targeted patterns, or a node figure
    // The figure as the console shows it ("Work lost in"); its id when unknown.
    QString figureTitle() const;
    Comparison comparison = Comparison::AtLeast;
    // In the figure's own unit: a ratio (0.8 for 80 %), ms, or a count.
    double threshold = 0;
    qint64 forMs = 0; // how long the condition must hold before it fires
    Severity severity = Severity::Warning;

    // The targeted figure's unit, for showing the threshold ("80 %", "5 s").
    AlertFigure::Unit unit() const;
    bool holds(double value) const;
    // Whether a figure known only to be at least lowerBound decides the rule:
    // an above rule it already meets, or a below rule it already fails.
    bool decidedByLowerBound(double lowerBound) const;
    // Whether the rule watches objects of kind (its section or pattern) and key.
    bool targets(PatternKind kind, const QByteArray &key) const;
    bool targetsNodes() const { return target == QLatin1String("node"); }

    // The condition as the console shows it: "Occupancy >= 80 %",
    // "Oldest in flight > 5.0 min" (the figure's title, never its id).
    QString conditionText() const;
    // The rule as an operator reads it in lists and sentences: its own name,
    // or for a rule named by its --alert expression (the default), the
    // condition and what it watches ("Stuck > 0 on queue").
    QString shownName() const;
    // The rule as an --alert expression (parseExpression gives it back).
    QString expression() const;
    QJsonObject toJson() const;

    // An entry of a profile's "alerts" list; error gets one sentence naming
    // the file, the rule (its number and name) and the field.
    static std::optional<AlertRule> fromJson(const QJsonObject &json, const QString &where,
                                             QString *error);
    static std::optional<QList<AlertRule>> listFromJson(const QJsonValue &json,
                                                        const QString &fileName, QString *error);
    static QJsonArray listToJson(const QList<AlertRule> &rules);
    // `FIGURE OP VALUE [for DURATION] [on TARGET] [as NAME] [severity S]`
    // (README, "Alerts"; gatehouse-cli --help); error says what is wrong.
    static std::optional<AlertRule> parseExpression(const QString &text, QString *error);

    // The figures a node rule may watch: "down" (1 while the node does not
    // answer or is marked failed), "replicaLagBytes" (its master's replication
    // offset - its own), "readingAgeMs" (since its last reply).
    static QList<AlertFigure> nodeFigures();
    // The figure a rule on target names (any targeted pattern's, for an
    // empty target); nullopt when none of them has it.
    static std::optional<AlertFigure> findFigure(const QString &target, const QString &figure);
    // Every figure id a rule on target may use, for messages and the editor.
    static QStringList figureIds(const QString &target);
    // Targets a rule may name: "node", the sections and the pattern ids.
    static QStringList targets();

    static QString comparisonText(Comparison c); // ">=", ...
    static QString severityId(Severity s);       // "warning", ...
    // A value of unit as a person reads it: "80 %", "5.0 s", "3".
    static QString formatValue(double value, AlertFigure::Unit unit);
    // "80%", "80", "5s", "500ms", "2m", "1h", "3": a threshold in unit
    // (bare numbers: percent for a ratio, seconds for a duration).
    static std::optional<double> parseValue(const QString &text, AlertFigure::Unit unit);

    bool operator==(const AlertRule &o) const
    {
        return name == o.name && target == o.target && match == o.match && figure == o.figure
               && comparison == o.comparison && threshold == o.threshold && forMs == o.forMs
               && severity == o.severity;
    }
};

} // namespace gatehouse
