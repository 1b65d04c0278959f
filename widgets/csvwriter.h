// SPDX-License-Identifier: MIT
#pragma once

#include <QString>

class QAbstractItemModel;

namespace gatehouse {

// Writes model's rows as shown (its headers first) to fileName as CSV
// (RFC 4180 quoting); the file is replaced only once it is whole.
bool writeCsv(const QAbstractItemModel *model, const QString &fileName);

} // namespace gatehouse
