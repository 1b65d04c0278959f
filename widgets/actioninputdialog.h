// SPDX-License-Identifier: MIT
#pragma once

#include <patterns/patternunit.h>

#include <QDialog>
#include <QHash>

class QDialogButtonBox;
class QLabel;
class QLineEdit;

namespace gatehouse {

// The inputs of any pattern's action (PatternAction): what the console shows
// of the object (ActionInput::Source::Shown, PatternUnit::shownInputs) and the
// item chosen (Source::Item, PatternUnit::itemInputs) are filled in; the
// operator types the rest (Source::Operator), each field checked as it is
// typed by the action's own check(), so OK stays disabled until the request
// can be built. Nothing of a pattern is named here.
class ActionInputDialog : public QDialog
{
    Q_OBJECT
public:
    // state: the object selected (none for an action on a prefix, such as
    // token issue); chosen: the inputs the item chosen gives (an item of its
    // reading, PatternUnit::itemInputs, or a job of its job list), or none,
    // and operator inputs the place it was started from fixes (not asked).
    ActionInputDialog(const PatternUnit &unit, const PatternAction &action,
                      const ObjectState *state, const QHash<QString, QByteArray> &chosen,
                      const QList<QByteArray> &families, QWidget *parent = nullptr);

    // The request as the fields say now.
    ActionRequest request() const;
    // Why it cannot be built yet (empty when it can).
    QString problem() const;
    // Whether the operator has anything to type (otherwise there is no
    // need to show the dialog: the confirmation shows what will run).
    bool needsOperator() const { return !m_fields.isEmpty(); }
    // What the operator typed, by input id ("target" for a prefix action's
    // key), and the same put back into the fields (a later dialog for the
    // same action and object starts with it).
    QHash<QString, QByteArray> typed() const;
    void setTyped(const QHash<QString, QByteArray> &typed);

    // The request for action on state, asking the operator only when the
    // action needs typed inputs; nullopt when cancelled. problem gets why an
    // action without typed inputs cannot run (an item not chosen). typed:
    // what was typed the last time (the fields start with it), and what is
    // typed now, whether it was accepted or cancelled; none to forget it.
    static std::optional<ActionRequest>
    ask(const PatternUnit &unit, const PatternAction &action, const ObjectState *state,
        const QHash<QString, QByteArray> &chosen, const QList<QByteArray> &families,
        QWidget *parent, QString *problem, QHash<QString, QByteArray> *typed = nullptr);

private:
    void validate();
    // A check's sentence in the form's words: its CLI flags named by their
    // fields' labels, no command before "needs".
    QString consoleWords(QString why) const;

    PatternAction m_action;
    ActionRequest m_base;
    QLineEdit *m_target = nullptr;
    QHash<QString, QLineEdit *> m_fields;
    QLabel *m_error = nullptr;
    QDialogButtonBox *m_buttons = nullptr;
};

} // namespace gatehouse
