// SPDX-License-Identifier: MIT
#include "profile.h"

#include "globmatch.h"

#include <patterns/redissonlimiterunit.h>
#include <redis/userinput.h>

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace gatehouse {

namespace {

const QByteArray s_keyToken = "{key}";

// The literal bytes before the first glob metacharacter.
QByteArray literalPrefix(const QByteArray &glob)
{
    qsizetype i = 0;
    while (i < glob.size() && glob.at(i) != '*' && glob.at(i) != '?' && glob.at(i) != '['
           && glob.at(i) != '\\')
        ++i;
    return glob.left(i);
}

struct Reader
{
    const QString &file;
    QString *error;
    int index = 0;

    bool fail(const QString &field, const QString &expected)
    {
        *error = QStringLiteral("%1: rules[%2].%3 %4.")
                     .arg(echoed(QDir::toNativeSeparators(file)))
                     .arg(index)
                     .arg(field, expected);
        return false;
    }

    bool string(const QJsonObject &o, const char *field, QByteArray *out, bool required = false)
    {
        const QJsonValue v = o.value(QLatin1String(field));
        if (v.isUndefined())
            return required ? fail(QLatin1String(field), QStringLiteral("is missing")) : true;
        if (!v.isString() || v.toString().isEmpty())
            return fail(QLatin1String(field), QStringLiteral("must be a non-empty string"));
        *out = v.toString().toUtf8();
        return true;
    }

    bool integer(const QJsonObject &o, const char *field, std::optional<qint64> *out)
    {
        const QJsonValue v = o.value(QLatin1String(field));
        if (v.isUndefined() || v.isNull())
            return true;
        // 2^53: every whole number up to it is exact in JSON's doubles (and
        // converts to qint64 without overflow, also times 1000 for seconds).
        constexpr double maxExact = 9007199254740992.0;
        const double d = v.toDouble(-1);
        if (!v.isDouble() || d < 0 || d > maxExact || d != double(qint64(d)))
            return fail(QLatin1String(field),
                        QStringLiteral("must be a whole number from 0 to 2^53 (got %1)")
                            .arg(QString::fromUtf8(
                                     QJsonDocument(QJsonArray{v}).toJson(QJsonDocument::Compact))
                                     .mid(1)
                                     .chopped(1)));
        *out = qint64(d);
        return true;
    }

    // "ms" or "s" -> 1 or 1000.
    bool unit(const QJsonObject &o, const char *field, qint64 *out)
    {
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
};

} // namespace

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

QByteArray ProfileRule::scanGlob() const
{
    if (kind == PatternKind::TokenFamily)
        return prefix + '*';
    return match;
}

std::optional<Profile> Profile::fromJson(const QByteArray &json, const QString &fileName,
                                         QString *error)
{
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        *error = QStringLiteral("%1: not valid JSON at byte %2: %3.")
                     .arg(echoed(QDir::toNativeSeparators(fileName)))
                     .arg(parseError.offset)
                     .arg(parseError.errorString());
        return std::nullopt;
    }
    const QJsonObject root = doc.object();
    if (!doc.isObject() || !root.value(QLatin1String("rules")).isArray()) {
        *error = QStringLiteral("%1: expected an object with a \"rules\" array.")
                     .arg(echoed(QDir::toNativeSeparators(fileName)));
        return std::nullopt;
    }
    Profile profile;
    profile.fileName = fileName;
    profile.name = root.value(QLatin1String("name")).toString(QFileInfo(fileName).baseName());
    Reader r{fileName, error};
    const QJsonArray rules = root.value(QLatin1String("rules")).toArray();
    for (r.index = 0; r.index < rules.size(); ++r.index) {
        if (!rules.at(r.index).isObject()) {
            r.fail(QString(), QStringLiteral("must be an object"));
            return std::nullopt;
        }
        const QJsonObject o = rules.at(r.index).toObject();
        ProfileRule rule;
        const QString id = o.value(QLatin1String("pattern")).toString();
        const auto kind = patternFromId(id);
        if (!kind) {
            QStringList ids;
            for (PatternKind k : allPatterns())
                ids << patternId(k);
            r.fail(QStringLiteral("pattern"), QStringLiteral("must be one of %1 (got \"%2\")")
                                                  .arg(ids.join(QLatin1String(", ")), echoed(id)));
            return std::nullopt;
        }
        rule.kind = *kind;
        const bool tokens = rule.kind == PatternKind::TokenFamily;
        QByteArray processing;
        std::optional<qint64> limit, window, stuck, pageSize;
        qint64 windowUnit = 1;
        bool ok
            = r.string(o, tokens ? "prefix" : "match", tokens ? &rule.prefix : &rule.match, true)
              && r.integer(o, "limit", &limit) && r.integer(o, "consumerLimit", &rule.consumerLimit)
              && r.integer(o, "window", &window) && r.unit(o, "windowUnit", &windowUnit)
              && r.unit(o, "scoreUnit", &rule.params.scoreUnitMs)
              && r.integer(o, "stuckAfter", &stuck) && r.integer(o, "pageSize", &pageSize)
              && r.string(o, "retryKey", &rule.retryKey)
              && r.string(o, "processingKey", &processing)
              && r.string(o, "claimsKey", &rule.claimsKey) && r.string(o, "deadKey", &rule.deadKey)
              && r.string(o, "consumerMarker", &rule.consumerMarker)
              && r.string(o, "countField", &rule.params.countField);
        if (!ok)
            return std::nullopt;
        for (const QByteArray *t : {&rule.retryKey, &processing, &rule.claimsKey, &rule.deadKey}) {
            if (!t->isEmpty() && !t->contains(s_keyToken)) {
                r.fail(
                    QStringLiteral("key templates"),
                    QStringLiteral("must contain {key} (got \"%1\")").arg(QString::fromUtf8(*t)));
                return std::nullopt;
            }
        }
        if (!processing.isEmpty())
            rule.processingKey = processing;
        const QJsonValue exclude = o.value(QLatin1String("exclude"));
        if (exclude.isString()) {
            rule.exclude = {exclude.toString().toUtf8()};
        } else if (exclude.isArray()) {
            for (const QJsonValue &e : exclude.toArray())
                rule.exclude.append(e.toString().toUtf8());
        } else if (!exclude.isUndefined()) {
            r.fail(QStringLiteral("exclude"), QStringLiteral("must be a glob or a list of globs"));
            return std::nullopt;
        }
        const QJsonValue counted = o.value(QLatin1String("counted"));
        if (!counted.isUndefined() && !counted.isBool()) {
            r.fail(QStringLiteral("counted"), QStringLiteral("must be true or false"));
            return std::nullopt;
        }
        rule.counted = counted.toBool();
        rule.params.limit = limit;
        if (window)
            rule.params.windowMs = *window * windowUnit;
        if (stuck)
            rule.params.stuckAfterMs = *stuck;
        if (pageSize)
            rule.params.pageSize = int(std::clamp<qint64>(*pageSize, 1, 10000));
        profile.rules.append(rule);
    }
    return profile;
}

QStringList Profile::builtInNames()
{
    QStringList names;
    for (const QString &f :
         QDir(QStringLiteral(":/profiles")).entryList({QStringLiteral("*.json")}))
        names << QFileInfo(f).baseName();
    return names;
}

std::optional<Profile> Profile::load(const QString &fileOrName, QString *error)
{
    QString path = fileOrName;
    if (!QFileInfo::exists(path) && builtInNames().contains(fileOrName))
        path = QStringLiteral(":/profiles/%1.json").arg(fileOrName);
    QString problem;
    const std::optional<QByteArray> json
        = readSmallFile(path, MaxFileBytes, QStringLiteral("Profile"), &problem);
    if (!json) {
        *error = QStringLiteral("%1 Give a JSON file or one of the built-in profiles: %2.")
                     .arg(problem, builtInNames().join(QLatin1String(", ")));
        return std::nullopt;
    }
    return fromJson(*json, path, error);
}

QByteArray Profile::toJson() const
{
    QJsonArray rules;
    for (const ProfileRule &r : this->rules) {
        QJsonObject o{{QStringLiteral("pattern"), patternId(r.kind)}};
        if (r.kind == PatternKind::TokenFamily)
            o.insert(QStringLiteral("prefix"), QString::fromUtf8(r.prefix));
        else
            o.insert(QStringLiteral("match"), QString::fromUtf8(r.match));
        if (!r.exclude.isEmpty()) {
            QJsonArray ex;
            for (const QByteArray &e : r.exclude)
                ex.append(QString::fromUtf8(e));
            o.insert(QStringLiteral("exclude"), ex);
        }
        const bool limiter = patternSection(r.kind) == QLatin1String("limiter");
        if (limiter && r.kind != PatternKind::RedissonLimiter) {
            o.insert(QStringLiteral("limit"),
                     r.params.limit ? QJsonValue(double(*r.params.limit)) : QJsonValue());
            // Whole seconds as seconds: what was read in "s" stays within 2^53.
            const bool seconds = r.params.windowMs % 1000 == 0;
            o.insert(QStringLiteral("window"),
                     double(seconds ? r.params.windowMs / 1000 : r.params.windowMs));
            o.insert(QStringLiteral("windowUnit"),
                     seconds ? QStringLiteral("s") : QStringLiteral("ms"));
        }
        if (r.kind == PatternKind::SlidingWindow || r.kind == PatternKind::ResourceConsumer)
            o.insert(QStringLiteral("scoreUnit"),
                     r.params.scoreUnitMs == 1000 ? QStringLiteral("s") : QStringLiteral("ms"));
        if (r.kind == PatternKind::ResourceConsumer) {
            o.insert(QStringLiteral("consumerLimit"),
                     r.consumerLimit ? QJsonValue(double(*r.consumerLimit)) : QJsonValue());
            o.insert(QStringLiteral("consumerMarker"), QString::fromUtf8(r.consumerMarker));
        }
        if (!r.retryKey.isEmpty())
            o.insert(QStringLiteral("retryKey"), QString::fromUtf8(r.retryKey));
        if (r.kind == PatternKind::ReliableQueue) {
            o.insert(QStringLiteral("processingKey"), QString::fromUtf8(r.processingKey));
            if (!r.claimsKey.isEmpty())
                o.insert(QStringLiteral("claimsKey"), QString::fromUtf8(r.claimsKey));
            if (!r.deadKey.isEmpty())
                o.insert(QStringLiteral("deadKey"), QString::fromUtf8(r.deadKey));
            o.insert(QStringLiteral("stuckAfter"), double(r.params.stuckAfterMs));
        }
        if (r.params.pageSize != PatternParams().pageSize)
            o.insert(QStringLiteral("pageSize"), r.params.pageSize);
        if (r.kind == PatternKind::TokenFamily && r.counted) {
            o.insert(QStringLiteral("counted"), true);
            o.insert(QStringLiteral("countField"), QString::fromUtf8(r.params.countField));
        }
        rules.append(o);
    }
    return QJsonDocument(
               QJsonObject{{QStringLiteral("name"), name}, {QStringLiteral("rules"), rules}})
        .toJson(QJsonDocument::Indented);
}

QByteArray Profile::scanGlob() const
{
    if (rules.isEmpty())
        return "*";
    QByteArray common = literalPrefix(rules.first().scanGlob());
    for (const ProfileRule &r : rules) {
        const QByteArray lit = literalPrefix(r.scanGlob());
        qsizetype n = 0;
        while (n < common.size() && n < lit.size() && common.at(n) == lit.at(n))
            ++n;
        common.truncate(n);
    }
    // Redisson's value/permits keys start with '{' + name: keep them in reach.
    for (const ProfileRule &r : rules) {
        if (r.kind == PatternKind::RedissonLimiter)
            return "*";
    }
    return common + '*';
}

std::optional<PatternObject> Profile::objectFor(const QByteArray &key) const
{
    for (const ProfileRule &rule : rules) {
        if (rule.kind == PatternKind::TokenFamily) {
            if (key.startsWith(rule.prefix) && key.size() > rule.prefix.size()) {
                PatternObject o;
                o.kind = rule.kind;
                o.key = rule.prefix;
                o.members = {key};
                o.countedTokens = rule.counted;
                o.params = rule.params;
                o.source = name;
                return o;
            }
            continue;
        }
        if (!globMatch(rule.match, key))
            continue;
        bool excluded = false;
        for (const QByteArray &ex : rule.exclude)
            excluded |= globMatch(ex, key);
        if (excluded)
            continue;
        PatternObject o;
        o.kind = rule.kind;
        o.key = key;
        o.params = rule.params;
        o.source = name;
        // A key that is some other instance's related key is not an instance.
        bool related = false;
        for (const QByteArray &t :
             {rule.retryKey, rule.processingKey, rule.claimsKey, rule.deadKey}) {
            if (t.isEmpty() || (rule.kind != PatternKind::ReliableQueue && t == rule.processingKey))
                continue;
            const QByteArray base = baseOfTemplate(t, key);
            if (!base.isEmpty() && globMatch(rule.match, base)) {
                if (rule.kind == PatternKind::ReliableQueue) { // the queue is the instance
                    o.key = base;
                } else {
                    related = true;
                }
                break;
            }
        }
        if (related)
            continue;
        switch (rule.kind) {
        case PatternKind::SlidingWindow:
            o.related
                = {rule.retryKey.isEmpty() ? QByteArray() : applyTemplate(rule.retryKey, key)};
            break;
        case PatternKind::ResourceConsumer: {
            const qsizetype marker = key.indexOf(rule.consumerMarker);
            if (marker > 0) {
                o.parent = key.left(marker);
                if (rule.consumerLimit)
                    o.params.limit = rule.consumerLimit;
            }
            break;
        }
        case PatternKind::RedissonLimiter:
            o.related = {RedissonLimiterUnit::valueKey(key), RedissonLimiterUnit::permitsKey(key)};
            break;
        case PatternKind::ReliableQueue:
            o.related
                = {applyTemplate(rule.processingKey, o.key),
                   rule.claimsKey.isEmpty() ? QByteArray() : applyTemplate(rule.claimsKey, o.key),
                   rule.deadKey.isEmpty() ? QByteArray() : applyTemplate(rule.deadKey, o.key)};
            break;
        default:
            break;
        }
        return o;
    }
    return std::nullopt;
}

} // namespace gatehouse
