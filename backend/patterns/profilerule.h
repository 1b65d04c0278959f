// SPDX-License-Identifier: MIT
#pragma once

#include "patternobject.h"

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QString>

#include <optional>

namespace gatehouse {

// One line of a profile: which keys are instances of which pattern, with
// the parameters Redis does not store. Key templates use "{key}" for the
// instance's own key ("{key}:retry"). Which fields a pattern reads and
// writes back is the pattern's (PatternUnit::parseRule / writeRule).
struct ProfileRule
{
    PatternKind kind;
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

    // The glob a SCAN would use to find this rule's keys (the pattern's).
    QByteArray scanGlob() const;
    // Whether key is excluded by one of the exclude globs.
    bool excludes(const QByteArray &key) const;
};

// Reads one rule's fields, each failure a sentence naming the file, the rule
// and the field ("ops.json: rules[2].window must be a whole number ...").
class RuleReader
{
public:
    RuleReader(const QString &file, QString *error)
        : m_file(file)
        , m_error(error)
    {}
    int index = 0;

    bool fail(const QString &field, const QString &expected);
    // A non-empty string, when present (or always, when required).
    bool string(const QJsonObject &o, const char *field, QByteArray *out, bool required = false);
    // A key template: a string containing "{key}".
    bool keyTemplate(const QJsonObject &o, const char *field, QByteArray *out);
    // A whole number from 0 to 2^53, when present.
    bool integer(const QJsonObject &o, const char *field, std::optional<qint64> *out);
    // "ms" or "s" -> 1 or 1000, when present.
    bool unit(const QJsonObject &o, const char *field, qint64 *out);
    bool boolean(const QJsonObject &o, const char *field, bool *out);
    // "limit", "window" and "windowUnit" into params (limiters, semaphores).
    bool limitAndWindow(const QJsonObject &o, PatternParams *params);
    // Every field of o was read (a field the pattern does not use is a
    // mistake worth a sentence: "limit" on a lock, a misspelt "stuckAfter").
    bool allFieldsRead(const QJsonObject &o, const QString &pattern);

    // A field read elsewhere (or free text such as "comment").
    void accept(const char *field) { note(field); }

private:
    bool note(const char *field);
    QStringList m_read;
    const QString &m_file;
    QString *m_error;
};

// The writing side of limitAndWindow.
void writeLimitAndWindow(const PatternParams &params, QJsonObject &o);

// "{key}:retry" applied to "rl:api" gives "rl:api:retry"; the inverse gives
// the base key of a related key, or an empty array if it does not fit.
QByteArray applyTemplate(const QByteArray &keyTemplate, const QByteArray &key);
QByteArray baseOfTemplate(const QByteArray &keyTemplate, const QByteArray &relatedKey);

} // namespace gatehouse
