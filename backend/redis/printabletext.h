// SPDX-License-Identifier: MIT
#pragma once

#include <QByteArray>
#include <QString>

namespace gatehouse {

// Text a library wrote (a job's class, a queue's name, a worker's identity)
// as it reads: UTF-8 decoded, a backslash or a quote as itself (PHP's
// "App\Jobs\Block", not "App\\Jobs\\Block"), only what would break a table
// row escaped (a line break as \n, other control characters as \xNN). Bytes
// that are not UTF-8 are shown as printableBytes shows a key. Longer than
// maxLength characters: cut, with "... (N bytes)".
QString printableText(const QByteArray &bytes, qsizetype maxLength = 200);

} // namespace gatehouse
