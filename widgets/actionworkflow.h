// SPDX-License-Identifier: MIT
#pragma once

#include <actions/actionengine.h>
#include <patterns/scriptcall.h>

#include <QObject>
#include <QStringList>

class QWidget;

namespace gatehouse {

class ConsoleReads;

// What happens to an action a page builds: for a batch, the count of what
// matches now (MatchCount, one bounded round trip); the confirmation
// (ConfirmActionDialog: exactly what will run); the run on the actions
// engine; a second, explicit confirmation when the target is not what the
// console says it is; the issued secret of a new token. A selection's calls
// run one after another, each outcome known before the next is sent. What it
// has to say goes out as signals: the window shows it.
class ActionWorkflow : public QObject
{
    Q_OBJECT
public:
    // window: the dialogs' parent, and this object's.
    ActionWorkflow(ConsoleReads *reads, ActionEngine *actions, bool readOnly, QWidget *window);

    // The server's clock minus the desktop's (the latest snapshot's): what
    // "matches now" counts against.
    void setClockOffsetMs(qint64 offsetMs) { m_clockOffsetMs = offsetMs; }

    void act(const ScriptCall &call);
    void actOnEach(const QList<ScriptCall> &calls);

    // "2 jobs", "3 tokens": what a selection's calls act on.
    static QString itemsOf(const QList<ScriptCall> &calls);

Q_SIGNALS:
    // A sentence for the status bar (a cancellation, an outcome, a summary).
    void message(const QString &text, int timeoutMs);
    // An action ran (or may have): its outcome, for the banner.
    void outcome(const gatehouse::ActionOutcome &outcome, const QString &action);
    // Something was sent: what it acted on is to be read again, and keys
    // are the calls' keys (one may be new: the queue a retry pushed into).
    void ran(const QList<QByteArray> &keys);
    // The workflow is over: its last sentence.
    void finished(const QString &message);

private:
    // After the count of what matches now, if any was read.
    void confirmAndRun(const ScriptCall &call, const QString &matchNow);
    void confirmAndRunEach(const QList<ScriptCall> &calls, const QString &matchNow);
    void runEach(const QList<ScriptCall> &calls, qsizetype next, const QStringList &done,
                 const QStringList &notDone);
    void finishEach(const QList<ScriptCall> &calls, const QStringList &done,
                    const QStringList &notDone, const QString &stopped);
    qint64 serverNowMs() const; // the desktop's clock plus the server's offset

    ConsoleReads *m_reads;
    ActionEngine *m_actions;
    bool m_readOnly;
    QWidget *m_window;
    qint64 m_clockOffsetMs = 0;
};

} // namespace gatehouse
