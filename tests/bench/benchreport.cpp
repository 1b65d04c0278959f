// SPDX-License-Identifier: MIT
#include "benchreport.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTextStream>

#include <cmath>

namespace gatehouse::bench {

Figure budgetFigure(const QString &name, const QString &unit, double value, double budget,
                    const QString &note)
{
    Figure f;
    f.name = name;
    f.unit = unit;
    f.value = value;
    f.peer = QStringLiteral("budget");
    f.peerValue = budget;
    f.target = budget;
    f.atMost = true;
    f.note = note;
    return f;
}

namespace {
// Whole numbers for large values, three digits for small ones (latencies).
QString shown(double v)
{
    return std::abs(v) >= 100 || v == 0 ? QString::number(v, 'f', 0) : QString::number(v, 'g', 3);
}
} // namespace

void report(const QList<Figure> &figures, const QString &setup)
{
    QTextStream out(stdout);
    out << "\n" << setup << "\n\n";
    out << QStringLiteral("%1 %2 %3 %4 %5 %6 %7\n")
               .arg(QStringLiteral("figure"), -34)
               .arg(QStringLiteral("unit"), -12)
               .arg(QStringLiteral("gatehouse"), 14)
               .arg(QStringLiteral("peer"), 14)
               .arg(QStringLiteral("ratio"), 7)
               .arg(QStringLiteral("target"), 7)
               .arg(QStringLiteral("met"));
    QJsonArray json;
    for (const Figure &f : figures) {
        // An infinite target: a figure shown for what it is, with no target.
        const bool hasTarget = !std::isinf(f.target);
        const QString target
            = !hasTarget ? QStringLiteral("-")
              : f.atMost ? QString(QStringLiteral("<=") + QString::number(f.target, 'g', 3))
                         : QString(QStringLiteral(">=") + QString::number(f.target, 'f', 1)
                                   + QLatin1Char('x'));
        out << QStringLiteral("%1 %2 %3 %4 %5 %6 %7\n")
                   .arg(f.name, -34)
                   .arg(f.unit, -12)
                   .arg(shown(f.value), 14)
                   .arg(shown(f.peerValue), 14)
                   .arg(QString::number(f.ratio(), 'f', 2) + QLatin1Char('x'), 7)
                   .arg(target, 7)
                   .arg(!hasTarget ? QStringLiteral("-")
                        : f.met()  ? QStringLiteral("yes")
                                   : QStringLiteral("NO"));
        if (!f.note.isEmpty())
            out << "    " << f.note << "\n";
        json.append(
            QJsonObject{{QStringLiteral("name"), f.name},
                        {QStringLiteral("value"), f.value},
                        {QStringLiteral("unit"), f.unit},
                        {QStringLiteral("peer"), f.peer},
                        {QStringLiteral("peerValue"), f.peerValue},
                        {QStringLiteral("ratio"), f.ratio()},
                        {QStringLiteral("target"), hasTarget ? QJsonValue(f.target) : QJsonValue()},
                        {QStringLiteral("met"), hasTarget ? QJsonValue(f.met()) : QJsonValue()}});
    }
    out.flush();
    QFile file(QStringLiteral("bench-results.json"));
    if (file.open(QIODevice::WriteOnly | QIODevice::Truncate))
        file.write(QJsonDocument(json).toJson());
}

} // namespace gatehouse::bench
