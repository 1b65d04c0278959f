// SPDX-License-Identifier: MIT
#include "alertrulesdialog.h"

#include <patterns/patternregistry.h>
#include <patterns/patternunit.h>

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QScopedValueRollback>
#include <QVBoxLayout>

namespace gatehouse {

AlertRulesDialog::AlertRulesDialog(const QList<AlertRule> &rules, QWidget *parent)
    : QDialog(parent)
    , m_rules(rules)
    , m_list(new QListWidget(this))
    , m_name(new QLineEdit(this))
    , m_target(new QComboBox(this))
    , m_match(new QLineEdit(this))
    , m_figure(new QComboBox(this))
    , m_op(new QComboBox(this))
    , m_threshold(new QLineEdit(this))
    , m_for(new QLineEdit(this))
    , m_severity(new QComboBox(this))
    , m_problem(new QLabel(this))
{
    setWindowTitle(tr("Alert rules"));
    m_list->setObjectName(QStringLiteral("alertRuleList"));
    m_name->setObjectName(QStringLiteral("alertName"));
    m_target->setObjectName(QStringLiteral("alertTarget"));
    m_match->setObjectName(QStringLiteral("alertMatch"));
    m_figure->setObjectName(QStringLiteral("alertFigure"));
    m_op->setObjectName(QStringLiteral("alertOp"));
    m_threshold->setObjectName(QStringLiteral("alertThreshold"));
    m_for->setObjectName(QStringLiteral("alertFor"));
    m_severity->setObjectName(QStringLiteral("alertSeverity"));
    m_problem->setObjectName(QStringLiteral("alertProblem"));
    m_problem->setWordWrap(true);

    // Written by id ("lock": the section, "redisson-lock": one pattern),
    // shown by title; a pattern named as its section is the section.
    m_target->addItem(tr("any pattern"), QString());
    const PatternRegistry &registry = PatternRegistry::instance();
    for (const QString &t : AlertRule::targets()) {
        if (m_target->findData(t) >= 0)
            continue;
        QString title = t == QLatin1String("node") ? tr("Nodes") : t;
        if (const std::optional<Section> section = registry.section(t))
            title = tr("%1 (every kind)").arg(section->title);
        else if (const PatternUnit *unit = registry.find(t))
            title = unit->title();
        m_target->addItem(title, t);
        m_target->setItemData(m_target->count() - 1, t, Qt::ToolTipRole);
    }
    for (const char *op : {">=", ">", "<=", "<"})
        m_op->addItem(QLatin1String(op));
    for (const char *s : {"info", "warning", "critical"})
        m_severity->addItem(QLatin1String(s));
    m_severity->setCurrentIndex(1);
    m_match->setPlaceholderText(tr("every key (or a glob: sim:rl:*)"));
    m_threshold->setPlaceholderText(tr("80% · 30s · 500ms · 3"));
    m_for->setPlaceholderText(tr("at once (or 5s, 2m)"));
    m_name->setPlaceholderText(tr("the condition, unless named"));
    connect(m_target, &QComboBox::currentIndexChanged, this, &AlertRulesDialog::fillFigures);
    fillFigures();
    // Anything typed or chosen marks the form edited: Save then keeps it.
    const auto edited = [this] {
        if (!m_showing)
            m_edited = true;
    };
    for (QLineEdit *edit : {m_name, m_match, m_threshold, m_for})
        connect(edit, &QLineEdit::textEdited, this, edited);
    for (QComboBox *combo : {m_target, m_figure, m_op, m_severity})
        connect(combo, &QComboBox::activated, this, edited);

    auto *form = new QFormLayout;
    form->addRow(tr("Name"), m_name);
    form->addRow(tr("Objects"), m_target);
    form->addRow(tr("Keys"), m_match);
    form->addRow(tr("Figure"), m_figure);
    auto *condition = new QHBoxLayout;
    condition->addWidget(m_op);
    condition->addWidget(m_threshold, 1);
    form->addRow(tr("Fires when"), condition);
    form->addRow(tr("Held for"), m_for);
    form->addRow(tr("Severity"), m_severity);

    auto *add = new QPushButton(tr("Add as new"), this);
    add->setObjectName(QStringLiteral("alertAdd"));
    auto *update = new QPushButton(tr("Apply to selected"), this);
    update->setObjectName(QStringLiteral("alertApply"));
    auto *remove = new QPushButton(tr("Remove selected"), this);
    remove->setObjectName(QStringLiteral("alertRemove"));
    connect(add, &QPushButton::clicked, this, [this] {
        m_list->clearSelection();
        m_list->setCurrentRow(-1);
        apply();
    });
    connect(update, &QPushButton::clicked, this, &AlertRulesDialog::apply);
    connect(remove, &QPushButton::clicked, this, [this] {
        const int row = m_list->currentRow();
        if (row < 0 || row >= m_rules.size())
            return;
        m_rules.removeAt(row);
        refreshList();
    });
    auto *buttons = new QHBoxLayout;
    buttons->addWidget(add);
    buttons->addWidget(update);
    buttons->addWidget(remove);
    buttons->addStretch(1);

    auto *box = new QDialogButtonBox(QDialogButtonBox::Save | QDialogButtonBox::Cancel, this);
    connect(box, &QDialogButtonBox::accepted, this, &AlertRulesDialog::save);
    connect(box, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_list, 1);
    layout->addLayout(form);
    layout->addWidget(m_problem);
    layout->addLayout(buttons);
    layout->addWidget(box);
    connect(m_list, &QListWidget::currentRowChanged, this, &AlertRulesDialog::showRule);
    refreshList();
    resize(560, 520);
}

void AlertRulesDialog::refreshList()
{
    const int row = m_list->currentRow();
    m_list->clear();
    // A rule named by its condition (the default) is not shown twice, and
    // its figure is named by its title, as the editor's fields show it.
    for (const AlertRule &r : std::as_const(m_rules)) {
        AlertRule unnamed = r;
        unnamed.name.clear();
        const QString condition = unnamed.shownName();
        const QString shown = r.shownName();
        m_list->addItem(shown == condition ? condition
                                           : QStringLiteral("%1 — %2").arg(shown, condition));
    }
    if (row >= 0 && row < m_list->count())
        m_list->setCurrentRow(row);
}

void AlertRulesDialog::save()
{
    if (m_edited && !apply())
        return; // the problem is shown; what was typed stays on screen
    accept();
}

void AlertRulesDialog::fillFigures()
{
    const QString current = m_figure->currentData().toString();
    const QString target = m_target->currentData().toString();
    m_figure->clear();
    for (const QString &id : AlertRule::figureIds(target)) {
        const std::optional<AlertFigure> figure = AlertRule::findFigure(target, id);
        m_figure->addItem(figure && !figure->title.isEmpty() ? figure->title : id, id);
        m_figure->setItemData(m_figure->count() - 1, id, Qt::ToolTipRole);
    }
    const int i = m_figure->findData(current);
    if (i >= 0)
        m_figure->setCurrentIndex(i);
}

void AlertRulesDialog::showRule(int row)
{
    if (row < 0 || row >= m_rules.size())
        return;
    const AlertRule &r = m_rules.at(row);
    const QJsonObject json = r.toJson();
    const QScopedValueRollback<bool> showing(m_showing, true);
    m_name->setText(r.name);
    m_target->setCurrentIndex(std::max(0, m_target->findData(r.target)));
    fillFigures();
    m_figure->setCurrentIndex(m_figure->findData(r.figure));
    m_match->setText(QString::fromUtf8(r.match));
    m_op->setCurrentText(AlertRule::comparisonText(r.comparison));
    const QJsonValue t = json.value(QLatin1String("threshold"));
    m_threshold->setText(t.isString() ? t.toString() : QString::number(t.toDouble(), 'g', 15));
    m_for->setText(json.value(QLatin1String("for")).toString());
    m_severity->setCurrentText(AlertRule::severityId(r.severity));
    m_problem->clear();
    m_edited = false;
}

bool AlertRulesDialog::apply()
{
    QJsonObject o{{QStringLiteral("figure"), m_figure->currentData().toString()},
                  {QStringLiteral("op"), m_op->currentText()},
                  {QStringLiteral("threshold"), m_threshold->text()},
                  {QStringLiteral("severity"), m_severity->currentText()}};
    if (!m_name->text().trimmed().isEmpty())
        o.insert(QStringLiteral("name"), m_name->text().trimmed());
    if (const QString t = m_target->currentData().toString(); !t.isEmpty())
        o.insert(QStringLiteral("target"), t);
    if (!m_match->text().trimmed().isEmpty())
        o.insert(QStringLiteral("match"), m_match->text().trimmed());
    if (!m_for->text().trimmed().isEmpty())
        o.insert(QStringLiteral("for"), m_for->text().trimmed());
    QString error;
    const std::optional<AlertRule> rule = AlertRule::fromJson(o, tr("The rule"), &error);
    const int row = m_list->currentRow();
    if (rule) {
        for (int i = 0; i < m_rules.size(); ++i) {
            if (i != row && m_rules.at(i).name == rule->name) {
                error = tr("Another rule is named \"%1\"; give this one another name.")
                            .arg(rule->name);
                break;
            }
        }
    }
    if (!rule || !error.isEmpty()) {
        m_problem->setText(error);
        return false;
    }
    m_problem->clear();
    m_edited = false;
    if (row >= 0 && row < m_rules.size()) {
        m_rules[row] = *rule;
    } else {
        m_rules.append(*rule);
        m_list->addItem(QString());
        m_list->setCurrentRow(int(m_rules.size()) - 1);
    }
    refreshList();
    return true;
}

QString AlertRulesDialog::problem() const
{
    return m_problem->text();
}

} // namespace gatehouse
