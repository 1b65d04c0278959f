// SPDX-License-Identifier: MIT
// Keys and values as JSON, for snapshots, audit entries and the CLI.
#pragma once

#include <QByteArray>
#include <QJsonValue>

namespace gatehouse {

// A key (or a value) for JSON: a string when it is printable UTF-8, else
// {"base64": ...}.
QJsonValue keyToJson(const QByteArray &key);

} // namespace gatehouse
