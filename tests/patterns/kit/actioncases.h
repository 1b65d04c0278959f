// SPDX-License-Identifier: MIT
#pragma once

// The action matrix's rows (tst_actionmatrix), registered by each pattern's
// folder in tests/patterns/<pattern>/<pattern>actions.cpp: a pattern with
// actions registers its adversarial cases, its conventional key (every call
// its actions build is refused on each key of a wrong type), or both; the
// matrix fails a pattern with actions and no registration.
#include <actions/actionengine.h>
#include <patterns/scriptcall.h>
#include <redis/serveridentity.h>

#include <QDateTime>
#include <QList>
#include <QMap>

#include <functional>

namespace gatehouse::test {

using Command = QList<QByteArray>;

// What one run of a row left, for its own checks.
struct ActionCaseRun
{
    RedisClient &client;
    const ActionOutcome &out;
    QList<QByteArray> keys;
    QByteArray target;             // the key laid out as the variant says
    QString variant;               // "right", "missing", a type, or "unexpected"
    bool wrongType = false;        // target was laid out as a type not accepted
    QList<QByteArray> itemsBefore; // every element of every list among keys, sorted
};

// One action of the matrix: the keys it touches with the commands that lay
// them out as the pattern keeps them, the call, and which types each key may
// have for the action to write (others must be refused). Every row checks
// that a dry run writes nothing and predicts the result, that a refusal
// names the key and its type, and that what is not done writes nothing.
struct ActionCase
{
    QString name;
    QList<QByteArray> keys;
    QList<QList<Command>> layout;     // per key: the right type, expected content
    QList<QList<Command>> unexpected; // per key: the right type, content it did not expect
    // Per key: the type it must have (or be missing); "string|hash" for either.
    QList<QByteArray> accepted;
    std::function<ScriptCall()> makeCall;
    // What the run must have left, checked after it; none: a run that was
    // done deleted every key.
    std::function<void(const ActionCaseRun &)> verify;
};

// Every element of every list among keys, sorted: queue actions only move.
QList<QByteArray> listItems(RedisClient &client, const QList<QByteArray> &keys);
// How many times item is in the list at key (0 if it is no list).
int countInList(RedisClient &client, const QByteArray &key, const QByteArray &item);

struct PatternActionRows
{
    QList<ActionCase> cases;
    // The key a library's structure is conventionally found at ("bull:q"):
    // its unit's conventionalObject() is what every built call acts on.
    QByteArray conventionalKey;
};

// A pattern's actions file holds one, at namespace scope:
//   const ActionRowsRegistrar s_registrar("lock", &rows);
// make() runs each time the rows are asked for, with the server under test
// (an action its server cannot run is left out).
// A library whose rows are its conventional key alone registers that:
//   const ActionRowsRegistrar s_registrar("bullmq", "bull:q");
class ActionRowsRegistrar
{
public:
    ActionRowsRegistrar(const char *pattern, PatternActionRows (*make)(const ServerIdentity &));
    ActionRowsRegistrar(const char *pattern, const char *conventionalKey);
};

// Every registration, by pattern id.
QMap<QString, PatternActionRows> registeredActionRows(const ServerIdentity &server);

inline qint64 matrixNowMs()
{
    return QDateTime::currentMSecsSinceEpoch();
}

inline QByteArray num(qint64 v)
{
    return QByteArray::number(v);
}

} // namespace gatehouse::test
