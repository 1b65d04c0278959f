// SPDX-License-Identifier: MIT
#pragma once

#include <QString>

namespace gatehouse {

// The phrase with the indefinite article a reader expects before it: "a
// Sidekiq deployment", "an asynq queue", "an RQ queue" (an initialism is
// read letter by letter), "a unique token".
inline QString withArticle(const QString &phrase)
{
    const QString word = phrase.section(QLatin1Char(' '), 0, 0);
    if (word.isEmpty())
        return phrase;
    const QChar first = word.at(0);
    bool an = false;
    if (word.size() > 1 && word.size() <= 3 && word == word.toUpper() && word.at(1).isLetter())
        an = QStringLiteral("AEFHILMNORSX").contains(first); // "an RQ", "an ACL"
    else
        an = QStringLiteral("aeioAEIO").contains(first)
             || (first.toLower() == QLatin1Char('u')
                 && !word.startsWith(QLatin1String("uni"), Qt::CaseInsensitive)
                 && !word.startsWith(QLatin1String("us"), Qt::CaseInsensitive));
    return (an ? QStringLiteral("an ") : QStringLiteral("a ")) + phrase;
}

} // namespace gatehouse
