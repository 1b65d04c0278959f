// SPDX-License-Identifier: MIT
#include "evidencetext.h"

#include <monitor/autodetector.h>

#include <QCoreApplication>
#include <QStringList>

namespace gatehouse {

namespace {

QString tr(const char *text)
{
    return QCoreApplication::translate("gatehouse::Evidence", text);
}

} // namespace

QString evidenceWeight(int weight)
{
    return weight > 0 ? QStringLiteral("+%1").arg(weight) : QString::number(weight);
}

QString evidenceToolTip(const QList<Evidence> &evidence)
{
    if (evidence.isEmpty())
        return {};
    QStringList lines;
    lines << tr("Evidence: score %1 (shown from %2)")
                 .arg(evidenceScore(evidence))
                 .arg(AutoDetector::Threshold);
    for (const Evidence &e : evidence)
        lines << QStringLiteral("%1: %2 (%3)")
                     .arg(evidenceKindId(e.kind), e.reason, evidenceWeight(e.weight));
    return lines.join(QLatin1Char('\n'));
}

QString evidenceWhy(const QList<Evidence> &evidence)
{
    if (evidence.isEmpty())
        return {};
    // For, then against: the operator reads why first, then what argued back.
    QStringList pro;
    QStringList contra;
    for (const Evidence &e : evidence)
        (e.weight < 0 ? contra : pro) << e.reason;
    QString text = tr("Why: %1").arg(pro.isEmpty() ? tr("no reason for it") : pro.join(u"; "));
    if (!contra.isEmpty())
        text += tr("; against: %1").arg(contra.join(u"; "));
    return text
           + tr(" (score %1, shown from %2)")
                 .arg(evidenceScore(evidence))
                 .arg(AutoDetector::Threshold);
}

} // namespace gatehouse
