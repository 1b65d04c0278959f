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
// (AlertRule::fromJson's sentence) and is not applied.
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

private:
    void showRule(int row);
    void fillFigures();
    void refreshList();

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
};

} // namespace gatehouse
