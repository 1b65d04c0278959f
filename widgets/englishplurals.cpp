// SPDX-License-Identifier: MIT
#include "englishplurals.h"

namespace gatehouse {

QString EnglishPlurals::resolve(const QString &text, int n)
{
    QString out = text;
    out.replace(QLatin1String("(es)"), n == 1 ? QString() : QStringLiteral("es"));
    out.replace(QLatin1String("(s)"), n == 1 ? QString() : QStringLiteral("s"));
    return out;
}

QString EnglishPlurals::translate(const char *, const char *sourceText, const char *, int n) const
{
    // Only plural forms: a null string leaves every other text to Qt.
    if (n < 0 || !sourceText)
        return {};
    const QString text = QString::fromUtf8(sourceText);
    if (!text.contains(QLatin1String("(s)")) && !text.contains(QLatin1String("(es)")))
        return {};
    return resolve(text, n);
}

} // namespace gatehouse
