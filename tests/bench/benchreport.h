// SPDX-License-Identifier: MIT
#pragma once

#include <QList>
#include <QString>

namespace gatehouse::bench {

struct Figure
{
    QString name;
    double value = 0;
    QString unit;
    QString peer;
    double peerValue = 0;
    double target = 0; // minimum ratio value/peerValue, or with atMost the maximum value
    bool atMost = false;
    QString note;

    double ratio() const { return peerValue > 0 ? value / peerValue : 0; }
    bool met() const { return atMost ? value <= target : ratio() >= target; }
};

// A figure against a fixed budget instead of a peer: met when value <= budget.
Figure budgetFigure(const QString &name, const QString &unit, double value, double budget,
                    const QString &note = {});

// Prints the table and writes bench-results.json in the working directory.
void report(const QList<Figure> &figures, const QString &setup);

} // namespace gatehouse::bench
