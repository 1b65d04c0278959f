// SPDX-License-Identifier: MIT
#pragma once

#include <patterns/scriptcall.h>

#include <QMessageBox>

namespace gatehouse {

// The one confirmation every operator action goes through: the action's
// sentence, and under "Show Details…" exactly what will run (script, KEYS,
// ARGV: ActionEngine::describe). Cancel is the default button.
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

protected:
    // A style change lays QMessageBox out again from its own labels: the
    // wrapping texts go back in their places.
    void changeEvent(QEvent *event) override;

private:
    // A confirmation titled and worded so, its details to be set (confirmMany).
    ConfirmActionDialog(const QString &title, const QString &text, QWidget *parent);
    // Shows the box's text and informative text in WrappingTexts.
    void wrapLabels();
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
