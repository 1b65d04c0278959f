// SPDX-License-Identifier: MIT
#pragma once

#include <patterns/patternobject.h>

#include <QByteArray>
#include <QList>
#include <QString>

#include <optional>

namespace gatehouse {

// One line of a profile: which keys are instances of which pattern, with
// the parameters Redis does not store. Key templates use "{key}" for the
// instance's own key ("{key}:retry").
struct ProfileRule
{
    PatternKind kind = PatternKind::SlidingWindow;
    QByteArray match;          // Redis glob on the instance's key
    QList<QByteArray> exclude; // globs of keys that are never instances
    QByteArray prefix;         // token-family: the family prefix
    PatternParams params;
    std::optional<qint64> consumerLimit; // resource-consumer: the consumers' limit
    QByteArray consumerMarker = ":consumer:";
    QByteArray retryKey; // sliding-window, e.g. "{key}:retry"
    QByteArray processingKey = "{key}:processing";
    QByteArray claimsKey; // reliable-queue, optional
    QByteArray deadKey;   // reliable-queue, optional
    bool counted = false; // token-family: HASH tokens with a use counter

    // The glob a SCAN would use to find this rule's keys.
    QByteArray scanGlob() const;
};

// A named list of rules, loaded from JSON (format in README.md, "Profiles").
class Profile
{
public:
    QString name;
    QString fileName; // where it came from, for messages
    QList<ProfileRule> rules;

    bool isEmpty() const { return rules.isEmpty(); }

    // error gets one sentence naming the file, the field and what is expected.
    static std::optional<Profile> fromJson(const QByteArray &json, const QString &fileName,
                                           QString *error);
    // A profile file is at most this size (README, "Profiles").
    static constexpr qint64 MaxFileBytes = 1024 * 1024;

    // A file path, or the name of a built-in profile (resources/profiles/<name>.json).
    // Regular files of at most MaxFileBytes only; error says why not.
    static std::optional<Profile> load(const QString &fileOrName, QString *error);
    static QStringList builtInNames();
    QByteArray toJson() const;

    // The instance a key is the primary key of, with its related keys filled
    // in; nullopt if no rule claims it (or it is a related key of another
    // instance, such as a window's retry set).
    std::optional<PatternObject> objectFor(const QByteArray &key) const;
    // A glob matching every key of every rule (the common literal prefix +
    // "*"), so one SCAN finds everything; "*" when the rules share nothing.
    QByteArray scanGlob() const;
};

// "{key}:retry" applied to "rl:api" gives "rl:api:retry"; the inverse gives
// the base key of a related key, or an empty array if it does not fit.
QByteArray applyTemplate(const QByteArray &keyTemplate, const QByteArray &key);
QByteArray baseOfTemplate(const QByteArray &keyTemplate, const QByteArray &relatedKey);

} // namespace gatehouse
