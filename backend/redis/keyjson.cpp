// SPDX-License-Identifier: MIT
#include "keyjson.h"

#include <QJsonObject>
#include <QStringDecoder>

namespace gatehouse {

QJsonValue keyToJson(const QByteArray &key)
{
    QStringDecoder decode(QStringDecoder::Utf8, QStringDecoder::Flag::Stateless);
    const QString text = decode(key);
    bool printable = !decode.hasError();
    for (QChar c : text)
        printable &= !c.isNonCharacter() && c.unicode() >= 0x20 && c.unicode() != 0x7f;
    if (printable)
        return text;
    return QJsonObject{{QStringLiteral("base64"), QString::fromLatin1(key.toBase64())}};
}

} // namespace gatehouse
