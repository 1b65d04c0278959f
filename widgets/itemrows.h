// SPDX-License-Identifier: MIT
#pragma once

#include <QList>
#include <QString>
#include <QStringList>

#include <functional>

class QTableWidget;

namespace gatehouse {

// Fills the items table under a section's object table (a queue's jobs in
// flight, a semaphore's holders) with rows, one cell per text, the whole
// text as its tooltip. Rows as last read (asReadWhy not empty: offline, or
// the object stale) are greyed and say why in their tooltips; otherwise a
// row urgent(r) says is about to be lost for good is in the critical
// badge's colours.
void fillItemRows(QTableWidget *table, const QList<QStringList> &rows,
                  const std::function<bool(int)> &urgent, const QString &asReadWhy);

} // namespace gatehouse
