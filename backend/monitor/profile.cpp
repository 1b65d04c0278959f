// SPDX-License-Identifier: MIT
#include "profile.h"

#include <alerts/builtinalerts.h>
#include <patterns/globmatch.h>
#include <patterns/patternregistry.h>
#include <redis/redisendpoint.h>
#include <redis/userinput.h>

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStandardPaths>

namespace gatehouse {

namespace {

// The literal bytes before the first glob metacharacter.
QByteArray literalPrefix(const QByteArray &glob)
{
    qsizetype i = 0;
    while (i < glob.size() && glob.at(i) != '*' && glob.at(i) != '?' && glob.at(i) != '['
           && glob.at(i) != '\\')
        ++i;
    return glob.left(i);
}

} // namespace

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
    const QJsonValue rejected = root.value(QLatin1String("rejected"));
    if (!rejected.isUndefined() && !rejected.isArray()) {
        *error = QStringLiteral("%1: \"rejected\" must be a list of key globs.")
                     .arg(echoed(QDir::toNativeSeparators(fileName)));
        return std::nullopt;
    }
    for (const QJsonValue &g : rejected.toArray()) {
        if (!g.isString() || g.toString().isEmpty()) {
            *error = QStringLiteral("%1: \"rejected\" must hold key globs (strings), not %2.")
                         .arg(echoed(QDir::toNativeSeparators(fileName)),
                              QString::fromUtf8(
                                  QJsonDocument(QJsonArray{g}).toJson(QJsonDocument::Compact))
                                  .mid(1)
                                  .chopped(1));
            return std::nullopt;
        }
        profile.rejected.append(g.toString().toUtf8());
    }
    const QJsonValue autodetect = root.value(QLatin1String("autodetect"));
    if (!autodetect.isUndefined() && !autodetect.isBool()) {
        *error = QStringLiteral("%1: \"autodetect\" must be true or false.")
                     .arg(echoed(QDir::toNativeSeparators(fileName)));
        return std::nullopt;
    }
    profile.autodetect = autodetect.toBool(false);
    profile.alerts = builtInAlertRules(); // unless the file has a list of its own
    if (root.contains(QLatin1String("alerts"))) {
        const std::optional<QList<AlertRule>> alerts
            = AlertRule::listFromJson(root.value(QLatin1String("alerts")), fileName, error);
        if (!alerts)
            return std::nullopt;
        profile.alerts = *alerts;
    }
    RuleReader r(fileName, error);
    const QJsonArray rules = root.value(QLatin1String("rules")).toArray();
    for (r.index = 0; r.index < rules.size(); ++r.index) {
        if (!rules.at(r.index).isObject()) {
            r.fail(QString(), QStringLiteral("must be an object"));
            return std::nullopt;
        }
        const QJsonObject o = rules.at(r.index).toObject();
        ProfileRule rule;
        const QString id = o.value(QLatin1String("pattern")).toString();
        const PatternUnit *unit = PatternRegistry::instance().find(id);
        if (!unit) {
            r.fail(
                QStringLiteral("pattern"),
                QStringLiteral("must be one of %1 (got \"%2\")")
                    .arg(PatternRegistry::instance().ids().join(QLatin1String(", ")), echoed(id)));
            return std::nullopt;
        }
        rule.kind = unit->kind();
        const bool prefixed = unit->keyField() == QLatin1String("prefix");
        std::optional<qint64> pageSize;
        if (!r.string(o, prefixed ? "prefix" : "match", prefixed ? &rule.prefix : &rule.match, true)
            || !r.integer(o, "pageSize", &pageSize) || !unit->parseRule(r, o, rule))
            return std::nullopt;
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
        for (const char *field : {"pattern", "exclude", "comment", "description"})
            r.accept(field);
        if (!r.allFieldsRead(o, id))
            return std::nullopt;
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

QString Profile::connectionFile(const RedisEndpoint &endpoint)
{
    QString id;
    if (!endpoint.sentinels.isEmpty())
        id = QStringLiteral("sentinel-") + endpoint.sentinelMaster;
    else if (endpoint.transport == RedisEndpoint::Transport::Unix)
        id = QStringLiteral("socket-") + endpoint.socketPath;
    else
        id = endpoint.host + QLatin1Char('-') + QString::number(endpoint.port);
    // A file name of letters, digits, '.', '-' and '_' only.
    for (QChar &c : id) {
        if (!c.isLetterOrNumber() && c != QLatin1Char('.') && c != QLatin1Char('-')
            && c != QLatin1Char('_'))
            c = QLatin1Char('_');
    }
    return QStandardPaths::writableLocation(QStandardPaths::AppConfigLocation)
           + QStringLiteral("/profiles/autodetected-") + id + QStringLiteral(".json");
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
        const PatternUnit &unit = PatternUnit::of(r.kind);
        QJsonObject o{{QStringLiteral("pattern"), patternId(r.kind)}};
        if (unit.keyField() == QLatin1String("prefix"))
            o.insert(QStringLiteral("prefix"), QString::fromUtf8(r.prefix));
        else
            o.insert(QStringLiteral("match"), QString::fromUtf8(r.match));
        if (!r.exclude.isEmpty()) {
            QJsonArray ex;
            for (const QByteArray &e : r.exclude)
                ex.append(QString::fromUtf8(e));
            o.insert(QStringLiteral("exclude"), ex);
        }
        unit.writeRule(r, o);
        if (r.params.pageSize != PatternParams().pageSize)
            o.insert(QStringLiteral("pageSize"), r.params.pageSize);
        rules.append(o);
    }
    QJsonObject root{{QStringLiteral("name"), name}, {QStringLiteral("rules"), rules}};
    if (autodetect)
        root.insert(QStringLiteral("autodetect"), true);
    // No list is the built-in rules; any other, an empty one too, is written.
    if (alerts != builtInAlertRules())
        root.insert(QStringLiteral("alerts"), AlertRule::listToJson(alerts));
    if (!rejected.isEmpty()) {
        QJsonArray globs;
        for (const QByteArray &g : rejected)
            globs.append(QString::fromUtf8(g));
        root.insert(QStringLiteral("rejected"), globs);
    }
    return QJsonDocument(root).toJson(QJsonDocument::Indented);
}

QByteArray Profile::scanGlob() const
{
    if (rules.isEmpty())
        return "*";
    std::optional<QByteArray> common;
    for (const ProfileRule &r : rules) {
        for (const QByteArray &glob : PatternUnit::of(r.kind).scanGlobs(r)) {
            const QByteArray lit = literalPrefix(glob);
            if (!common) {
                common = lit;
                continue;
            }
            qsizetype n = 0;
            while (n < common->size() && n < lit.size() && common->at(n) == lit.at(n))
                ++n;
            common->truncate(n);
        }
    }
    return common.value_or(QByteArray()) + '*';
}

QList<QByteArray> Profile::eventGlobs() const
{
    QList<QByteArray> globs;
    for (const ProfileRule &r : rules)
        globs << PatternUnit::of(r.kind).scanGlobs(r);
    return globs;
}

bool Profile::rejects(const QByteArray &key) const
{
    for (const QByteArray &glob : rejected) {
        if (globMatch(glob, key))
            return true;
    }
    return false;
}

std::optional<PatternObject> Profile::objectFor(const QByteArray &key) const
{
    if (rejects(key))
        return std::nullopt;
    for (const ProfileRule &rule : rules) {
        if (std::optional<PatternObject> o = PatternUnit::of(rule.kind).objectFor(rule, key)) {
            o->source = name;
            return o;
        }
    }
    return std::nullopt;
}

} // namespace gatehouse
