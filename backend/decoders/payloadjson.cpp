// SPDX-License-Identifier: MIT
#include "payloadjson.h"

#include <QJsonArray>
#include <QJsonObject>

#include <cmath>

namespace gatehouse {

namespace {

using Kind = PayloadValue::Kind;

QJsonValue number(const QString &text)
{
    bool ok = false;
    const double d = text.toDouble(&ok);
    // An int past 2^53 stays text: a double would change it.
    if (!ok || (!text.contains(QLatin1Char('.')) && std::abs(d) > 9007199254740992.0))
        return text;
    return d;
}

QString keyText(const PayloadValue &key)
{
    switch (key.kind) {
    case Kind::Text:
    case Kind::Number:
    case Kind::Note:
        return key.text;
    case Kind::Bytes:
        return QString::fromLatin1(key.bytes);
    case Kind::Bool:
        return key.boolean ? QStringLiteral("true") : QStringLiteral("false");
    case Kind::Null:
        return QStringLiteral("null");
    default:
        return QStringLiteral("…");
    }
}

QJsonValue json(const PayloadValue &v, int depthLeft);

QJsonObject mapOf(const PayloadValue &v, int depthLeft, QJsonObject out = {})
{
    for (std::size_t i = 0; i + 1 < v.children.size(); i += 2)
        out.insert(keyText(v.children.at(i)), json(v.children.at(i + 1), depthLeft - 1));
    return out;
}

QJsonValue json(const PayloadValue &v, int depthLeft)
{
    switch (v.kind) {
    case Kind::Null:
        return QJsonValue::Null;
    case Kind::Bool:
        return v.boolean;
    case Kind::Number:
        return number(v.text);
    case Kind::Text:
    case Kind::Note:
        return v.text;
    case Kind::Bytes:
        return QString::fromLatin1(v.bytes);
    default:
        break;
    }
    if (depthLeft <= 0)
        return QJsonValue::Null;
    if (v.kind == Kind::Map)
        return mapOf(v, depthLeft);
    if (v.kind == Kind::List) {
        QJsonArray out;
        for (const PayloadValue &c : v.children)
            out.append(json(c, depthLeft - 1));
        return out;
    }
    // An object: its class, its arguments, and its state's entries.
    QJsonObject out{{QStringLiteral("class"), v.text}};
    QJsonArray args;
    for (const PayloadValue &c : v.children) {
        if (c.tag == QLatin1String("state") && c.kind == Kind::Map)
            out = mapOf(c, depthLeft, out);
        else if (c.tag != QLatin1String("state") && c.tag != QLatin1String("items"))
            args.append(json(c, depthLeft - 1));
    }
    out.insert(QStringLiteral("args"), args);
    return out;
}

} // namespace

QJsonValue payloadJson(const PayloadValue &value, int maxDepth)
{
    return json(value, maxDepth);
}

} // namespace gatehouse
