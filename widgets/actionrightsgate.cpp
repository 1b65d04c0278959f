// SPDX-License-Identifier: MIT
// The console's question, before a click, of whether the connected user's
// ACL lets an action run on the object shown.
#include "actionrightsgate.h"

#include <actions/actionengine.h>
#include <patterns/patternaction.h>
#include <patterns/patternunit.h>

#include <QDateTime>
#include <QPointer>
#include <QStringList>

#include <utility>

namespace gatehouse {

namespace {

// The engine's sentence is an outcome ("Refused: … Nothing was sent."); on
// a disabled button it is a reason.
QString asReason(QString sentence)
{
    if (sentence.startsWith(QLatin1String("Refused: ")))
        sentence = sentence.mid(9);
    sentence.replace(QLatin1String(" Nothing was sent."), QString());
    if (!sentence.isEmpty())
        sentence[0] = sentence.at(0).toUpper();
    return QObject::tr("Your Redis user may not run this. %1").arg(sentence);
}

} // namespace

ActionRightsGate::ActionRightsGate(ActionEngine *engine, QObject *parent)
    : QObject(parent)
    , m_engine(engine)
{}

QString ActionRightsGate::denied(const PatternAction &action, const ObjectState &state,
                                 const ServerIdentity &server,
                                 const QHash<QString, QByteArray> &given)
{
    if (!m_engine || action.targetIsPrefix || !action.build)
        return QString();
    QByteArray id = action.id.toUtf8() + '\n' + state.object->key;
    QStringList names = given.keys();
    names.sort();
    for (const QString &name : std::as_const(names))
        id += '\n' + name.toUtf8() + '=' + given.value(name);
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    const auto known = m_answers.constFind(id);
    if (known != m_answers.cend() && (known->pending || now - known->atMs < KeptMs))
        return known->denied;
    // The call as the operator's would be, with stand-in inputs.
    ActionRequest request;
    request.object = state.object;
    request.target = state.object->key;
    request.shown = state;
    request.server = server;
    for (const ActionInput &in : action.inputs) {
        if (in.source == ActionInput::Source::Flag)
            continue;
        request.inputs.insert(in.id, given.contains(in.id) ? given.value(in.id)
                                     : in.integer          ? QByteArray("1")
                                                           : QByteArray("x"));
    }
    if (action.check && !action.check(request).isEmpty())
        return QString(); // it cannot be built without what the operator gives
    const ScriptCall call = action.build(request);
    if (!call.isValid())
        return QString();
    const QString before = known != m_answers.cend() ? known->denied : QString();
    if (m_answers.size() >= MaxAnswers)
        m_answers.clear();
    m_answers.insert(id, {before, now, true}); // the last answer stands meanwhile
    QPointer<ActionRightsGate> self(this);
    m_engine->checkRights(call, this, [self, id](bool answered, const QString &denied) {
        if (!self)
            return;
        if (!answered) { // lost: asked again at the next look
            self->m_answers.remove(id);
            return;
        }
        Answer &a = self->m_answers[id];
        const QString before
            = std::exchange(a.denied, denied.isEmpty() ? QString() : asReason(denied));
        a.pending = false;
        a.atMs = QDateTime::currentMSecsSinceEpoch();
        if (a.denied != before)
            Q_EMIT self->changed();
    });
    return before;
}

ActionRightsGate::Check ActionRightsGate::checkFor(const ObjectState &state,
                                                   const ServerIdentity &server)
{
    return [self = QPointer<ActionRightsGate>(this), state,
            server](const QString &actionId, const QHash<QString, QByteArray> &inputs) {
        if (!self || state.gone)
            return QString();
        for (const PatternAction &a : PatternUnit::of(state.object->kind).actions()) {
            if (a.id == actionId)
                return self->denied(a, state, server, inputs);
        }
        return QString();
    };
}

} // namespace gatehouse
