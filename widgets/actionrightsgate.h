// SPDX-License-Identifier: MIT
#pragma once

#include <patterns/objectstate.h>
#include <redis/serveridentity.h>

#include <QHash>
#include <QObject>
#include <QString>

#include <functional>

namespace gatehouse {

class ActionEngine;
struct PatternAction;

// Whether the connected Redis user may run an action on the object shown,
// asked of the server before the operator clicks: the console disables a
// button the ACL would refuse and its tooltip says what to grant. The answer
// is the actions engine's own check (ActionRights: EVAL_RO of
// redis.acl_check_cmd, Redis 7.0+), on the call built with the object's keys
// and stand-in inputs (an ACL judges commands and keys, not values). Answers
// are kept a minute, so a changed ACL is seen at the next selection after
// that; a reconnect forgets them. Where the server cannot say, the action
// stays enabled and the engine checks again before sending.
class ActionRightsGate : public QObject
{
    Q_OBJECT
public:
    explicit ActionRightsGate(ActionEngine *engine, QObject *parent = nullptr);

    // Why the user may not run action on state, for a tooltip; empty when it
    // may, or while not known (a check is then under way: changed() follows).
    // given: inputs the call has (the others are stand-ins).
    QString denied(const PatternAction &action, const ObjectState &state,
                   const ServerIdentity &server, const QHash<QString, QByteArray> &given = {});
    // Answers for the actions of one object as it is now (the job
    // browser's verbs, each with its own inputs): denied() by action id.
    using Check
        = std::function<QString(const QString &actionId, const QHash<QString, QByteArray> &inputs)>;
    Check checkFor(const ObjectState &state, const ServerIdentity &server);
    void forget() { m_answers.clear(); }
    // The actions' connection made a new handshake (a changed ACL, or
    // another user, answers from now on): every answer is asked again.
    void renew()
    {
        m_answers.clear();
        Q_EMIT changed();
    }

    static constexpr qint64 KeptMs = 60000;
    static constexpr int MaxAnswers = 512;

Q_SIGNALS:
    void changed();

private:
    struct Answer
    {
        QString denied;
        qint64 atMs = 0;
        bool pending = true;
    };
    ActionEngine *m_engine;
    QHash<QByteArray, Answer> m_answers; // by action id and object key
};

} // namespace gatehouse
