// SPDX-License-Identifier: MIT
#include "actionworkflow.h"

#include "confirmactiondialog.h"

#include <actions/actionengine.h>
#include <actions/matchcount.h>
#include <deployment/consolereads.h>

#include <QDateTime>
#include <QSet>
#include <QWidget>

namespace gatehouse {

ActionWorkflow::ActionWorkflow(ConsoleReads *reads, ActionEngine *actions, bool readOnly,
                               QWidget *window)
    : QObject(window)
    , m_reads(reads)
    , m_actions(actions)
    , m_readOnly(readOnly)
    , m_window(window)
{}

qint64 ActionWorkflow::serverNowMs() const
{
    return QDateTime::currentMSecsSinceEpoch() + m_clockOffsetMs;
}

void ActionWorkflow::act(const ScriptCall &call)
{
    // A batch says how many match now: counted (one bounded round trip)
    // before its confirmation opens, never on this thread's time.
    if (!m_readOnly && MatchCount::counts({call})) {
        m_reads->countMatches({call}, serverNowMs(), this,
                              [this, call](const MatchCount::Result &r) {
                                  confirmAndRun(call, MatchCount::sentence(r, {call}));
                              });
        return;
    }
    confirmAndRun(call, QString());
}

void ActionWorkflow::confirmAndRun(const ScriptCall &call, const QString &matchNow)
{
    if (m_readOnly) { // buttons are disabled; the engine refuses too
        m_actions->run(call, false, this, [this](const ActionOutcome &o) {
            Q_EMIT message(o.message, 8000);
            Q_EMIT finished(o.message);
        });
        return;
    }
    if (!ConfirmActionDialog::confirm(call, m_window, matchNow)) {
        const QString cancelled = tr("Cancelled: nothing was sent.");
        Q_EMIT message(cancelled, 5000);
        Q_EMIT finished(cancelled);
        return;
    }
    m_actions->run(call, false, this, [this, call](const ActionOutcome &o) {
        Q_EMIT outcome(o, call.action);
        Q_EMIT message(o.message, 10000);
        Q_EMIT ran(call.keys);
        if (o.result == ActionOutcome::Result::Refused && o.forceable && !call.force) {
            // The target is not what the console says it is: only a second,
            // explicit confirmation (audited as forced) acts on it anyway.
            if (ConfirmActionDialog::confirmForce(call, o.message, m_window)) {
                act(call.forced());
                return;
            }
        }
        if (o.result == ActionOutcome::Result::Done && !call.issued.isEmpty()) {
            IssuedDialog shown(call.keys.value(0), call.issued, m_window);
            shown.exec();
        }
        Q_EMIT finished(o.message);
    });
}

void ActionWorkflow::actOnEach(const QList<ScriptCall> &calls)
{
    if (calls.isEmpty())
        return;
    if (calls.size() == 1 || m_readOnly) { // read-only: the engine's refusal, once
        act(calls.first());
        return;
    }
    if (MatchCount::counts(calls)) {
        m_reads->countMatches(calls, serverNowMs(), this,
                              [this, calls](const MatchCount::Result &r) {
                                  confirmAndRunEach(calls, MatchCount::sentence(r, calls));
                              });
        return;
    }
    confirmAndRunEach(calls, QString());
}

void ActionWorkflow::confirmAndRunEach(const QList<ScriptCall> &calls, const QString &matchNow)
{
    QStringList jobs;
    for (const ScriptCall &call : calls)
        jobs << call.summary;
    const QString what
        = tr("%1 on %2:")
              .arg(calls.first().title.isEmpty() ? calls.first().action : calls.first().title,
                   itemsOf(calls))
          + QLatin1Char('\n') + jobs.mid(0, 8).join(QLatin1Char('\n'))
          + (jobs.size() > 8 ? tr("\n… and %n more.", nullptr, int(jobs.size() - 8)) : QString());
    if (!ConfirmActionDialog::confirmMany(calls, what, m_window, matchNow)) {
        const QString cancelled = tr("Cancelled: nothing was sent.");
        Q_EMIT message(cancelled, 5000);
        Q_EMIT finished(cancelled);
        return;
    }
    runEach(calls, 0, {}, {});
}

// Calls on one key (a queue) act on its jobs; calls on a key each act on
// that key, named by its role in the script ("token").
QString ActionWorkflow::itemsOf(const QList<ScriptCall> &calls)
{
    QSet<QByteArray> keys;
    for (const ScriptCall &call : calls)
        keys.insert(call.keys.value(0));
    QString item = QStringLiteral("job");
    if (calls.size() > 1 && keys.size() == calls.size()
        && !calls.first().keyRoles.value(0).isEmpty())
        item = calls.first().keyRoles.value(0);
    return QStringLiteral("%1 %2%3")
        .arg(calls.size())
        .arg(item, calls.size() == 1 ? QString() : QStringLiteral("s"));
}

void ActionWorkflow::finishEach(const QList<ScriptCall> &calls, const QStringList &done,
                                const QStringList &notDone, const QString &stopped)
{
    // In the button's words ("Retry"), not the action's id.
    const ScriptCall &first = calls.first();
    QString text = tr("%1: %2 of %3 done.")
                       .arg(first.title.isEmpty() ? first.action : first.title)
                       .arg(done.size())
                       .arg(itemsOf(calls));
    if (!notDone.isEmpty())
        text += QLatin1Char(' ') + tr("Not done: %1").arg(notDone.join(QStringLiteral("; ")));
    if (!stopped.isEmpty())
        text += QLatin1Char(' ') + stopped;
    Q_EMIT message(text, 15000);
    QList<QByteArray> keys;
    for (const ScriptCall &call : calls) {
        for (const QByteArray &key : call.keys) {
            if (!keys.contains(key))
                keys << key;
        }
    }
    Q_EMIT ran(keys);
    Q_EMIT finished(text);
}

// One call after another (the next sent once the last answered), so the
// outcome of each is known; a reply lost to the connection stops the rest.
void ActionWorkflow::runEach(const QList<ScriptCall> &calls, qsizetype next,
                             const QStringList &done, const QStringList &notDone)
{
    if (next >= calls.size()) {
        finishEach(calls, done, notDone, {});
        return;
    }
    const ScriptCall call = calls.at(next);
    m_actions->run(call, false, this, [=, this](const ActionOutcome &o) {
        QStringList ok = done;
        QStringList not_ = notDone;
        if (o.result == ActionOutcome::Result::Done)
            ok << call.summary;
        else
            not_ << o.message;
        if (o.result == ActionOutcome::Result::Unknown) {
            Q_EMIT outcome(o, call.action);
            finishEach(calls, ok, not_,
                       tr("Stopped: %n not sent.", nullptr, int(calls.size() - next - 1)));
            return;
        }
        runEach(calls, next + 1, ok, not_);
    });
}

} // namespace gatehouse
