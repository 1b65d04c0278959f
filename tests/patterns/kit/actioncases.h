// SPDX-License-Identifier: MIT
#pragma once

// The action matrix's rows (tst_actionmatrix), registered by each pattern's
// folder in tests/patterns/<pattern>/<pattern>actions.cpp: a pattern with
// actions registers its adversarial cases, its conventional key (every call
// its actions build is refused on each key of a wrong type), or both; the
// matrix fails a pattern with actions and no registration.
#include <patterns/scriptcall.h>
#include <redis/serveridentity.h>

#include <QDateTime>
#include <QList>
#include <QMap>

#include <functional>

namespace gatehouse::test {

using Command = QList<QByteArray>;

// One action of the matrix: the keys it touches with the commands that lay
// them out as the pattern keeps them, the call, and which types each key may
// have for the action to write (others must be refused).
struct ActionCase
{
    QString name;
    QList<QByteArray> keys;
    QList<QList<Command>> layout;     // per key: the right type, expected content
    QList<QList<Command>> unexpected; // per key: the right type, content it did not expect
    QList<QByteArray> accepted;       // per key: the type it must have (or be missing)
    std::function<ScriptCall()> makeCall;
    bool movesItems = false; // a queue action: list elements are conserved
};

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
class ActionRowsRegistrar
{
public:
    ActionRowsRegistrar(const char *pattern, PatternActionRows (*make)(const ServerIdentity &));
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
