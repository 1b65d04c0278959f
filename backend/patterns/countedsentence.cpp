// SPDX-License-Identifier: MIT
#include "countedsentence.h"

namespace gatehouse {

QString countedSentence(const QString &sentence, qint64 n)
{
    QString out = sentence;
    const qsizetype at = out.indexOf(QLatin1String("%1"));
    if (n == 1 && at >= 0) {
        qsizetype i = at + 2;
        while (i < out.size()) {
            while (i < out.size() && !out.at(i).isLetter())
                ++i;
            qsizetype end = i;
            while (end < out.size() && out.at(end).isLetter())
                ++end;
            if (end - i > 3 && out.mid(end - 3, 3) == QLatin1String("ies")) {
                out.replace(end - 3, 3, QStringLiteral("y")); // entries: entry
                break;
            }
            if (end - i > 2 && out.at(end - 1) == QLatin1Char('s')) {
                out.remove(end - 1, 1);
                break;
            }
            if (end == i)
                break;
            i = end;
        }
    }
    return out.arg(n);
}

} // namespace gatehouse
