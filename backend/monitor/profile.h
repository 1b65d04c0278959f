// SPDX-License-Identifier: MIT
#pragma once

#include <alerts/alertrule.h>
#include <patterns/profilerule.h>

#include <QByteArray>
#include <QList>
#include <QString>

#include <optional>

namespace gatehouse {

struct RedisEndpoint;

// A named list of rules, loaded from JSON (format in README.md, "Profiles").
class Profile
{
public:
    QString name;
    QString fileName; // where it came from, for messages
    QList<ProfileRule> rules;
    // Autodetection's verdicts an operator gave (`gatehouse-cli profile
    // accept|reject`): with autodetect, discovery autodetects every key and
    // the rules only promote what they match (an accepted candidate); keys
    // matching a rejected glob are never instances.
    bool autodetect = false;
    QList<QByteArray> rejected;
    bool rejects(const QByteArray &key) const;
    // Its alert rules (README, "Alerts"; backend/alerts).
    QList<AlertRule> alerts;

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
    // Where the console keeps this connection's own profile when it runs
    // without --profile: the verdicts given on the Unconfirmed page and the
    // rules edited on the Alerts page, loaded again at the next connection to
    // the same deployment. <config>/profiles/autodetected-<deployment>.json,
    // the deployment named by its address (host-port, the socket's path, or
    // the Sentinel master's name); user and password play no part.
    static QString connectionFile(const RedisEndpoint &endpoint);
    QByteArray toJson() const;

    // The instance a key is the primary key of, with its related keys filled
    // in; nullopt if no rule claims it (or it is a related key of another
    // instance, such as a window's retry set).
    std::optional<PatternObject> objectFor(const QByteArray &key) const;
    // A glob matching every key of every rule (the common literal prefix +
    // "*"), so one SCAN finds everything; "*" when the rules share nothing.
    QByteArray scanGlob() const;
    // What keyspace notifications must cover: every rule's globs.
    QList<QByteArray> eventGlobs() const;
};

} // namespace gatehouse
