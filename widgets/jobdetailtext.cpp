// SPDX-License-Identifier: MIT
#include "jobdetailtext.h"

#include <patterns/presentation.h>

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStringList>

namespace gatehouse {

namespace {

bool namedAsTime(const QString &key)
{
    const QString k = key.toLower();
    return key.endsWith(QLatin1String("On")) || key.endsWith(QLatin1String("At"))
           || k.endsWith(QLatin1String("_at")) || k.endsWith(QLatin1String("_on"))
           || k.contains(QLatin1String("timestamp")) || k == QLatin1String("time")
           || k.endsWith(QLatin1String("time"));
}

// ms since the epoch of an epoch time in ms or s (2001..2286); -1 otherwise.
qint64 epochMs(const QJsonValue &v)
{
    double x = -1;
    if (v.isDouble()) {
        x = v.toDouble();
    } else if (v.isString()) {
        bool ok = false;
        x = v.toString().toDouble(&ok);
        if (!ok)
            return -1;
    }
    if (x >= 1e12 && x < 1e13)
        return qint64(x);
    if (x >= 1e9 && x < 1e10)
        return qint64(x * 1000.0);
    return -1;
}

QString timeText(qint64 ms, qint64 nowMs)
{
    const QString date = QDateTime::fromMSecsSinceEpoch(ms).toLocalTime().toString(
        QStringLiteral("yyyy-MM-dd HH:mm:ss"));
    const qint64 d = nowMs - ms;
    const QString when
        = d >= 0 ? QObject::tr("%1 ago").arg(formatMs(d)) : QObject::tr("in %1").arg(formatMs(-d));
    return QStringLiteral("%1 (%2)").arg(date, when);
}

QString indented(const QString &text, int indent)
{
    const QString pad(indent, QLatin1Char(' '));
    QStringList lines = text.split(QLatin1Char('\n'));
    while (!lines.isEmpty() && lines.last().isEmpty())
        lines.removeLast();
    for (QString &l : lines)
        l.prepend(pad);
    return lines.join(QLatin1Char('\n'));
}

QString pretty(const QJsonValue &v)
{
    if (v.isObject())
        return QString::fromUtf8(QJsonDocument(v.toObject()).toJson(QJsonDocument::Indented));
    if (v.isArray())
        return QString::fromUtf8(QJsonDocument(v.toArray()).toJson(QJsonDocument::Indented));
    return QString::fromUtf8(QJsonDocument(QJsonArray{v}).toJson(QJsonDocument::Compact))
        .mid(1)
        .chopped(1);
}

// A JSON object or array kept in a string ("{\"n\":1}"), parsed; else undefined.
QJsonValue embedded(const QString &s)
{
    const QString t = s.trimmed();
    if (!(t.startsWith(QLatin1Char('{')) || t.startsWith(QLatin1Char('['))))
        return QJsonValue(QJsonValue::Undefined);
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(t.toUtf8(), &error);
    if (error.error != QJsonParseError::NoError)
        return QJsonValue(QJsonValue::Undefined);
    return doc.isObject() ? QJsonValue(doc.object()) : QJsonValue(doc.array());
}

bool textLines(const QJsonValue &v)
{
    if (v.isString())
        return v.toString().contains(QLatin1Char('\n'));
    if (!v.isArray() || v.toArray().isEmpty())
        return false;
    for (const QJsonValue &e : v.toArray()) {
        if (!e.isString())
            return false;
    }
    for (const QJsonValue &e : v.toArray()) {
        if (e.toString().contains(QLatin1Char('\n')))
            return true;
    }
    return false;
}

void render(const QJsonObject &o, qint64 nowMs, QStringList *out)
{
    constexpr int indent = 0;
    const QString pad(indent, QLatin1Char(' '));
    for (auto it = o.begin(); it != o.end(); ++it) {
        QJsonValue v = it.value();
        if (v.isString()) {
            if (const QJsonValue inner = embedded(v.toString()); !inner.isUndefined())
                v = inner;
        }
        const QString key = pad + it.key() + QLatin1Char(':');
        if (namedAsTime(it.key())) {
            if (const qint64 ms = epochMs(v); ms >= 0) {
                *out << key + QLatin1Char(' ') + timeText(ms, nowMs);
                continue;
            }
        }
        if (textLines(v)) {
            *out << key;
            const QJsonArray parts = v.isArray() ? v.toArray() : QJsonArray{v};
            for (const QJsonValue &p : parts)
                *out << indented(p.toString(), indent + 4);
        } else if ((v.isObject() && !v.toObject().isEmpty())
                   || (v.isArray() && !v.toArray().isEmpty())) {
            *out << key << indented(pretty(v), indent + 2);
        } else {
            *out << key + QLatin1Char(' ') + (v.isString() ? v.toString() : pretty(v));
        }
    }
}

} // namespace

QString jobDetailText(const QString &detail, qint64 nowMs)
{
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(detail.toUtf8(), &error);
    if (error.error != QJsonParseError::NoError || !doc.isObject())
        return detail;
    QStringList out;
    render(doc.object(), nowMs, &out);
    return out.join(QLatin1Char('\n'));
}

} // namespace gatehouse
