// SPDX-License-Identifier: MIT
#include "printabletext.h"

#include "redisvalue.h"

#include <QStringDecoder>

namespace gatehouse {

QString printableText(const QByteArray &bytes, qsizetype maxLength)
{
    QStringDecoder utf8(QStringDecoder::Utf8, QStringDecoder::Flag::Stateless);
    const QString text = utf8.decode(bytes);
    if (utf8.hasError())
        return printableBytes(bytes, maxLength);
    QString out;
    out.reserve(qMin(text.size(), maxLength) + 2);
    qsizetype i = 0;
    for (qsizetype shown = 0; i < text.size() && shown < maxLength; ++i, ++shown) {
        const QChar c = text.at(i);
        if (c == u'\n') {
            out += QLatin1String("\\n");
        } else if (c == u'\r') {
            out += QLatin1String("\\r");
        } else if (c == u'\t') {
            out += QLatin1String("\\t");
        } else if (c.unicode() < 0x20 || c.unicode() == 0x7f) {
            out += QStringLiteral("\\x%1").arg(c.unicode(), 2, 16, QLatin1Char('0'));
        } else if (c.isHighSurrogate() && i + 1 < text.size()) {
            out += c; // one character beyond the BMP: both halves, never one
            out += text.at(++i);
        } else {
            out += c;
        }
    }
    if (i < text.size())
        out += QStringLiteral("... (%1 bytes)").arg(bytes.size());
    return out;
}

} // namespace gatehouse
