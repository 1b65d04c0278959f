// SPDX-License-Identifier: MIT
#include "itemrows.h"

#include "theme.h"

#include <QTableWidget>

namespace gatehouse {

void fillItemRows(QTableWidget *table, const QList<QStringList> &rows,
                  const std::function<bool(int)> &urgent, const QString &asReadWhy)
{
    const bool asRead = !asReadWhy.isEmpty();
    const theme::Badge critical = theme::badge(Severity::Critical, table->palette());
    table->setRowCount(int(rows.size()));
    for (int r = 0; r < rows.size(); ++r) {
        const bool marked = !asRead && urgent && urgent(r);
        for (int c = 0; c < rows.at(r).size() && c < table->columnCount(); ++c) {
            auto *cell = new QTableWidgetItem(rows.at(r).at(c));
            // A long job elided in its cell, whole here.
            cell->setToolTip(asRead ? rows.at(r).at(c) + QLatin1Char('\n') + asReadWhy
                                    : rows.at(r).at(c));
            if (asRead)
                cell->setForeground(theme::mutedText(table->palette()));
            if (marked) {
                cell->setForeground(critical.text);
                cell->setBackground(critical.fill);
            }
            table->setItem(r, c, cell);
        }
    }
}

} // namespace gatehouse
