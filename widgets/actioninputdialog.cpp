// SPDX-License-Identifier: MIT
#include "actioninputdialog.h"

#include "environment.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QRegularExpressionValidator>
#include <QVBoxLayout>

#include <algorithm>

namespace gatehouse {

ActionInputDialog::ActionInputDialog(const PatternUnit &unit, const PatternAction &action,
                                     const ObjectState *state,
                                     const QHash<QString, QByteArray> &chosen,
                                     const QList<QByteArray> &families, QWidget *parent)
    : QDialog(parent)
    , m_action(action)
{
    // "[PRODUCTION] Issue token" on a marked window, as its confirmation.
    setWindowTitle(environmentOf(parent).titled(
        action.label.endsWith(QStringLiteral("…")) ? action.label.chopped(1) : action.label));
    setObjectName(QStringLiteral("actionInputDialog"));
    m_base.families = families;
    if (state) {
        m_base.object = state->object;
        m_base.shown = *state;
        m_base.target = state->object->key;
    }
    const QHash<QString, QByteArray> shown
        = state ? unit.shownInputs(*state) : QHash<QString, QByteArray>();
    const QHash<QString, QByteArray> &fromItem = chosen;
    auto *form = new QFormLayout;
    if (action.targetIsPrefix) {
        m_target = new QLineEdit(QString::fromUtf8(m_base.target), this);
        m_target->setObjectName(QStringLiteral("input_target"));
        form->addRow(tr("Key"), m_target);
        connect(m_target, &QLineEdit::textChanged, this, &ActionInputDialog::validate);
    }
    for (const ActionInput &in : action.inputs) {
        switch (in.source) {
        case ActionInput::Source::Shown:
            if (shown.contains(in.id))
                m_base.inputs.insert(in.id, shown.value(in.id));
            continue;
        case ActionInput::Source::Item:
            if (fromItem.contains(in.id))
                m_base.inputs.insert(in.id, fromItem.value(in.id));
            continue;
        case ActionInput::Source::Flag:
            continue; // the CLI's alternatives (--stuck): the console has its own actions
        case ActionInput::Source::Operator:
            if (!in.console)
                continue;
            // Fixed by where the action was started (the job browser's Dead
            // tab: Sidekiq's "from" dead): not asked.
            if (fromItem.contains(in.id)) {
                m_base.inputs.insert(in.id, fromItem.value(in.id));
                continue;
            }
            break;
        }
        auto *edit = new QLineEdit(this);
        edit->setObjectName(QStringLiteral("input_") + in.id);
        if (in.integer)
            edit->setValidator(new QRegularExpressionValidator(
                QRegularExpression(QStringLiteral("[0-9]{0,16}")), edit));
        edit->setPlaceholderText(in.required ? tr("required") : tr("optional"));
        form->addRow(in.label, edit);
        m_fields.insert(in.id, edit);
        connect(edit, &QLineEdit::textChanged, this, &ActionInputDialog::validate);
    }
    m_error = new QLabel(this);
    m_error->setObjectName(QStringLiteral("inputProblem"));
    m_error->setWordWrap(true);
    m_buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    // Cancel is the default, as in every confirmation: Enter in a field
    // never sends anything by accident.
    m_buttons->button(QDialogButtonBox::Ok)->setAutoDefault(false);
    m_buttons->button(QDialogButtonBox::Ok)->setDefault(false);
    m_buttons->button(QDialogButtonBox::Cancel)->setDefault(true);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_error);
    layout->addWidget(m_buttons);
    validate();
}

ActionRequest ActionInputDialog::request() const
{
    ActionRequest r = m_base;
    if (m_target) {
        r.target = m_target->text().toUtf8();
        if (!m_base.shown)
            r.object.edit().key = r.target;
    }
    for (auto it = m_fields.cbegin(); it != m_fields.cend(); ++it) {
        if (!it.value()->text().isEmpty())
            r.inputs.insert(it.key(), it.value()->text().toUtf8());
    }
    return r;
}

QHash<QString, QByteArray> ActionInputDialog::typed() const
{
    QHash<QString, QByteArray> out;
    if (m_target)
        out.insert(QStringLiteral("target"), m_target->text().toUtf8());
    for (auto it = m_fields.cbegin(); it != m_fields.cend(); ++it)
        out.insert(it.key(), it.value()->text().toUtf8());
    return out;
}

void ActionInputDialog::setTyped(const QHash<QString, QByteArray> &typed)
{
    if (m_target && typed.contains(QStringLiteral("target")))
        m_target->setText(QString::fromUtf8(typed.value(QStringLiteral("target"))));
    for (auto it = m_fields.cbegin(); it != m_fields.cend(); ++it) {
        if (typed.contains(it.key()))
            it.value()->setText(QString::fromUtf8(typed.value(it.key())));
    }
    validate();
}

QString ActionInputDialog::problem() const
{
    const ActionRequest r = request();
    for (const ActionInput &in : m_action.inputs) {
        if (in.required && in.source != ActionInput::Source::Flag && !r.has(in.id))
            return in.source == ActionInput::Source::Item
                       ? tr("Choose one in the list first (%1).").arg(in.label)
                       : tr("%1 is needed.").arg(in.label);
    }
    const QString why = m_action.check ? m_action.check(r) : QString();
    // The check speaks the CLI ("needs either --job ID or --stuck"): the
    // console's alternative to a flag is an action of its own, so what is
    // missing here is the item the operator did not choose.
    const bool hasFlag
        = std::any_of(m_action.inputs.cbegin(), m_action.inputs.cend(),
                      [](const ActionInput &in) { return in.source == ActionInput::Source::Flag; });
    if (!why.isEmpty() && hasFlag) {
        for (const ActionInput &in : m_action.inputs) {
            if (in.source == ActionInput::Source::Item && !r.has(in.id))
                return tr("Choose one in the list first (%1).").arg(in.label);
        }
    }
    return consoleWords(why);
}

QString ActionInputDialog::consoleWords(QString why) const
{
    // "queue trim needs either --maxlen N or --minid ID." names the fields
    // of this form: "Needs either "Keep the newest (entries)" or "Delete
    // below id"."; a flag's placeholder (N, MS, ID) goes with it.
    for (const ActionInput &in : m_action.inputs) {
        if (in.id.isEmpty())
            continue;
        const QRegularExpression flag(QStringLiteral("--%1(?![\\w-])(?:[ =][A-Z][A-Z_]*\\b)?")
                                          .arg(QRegularExpression::escape(in.id)));
        why.replace(flag, QStringLiteral("\u201c%1\u201d").arg(in.label));
    }
    static const QRegularExpression command(QStringLiteral("^[a-z]+ [a-z-]+ (?=needs |counts )"));
    why.remove(command);
    if (!why.isEmpty())
        why[0] = why.at(0).toUpper();
    return why;
}

void ActionInputDialog::validate()
{
    const QString why = problem();
    m_error->setText(why);
    m_error->setVisible(!why.isEmpty());
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(why.isEmpty());
}

std::optional<ActionRequest>
ActionInputDialog::ask(const PatternUnit &unit, const PatternAction &action,
                       const ObjectState *state, const QHash<QString, QByteArray> &chosen,
                       const QList<QByteArray> &families, QWidget *parent, QString *problem,
                       QHash<QString, QByteArray> *typed)
{
    ActionInputDialog dialog(unit, action, state, chosen, families, parent);
    if (typed)
        dialog.setTyped(*typed);
    if (!dialog.needsOperator() && !action.targetIsPrefix) {
        const QString why = dialog.problem();
        if (!why.isEmpty()) {
            if (problem)
                *problem = why;
            return std::nullopt;
        }
        return dialog.request();
    }
    const bool accepted = dialog.exec() == QDialog::Accepted;
    if (typed)
        *typed = dialog.typed();
    if (!accepted)
        return std::nullopt;
    return dialog.request();
}

} // namespace gatehouse
