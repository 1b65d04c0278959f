// SPDX-License-Identifier: MIT
#include "jsondecoder.h"

#include "decodebudget.h"
#include "phpserializedecoder.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cmath>

namespace gatehouse {

namespace {

QString numberText(double d)
{
    if (std::isfinite(d) && std::floor(d) == d && std::fabs(d) < 9007199254740992.0)
        return QString::number(qint64(d));
    return QString::number(d, 'g', 17);
}

// A PHP value serialized into a JSON string: "O:8:\"stdClass\":..." or "a:2:{...".
bool looksPhp(const QString &s)
{
    return s.size() >= 8 && (s.startsWith(QLatin1String("O:")) || s.startsWith(QLatin1String("a:")))
           && (s.endsWith(QLatin1Char('}')));
}

class Converter
{
public:
    explicit Converter(DecodeBudget &budget)
        : m_budget(budget)
    {}

    QStringList inner;

    PayloadValue convert(const QJsonValue &v, int depth)
    {
        if (!m_budget.spend())
            return PayloadValue::note(QStringLiteral("…"));
        switch (v.type()) {
        case QJsonValue::Null:
        case QJsonValue::Undefined:
            return PayloadValue::null();
        case QJsonValue::Bool:
            return PayloadValue::fromBool(v.toBool());
        case QJsonValue::Double:
            return PayloadValue::number(numberText(v.toDouble()));
        case QJsonValue::String:
            return string(v.toString(), depth);
        default:
            break;
        }
        if (depth >= m_budget.limits().maxDepth)
            return PayloadValue::note(
                QStringLiteral("… (nested deeper than %1)").arg(m_budget.limits().maxDepth));
        if (v.isArray()) {
            PayloadValue list = PayloadValue::list();
            const QJsonArray a = v.toArray();
            for (const QJsonValue &e : a)
                list.children.push_back(convert(e, depth + 1));
            return list;
        }
        PayloadValue map = PayloadValue::map();
        const QJsonObject o = v.toObject();
        for (auto it = o.begin(); it != o.end(); ++it) {
            map.children.push_back(PayloadValue::string(it.key()));
            map.children.push_back(convert(it.value(), depth + 1));
        }
        return map;
    }

private:
    PayloadValue string(const QString &s, int depth)
    {
        if (looksPhp(s) && depth + 1 < m_budget.limits().maxDepth) {
            DecodeResult php = decodePhpSerialized(s.toUtf8(), m_budget);
            if (php.ok) {
                if (!inner.contains(php.name))
                    inner << php.name;
                return php.value;
            }
        }
        return PayloadValue::string(s);
    }

    DecodeBudget &m_budget;
};

} // namespace

DecodeResult decodeJson(const QByteArray &input, DecodeBudget &budget)
{
    const QByteArray trimmed = input.trimmed();
    if (trimmed.isEmpty())
        return DecodeResult::failed(QStringLiteral("empty"));
    // Wrapped in brackets, a scalar ("ok", 42) parses too.
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson('[' + trimmed + ']', &error);
    if (error.error != QJsonParseError::NoError || doc.array().size() != 1)
        return DecodeResult::failed(QStringLiteral("not JSON (%1 at byte %2)")
                                        .arg(error.errorString())
                                        .arg(std::max(0, error.offset - 1)));
    Converter converter(budget);
    DecodeResult r;
    r.value = converter.convert(doc.array().first(), 0);
    if (budget.exhausted())
        return DecodeResult::failed(budget.reason());
    r.ok = true;
    r.name = QStringLiteral("JSON");
    r.inner = converter.inner;
    return r;
}

} // namespace gatehouse
