// SPDX-License-Identifier: MIT
#pragma once

#include <alerts/alertrule.h>

#include <QDialog>

class QComboBox;
class QLabel;
class QLineEdit;
class QListWidget;

namespace gatehouse {

// Adds, edits and removes alert rules: a list of the rules and a form for
// the selected one (name, target, key glob, figure, comparison, threshold,
// duration, severity). A form that does not make a rule says why
// (AlertRule::fromJson's sentence) and is not applied. Save keeps what the
// form shows: a form edited since it was last shown or applied is applied
// first (to the selected rule, or as a new one), and the dialog stays open
// when it is not a rule. Targets and figures are shown by their titles,
// written by their ids.
class AlertRulesDialog : public QDialog
{
    Q_OBJECT
public:
    explicit AlertRulesDialog(const QList<AlertRule> &rules, QWidget *parent = nullptr);
    QList<AlertRule> rules() const { return m_rules; }

    // The form, for tests: fills it and applies it to the selected rule
    // (or a new one); false with problem() set when it is not a rule.
    bool apply();
    QString problem() const;
    // Whether the form was edited since it was last shown or applied.
    bool formEdited() const { return m_edited; }

private:
    void showRule(int row);
    void fillFigures();
    void refreshList();
    void save();

    QList<AlertRule> m_rules;
    QListWidget *m_list;
    QLineEdit *m_name;
    QComboBox *m_target;
    QLineEdit *m_match;
    QComboBox *m_figure;
    QComboBox *m_op;
    QLineEdit *m_threshold;
    QLineEdit *m_for;
    QComboBox *m_severity;
    QLabel *m_problem;
    bool m_edited = false;
    bool m_showing = false; // the form is being filled, not edited
};

} // namespace gatehouse
