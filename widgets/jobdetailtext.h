// SPDX-License-Identifier: MIT
#pragma once

#include <QString>

namespace gatehouse {

// A job's detail (JobListing::detail, the library's fields as JSON) as an
// operator reads it: a field per line; a payload kept as a JSON string
// (Bull's "data", "opts") pretty-printed; a stack trace (a string, or a list
// of strings, with newlines) as its lines; an epoch time (ms, or Sidekiq's s)
// in a field named as a time ("processedOn", "enqueued_at", "timestamp") as a
// local date with how long ago, at nowMs (ms since the epoch). Text that is
// not a JSON object is returned as it came.
QString jobDetailText(const QString &detail, qint64 nowMs);

} // namespace gatehouse
