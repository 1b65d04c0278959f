// SPDX-License-Identifier: MIT
#pragma once

#include <QString>

namespace gatehouse {

// sentence with its %1 filled with n, in English: "Requeued %1 stuck jobs."
// says "Requeued 1 stuck job." for one (the first plural word after %1, a
// word ending in s, loses its s; one ending in ies ends in y).
QString countedSentence(const QString &sentence, qint64 n);

} // namespace gatehouse
