// SPDX-License-Identifier: MIT
#include "profilerule.h"

#include "globmatch.h"
#include "patternunit.h"

#include <redis/userinput.h>

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>

namespace gatehouse {

namespace {
const QByteArray s_keyToken = "{key}";
}

QByteArray ProfileRule::scanGlob() const
{
    const QList<QByteArray> globs = PatternUnit::of(kind).scanGlobs(*this);
    return globs.isEmpty() ? match : globs.first();
}

bool ProfileRule::excludes(const QByteArray &key) const
{
    for (const QByteArray &ex : exclude) {
        if (globMatch(ex, key))
            return true;
    }
    return false;
}

bool RuleReader::fail(const QString &field, const QString &expected)
{
    *m_error = QStringLiteral("%1: rules[%2].%3 %4.")
                   .arg(echoed(QDir::toNativeSeparators(m_file)))
                   .arg(index)
                   .arg(field, expected);
    return false;
}

bool RuleReader::string(const QJsonObject &o, const char *field, QByteArray *out, bool required)
{
    note(field);
    const QJsonValue v = o.value(QLatin1String(field));
    if (v.isUndefined())
        return required ? fail(QLatin1String(field), QStringLiteral("is missing")) : true;
    if (!v.isString() || v.toString().isEmpty())
        return fail(QLatin1String(field), QStringLiteral("must be a non-empty string"));
    *out = v.toString().toUtf8();
    return true;
}

bool RuleReader::keyTemplate(const QJsonObject &o, const char *field, QByteArray *out)
{
    QByteArray t;
    if (!string(o, field, &t))
        return false;
    if (!t.isEmpty() && !t.contains(s_keyToken))
        return fail(QLatin1StringView(field),
                    QStringLiteral("must be a key template containing {key} (got \"%1\")")
                        .arg(QString::fromUtf8(t)));
    if (!t.isEmpty())
        *out = t;
    return true;
}

bool RuleReader::integer(const QJsonObject &o, const char *field, std::optional<qint64> *out)
{
    note(field);
    const QJsonValue v = o.value(QLatin1String(field));
    if (v.isUndefined() || v.isNull())
        return true;
    // 2^53: every whole number up to it is exact in JSON's doubles (and
    // converts to qint64 without overflow, also times 1000 for seconds).
    constexpr double maxExact = 9007199254740992.0;
    const double d = v.toDouble(-1);
    if (!v.isDouble() || d < 0 || d > maxExact || d != double(qint64(d)))
        return fail(
            QLatin1String(field),
            QStringLiteral("must be a whole number from 0 to 2^53 (got %1)")
                .arg(QString::fromUtf8(QJsonDocument(QJsonArray{v}).toJson(QJsonDocument::Compact))
                         .mid(1)
                         .chopped(1)));
    *out = qint64(d);
    return true;
}

bool RuleReader::unit(const QJsonObject &o, const char *field, qint64 *out)
{
    note(field);
    const QJsonValue v = o.value(QLatin1String(field));
    if (v.isUndefined())
        return true;
    if (v.toString() == QLatin1String("ms"))
        *out = 1;
    else if (v.toString() == QLatin1String("s"))
        *out = 1000;
    else
        return fail(QLatin1String(field), QStringLiteral("must be \"ms\" or \"s\""));
    return true;
}

bool RuleReader::boolean(const QJsonObject &o, const char *field, bool *out)
{
    note(field);
    const QJsonValue v = o.value(QLatin1String(field));
    if (v.isUndefined())
        return true;
    if (!v.isBool())
        return fail(QLatin1String(field), QStringLiteral("must be true or false"));
    *out = v.toBool();
    return true;
}

bool RuleReader::note(const char *field)
{
    const QString name = QLatin1String(field);
    if (!m_read.contains(name))
        m_read << name;
    return true;
}

bool RuleReader::allFieldsRead(const QJsonObject &o, const QString &pattern)
{
    for (auto it = o.constBegin(); it != o.constEnd(); ++it) {
        if (!m_read.contains(it.key()))
            return fail(echoed(it.key()),
                        QStringLiteral("is not a field of a %1 rule (its fields: %2)")
                            .arg(pattern, m_read.join(QLatin1String(", "))));
    }
    m_read.clear();
    return true;
}

bool RuleReader::limitAndWindow(const QJsonObject &o, PatternParams *params)
{
    std::optional<qint64> limit, window;
    qint64 windowUnit = 1;
    if (!integer(o, "limit", &limit) || !integer(o, "window", &window)
        || !unit(o, "windowUnit", &windowUnit))
        return false;
    params->limit = limit;
    if (window)
        params->windowMs = *window * windowUnit;
    return true;
}

void writeLimitAndWindow(const PatternParams &params, QJsonObject &o)
{
    o.insert(QStringLiteral("limit"),
             params.limit ? QJsonValue(double(*params.limit)) : QJsonValue());
    // Whole seconds as seconds: what was read in "s" stays within 2^53.
    const bool seconds = params.windowMs % 1000 == 0;
    o.insert(QStringLiteral("window"), double(seconds ? params.windowMs / 1000 : params.windowMs));
    o.insert(QStringLiteral("windowUnit"), seconds ? QStringLiteral("s") : QStringLiteral("ms"));
}

QByteArray applyTemplate(const QByteArray &keyTemplate, const QByteArray &key)
{
    QByteArray out = keyTemplate;
    return out.replace(s_keyToken, key);
}

QByteArray baseOfTemplate(const QByteArray &keyTemplate, const QByteArray &relatedKey)
{
    const qsizetype at = keyTemplate.indexOf(s_keyToken);
    if (at < 0)
        return {};
    const QByteArray pre = keyTemplate.left(at);
    const QByteArray suf = keyTemplate.mid(at + s_keyToken.size());
    if (relatedKey.size() <= pre.size() + suf.size() || !relatedKey.startsWith(pre)
        || !relatedKey.endsWith(suf))
        return {};
    return relatedKey.mid(pre.size(), relatedKey.size() - pre.size() - suf.size());
}

} // namespace gatehouse
