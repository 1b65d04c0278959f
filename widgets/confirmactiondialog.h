// SPDX-License-Identifier: MIT
#pragma once

#include "environment.h"

#include <patterns/scriptcall.h>

#include <QMessageBox>
#include <QPointer>

class QLineEdit;

namespace gatehouse {

// The one confirmation every operator action goes through: the action's
// sentence, and under "Show Details…" exactly what will run (script, KEYS,
// ARGV: ActionEngine::describe). Cancel is the default button.
// On a window marked with an environment (markWindow), a line in its colour
// across the top names it and the connection; on production, Run (or Force)
// is enabled only once the environment's label is typed back.
class ConfirmActionDialog : public QMessageBox
{
    Q_OBJECT
public:
    // matchNow: how many objects match now (MatchCount::sentence), shown
    // above the script; empty for an action on one named object.
    explicit ConfirmActionDialog(const ScriptCall &call, QWidget *parent = nullptr,
                                 const QString &matchNow = QString());

    // True when the operator chose Run.
    static bool confirm(const ScriptCall &call, QWidget *parent,
                        const QString &matchNow = QString());
    // The same action on several jobs (a selection): one confirmation naming
    // how many and which, every script under "Show Details…".
    static bool confirmMany(const QList<ScriptCall> &calls, const QString &what, QWidget *parent,
                            const QString &matchNow = QString());
    // The engine refused call because its target is not what the console
    // says it is (refusal): only a second, explicit choice forces it (the
    // checks skipped, audited as forced). True when the operator chose Force.
    static bool confirmForce(const ScriptCall &call, const QString &refusal, QWidget *parent);

    // True unless the window is marked production and its label has not
    // been typed back (what confirm() and the others require besides Run).
    bool environmentConfirmed() const;

protected:
    // Enter in the field where the label is typed neither runs nor cancels.
    void keyPressEvent(QKeyEvent *event) override;
    // A style change lays QMessageBox out again from its own labels: the
    // wrapping texts go back in their places.
    void changeEvent(QEvent *event) override;

private:
    // A confirmation titled and worded so, its details to be set
    // (confirmMany, confirmForce).
    ConfirmActionDialog(QMessageBox::Icon icon, const QString &title, const QString &text,
                        QMessageBox::StandardButtons buttons, QWidget *parent);
    // Shows the box's text and informative text in WrappingTexts.
    void wrapLabels();
    // The parent window's environment: the line naming it, and on
    // production the field that gates run.
    void setUpEnvironment(QAbstractButton *run);
    // Puts the environment's line and field in QMessageBox's grid (again
    // after it made a new one).
    void placeEnvironment();
    void updateRun();

    Environment m_environment; // the parent window's; none: unmarked
    QPointer<QWidget> m_environmentLine;
    QPointer<QWidget> m_typing;  // the sentence and the field, production only
    QPointer<QLineEdit> m_typed; // where the label is typed back
    QPointer<QAbstractButton> m_run;
    bool m_wrapped = false; // the texts are in WrappingTexts (wrapLabels)
};

// Shows once a secret an action created (an issued token), with a copy
// button; it is in no log.
class IssuedDialog : public QDialog
{
    Q_OBJECT
public:
    IssuedDialog(const QByteArray &key, const QByteArray &secret, QWidget *parent = nullptr);
};

} // namespace gatehouse
