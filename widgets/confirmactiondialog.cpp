// SPDX-License-Identifier: MIT
#include "confirmactiondialog.h"

#include "environmentbadge.h"
#include "theme.h"
#include "wrappingtext.h"

#include <actions/actionengine.h>

#include <QClipboard>
#include <QCoreApplication>
#include <QDialogButtonBox>
#include <QFontDatabase>
#include <QGridLayout>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTimer>
#include <QVBoxLayout>

namespace gatehouse {

namespace {

QString titleOf(const ScriptCall &call)
{
    return call.title.isEmpty() ? call.action : call.title;
}

// How many match now, in bold above what will run.
QString matching(const QString &matchNow)
{
    return matchNow.isEmpty() ? QString()
                              : QStringLiteral("<p><b>%1</b></p>").arg(matchNow.toHtmlEscaped());
}

// What will run, inline and in a fixed-width font: no "Show Details…" to
// find it behind.
QString exactly(const QStringList &descriptions)
{
    QString html = QStringLiteral("<p>%1</p>")
                       .arg(ConfirmActionDialog::tr("This will run exactly:").toHtmlEscaped());
    for (const QString &d : descriptions)
        // pre-wrap keeps the indentation; WrappingText wraps a key longer
        // than a line anywhere in it.
        html += QStringLiteral("<p style=\"white-space: pre-wrap; font-family: monospace\">"
                               "%1</p>")
                    .arg(d.toHtmlEscaped());
    return html;
}

} // namespace

ConfirmActionDialog::ConfirmActionDialog(const ScriptCall &call, QWidget *parent,
                                         const QString &matchNow)
    : QMessageBox(QMessageBox::Question, tr("Confirm: %1").arg(titleOf(call)), call.summary,
                  QMessageBox::Ok | QMessageBox::Cancel, parent)
{
    setObjectName(QStringLiteral("confirmAction"));
    setTextFormat(Qt::PlainText);
    // Described without its summary line (it is the text above).
    setInformativeText(matching(matchNow)
                       + exactly({ActionEngine::describe(call).section(QLatin1Char('\n'), 1)}));
    button(QMessageBox::Ok)->setText(tr("Run"));
    setDefaultButton(QMessageBox::Cancel);
    setUpEnvironment(button(QMessageBox::Ok));
    wrapLabels();
}

ConfirmActionDialog::ConfirmActionDialog(QMessageBox::Icon icon, const QString &title,
                                         const QString &text, QMessageBox::StandardButtons buttons,
                                         QWidget *parent)
    : QMessageBox(icon, title, text, buttons, parent)
{
    setObjectName(QStringLiteral("confirmAction"));
    setTextFormat(Qt::PlainText);
}

void ConfirmActionDialog::setUpEnvironment(QAbstractButton *run)
{
    m_run = run;
    m_environment = environmentOf(parentWidget());
    if (!m_environment.isSet())
        return;
    setWindowTitle(m_environment.titled(windowTitle()));
    const QString connection = connectionOf(parentWidget());
    auto *line = new EnvironmentBadge(
        m_environment,
        connection.isEmpty() ? m_environment.shown()
                             : QStringLiteral("%1 — %2").arg(m_environment.shown(), connection),
        this);
    line->setObjectName(QStringLiteral("confirmEnvironmentLine"));
    line->setWordWrap(true);
    line->setToolTip(tr("The environment this connection is marked as (File > Connect…)."));
    m_environmentLine = line;
    if (!m_environment.isProduction())
        return;
    m_typing = new QWidget(this);
    m_typing->setObjectName(QStringLiteral("confirmEnvironmentTyping"));
    auto *typing = new QVBoxLayout(m_typing);
    typing->setContentsMargins(0, 0, 0, 0);
    auto *prompt = new QLabel(m_typing);
    prompt->setObjectName(QStringLiteral("confirmEnvironmentPrompt"));
    prompt->setTextFormat(Qt::RichText);
    prompt->setWordWrap(true);
    prompt->setText(tr("Type <b>%1</b> to run this on a production connection.")
                        .arg(m_environment.label.trimmed().toHtmlEscaped()));
    m_typed = new QLineEdit(m_typing);
    m_typed->setObjectName(QStringLiteral("confirmEnvironment"));
    prompt->setBuddy(m_typed);
    typing->addWidget(prompt);
    typing->addWidget(m_typed);
    connect(m_typed, &QLineEdit::textChanged, this, &ConfirmActionDialog::updateRun);
    m_typed->setFocus(); // typed first: Cancel stays the default button
    updateRun();
}

void ConfirmActionDialog::updateRun()
{
    if (m_run)
        m_run->setEnabled(environmentConfirmed());
}

bool ConfirmActionDialog::environmentConfirmed() const
{
    return !m_environment.isProduction() || (m_typed && m_environment.typedBack(m_typed->text()));
}

void ConfirmActionDialog::keyPressEvent(QKeyEvent *event)
{
    if (m_typed && m_typed->hasFocus()
        && (event->key() == Qt::Key_Return || event->key() == Qt::Key_Enter)) {
        event->accept();
        return;
    }
    QMessageBox::keyPressEvent(event);
}

// QMessageBox's grid a row lower: the environment's line across the top,
// and the typing field in a row of its own above the buttons, under the texts.
void ConfirmActionDialog::placeEnvironment()
{
    auto *grid = qobject_cast<QGridLayout *>(layout());
    if (!grid || !m_environmentLine || grid->indexOf(m_environmentLine) >= 0)
        return; // none, or placed in this grid already
    auto *buttons = findChild<QDialogButtonBox *>(QString(), Qt::FindDirectChildrenOnly);
    const int buttonIndex = buttons ? grid->indexOf(buttons) : -1;
    int buttonRow = grid->rowCount();
    int textColumn = grid->columnCount() - 1;
    int row = 0;
    int column = 0;
    int rows = 0;
    int columns = 0;
    if (buttonIndex >= 0) {
        grid->getItemPosition(buttonIndex, &row, &column, &rows, &columns);
        buttonRow = row;
    }
    struct Placed
    {
        QLayoutItem *item;
        int row, column, rows, columns;
    };
    QList<Placed> items;
    while (grid->count() > 0) {
        grid->getItemPosition(0, &row, &column, &rows, &columns);
        QLayoutItem *item = grid->takeAt(0);
        const QString name = item->widget() ? item->widget()->objectName() : QString();
        if (name == QLatin1String("qt_msgbox_label") || name == QLatin1String("confirmSummary"))
            textColumn = column;
        items.append({item, row, column, rows, columns});
    }
    const int columnCount = std::max(1, grid->columnCount());
    grid->addWidget(m_environmentLine, 0, 0, 1, columnCount);
    for (const Placed &p : std::as_const(items))
        grid->addItem(p.item, p.row + (p.row >= buttonRow ? 2 : 1), p.column, p.rows, p.columns,
                      p.item->alignment());
    if (m_typing)
        grid->addWidget(m_typing, buttonRow + 1, textColumn, 1, columnCount - textColumn);
    m_environmentLine->show();
    if (m_typing)
        m_typing->show();
}

// QMessageBox's labels wrap only at spaces and cut a long key at the dialog's
// edge: their text goes into WrappingTexts in the same places. The labels stay
// (hidden) so text() and informativeText() still answer. Called last, and again
// after a style change: QMessageBox's setters may lay the box out again.
void ConfirmActionDialog::wrapLabels()
{
    auto *grid = qobject_cast<QGridLayout *>(layout());
    if (!grid)
        return; // laid out otherwise: its own labels stay
    const auto replace = [&](const QString &labelName, const QString &name, bool html) {
        auto *label = findChild<QLabel *>(labelName, Qt::FindDirectChildrenOnly);
        const int index = label ? grid->indexOf(label) : -1;
        if (index < 0)
            return; // not laid out, or already replaced
        int row = 0;
        int column = 0;
        int rows = 0;
        int columns = 0;
        grid->getItemPosition(index, &row, &column, &rows, &columns);
        auto *text = findChild<WrappingText *>(name, Qt::FindDirectChildrenOnly);
        if (!text) {
            text = new WrappingText(this);
            text->setObjectName(name);
        }
        text->setFont(label->font());
        text->setContentsMargins(label->contentsMargins());
        if (html)
            text->setHtml(label->text());
        else
            text->setPlainText(label->text());
        grid->removeWidget(label);
        label->hide();
        grid->removeWidget(text);
        grid->addWidget(text, row, column, rows, columns);
    };
    replace(QStringLiteral("qt_msgbox_label"), QStringLiteral("confirmSummary"),
            textFormat() == Qt::RichText);
    replace(QStringLiteral("qt_msgbox_informativelabel"), QStringLiteral("confirmText"), true);
    m_wrapped = true;
    placeEnvironment();
}

void ConfirmActionDialog::changeEvent(QEvent *event)
{
    QMessageBox::changeEvent(event);
    if (event->type() == QEvent::StyleChange || event->type() == QEvent::FontChange) {
        if (m_wrapped)
            wrapLabels();
        placeEnvironment();
        // QMessageBox sized itself before the texts were back: again, with them.
        QCoreApplication::postEvent(this, new QEvent(QEvent::LayoutRequest));
    }
}

bool ConfirmActionDialog::confirm(const ScriptCall &call, QWidget *parent, const QString &matchNow)
{
    ConfirmActionDialog box(call, parent, matchNow);
    return box.exec() == QMessageBox::Ok && box.environmentConfirmed();
}

bool ConfirmActionDialog::confirmMany(const QList<ScriptCall> &calls, const QString &what,
                                      QWidget *parent, const QString &matchNow)
{
    if (calls.isEmpty())
        return false;
    ConfirmActionDialog box(QMessageBox::Question, tr("Confirm: %1").arg(titleOf(calls.first())),
                            what, QMessageBox::Ok | QMessageBox::Cancel, parent);
    // Each script inline for the first few; all of them under the details.
    QStringList scripts;
    for (const ScriptCall &call : calls)
        scripts << ActionEngine::describe(call);
    box.setInformativeText(
        matching(matchNow)
        + QStringLiteral("<p>%1</p>")
              .arg(tr("Each one is its own atomic script, run one after another; one that has "
                      "changed since the list was read is left as it is and reported.")
                       .toHtmlEscaped())
        + exactly(scripts.mid(0, 2))
        + (scripts.size() > 2
               ? QStringLiteral("<p>%1</p>")
                     .arg(tr("… and %n more, under Show Details.", nullptr, int(scripts.size() - 2))
                              .toHtmlEscaped())
               : QString()));
    if (scripts.size() > 2)
        box.setDetailedText(scripts.join(QStringLiteral("\n\n")));
    box.button(QMessageBox::Ok)->setText(tr("Run %n", nullptr, int(calls.size())));
    box.setDefaultButton(QMessageBox::Cancel);
    box.setUpEnvironment(box.button(QMessageBox::Ok));
    box.wrapLabels();
    return box.exec() == QMessageBox::Ok && box.environmentConfirmed();
}

bool ConfirmActionDialog::confirmForce(const ScriptCall &call, const QString &refusal,
                                       QWidget *parent)
{
    ConfirmActionDialog force(QMessageBox::Warning, tr("Refused: %1").arg(titleOf(call)), refusal,
                              QMessageBox::Cancel, parent);
    force.setObjectName(QStringLiteral("forceAction"));
    force.setInformativeText(tr("Force it? The checks are skipped and the attempt is written to "
                                "the audit log as forced."));
    force.setDetailedText(ActionEngine::describe(call.forced()));
    QPushButton *run = force.addButton(tr("Force"), QMessageBox::DestructiveRole);
    force.setDefaultButton(QMessageBox::Cancel);
    force.setUpEnvironment(run);
    force.placeEnvironment();
    force.exec();
    return force.clickedButton() == run && force.environmentConfirmed();
}

IssuedDialog::IssuedDialog(const QByteArray &key, const QByteArray &secret, QWidget *parent)
    : QDialog(parent)
{
    setObjectName(QStringLiteral("issuedShown"));
    setWindowTitle(tr("Issued"));
    auto *layout = new QVBoxLayout(this);
    auto *note = new QLabel(tr("Issued as <b>%1</b>.<br>The secret is shown only now: copy it.")
                                .arg(QString::fromUtf8(key).toHtmlEscaped()),
                            this);
    note->setWordWrap(true);
    auto *field = new QLineEdit(QString::fromUtf8(secret), this);
    field->setReadOnly(true);
    field->setObjectName(QStringLiteral("secret"));
    // Wide enough for the whole secret in a fixed-width font: read and
    // checked at a glance, never scrolled or wrapped.
    field->setFont(theme::fixedPitchFont());
    field->setMinimumWidth(QFontMetrics(field->font()).horizontalAdvance(field->text()) + 24);
    field->setCursorPosition(0);
    auto *copy = new QPushButton(tr("&Copy"), this);
    copy->setObjectName(QStringLiteral("copySecret"));
    connect(copy, &QPushButton::clicked, this, [secret, copy] {
        QGuiApplication::clipboard()->setText(QString::fromUtf8(secret));
        // Feedback where the operator looks; back to "Copy" after 2 s.
        copy->setText(tr("Copied"));
        QTimer::singleShot(2000, copy, [copy] { copy->setText(tr("&Copy")); });
    });
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::accept);
    layout->addWidget(note);
    auto *row = new QHBoxLayout;
    row->addWidget(field, 1);
    row->addWidget(copy);
    layout->addLayout(row);
    layout->addWidget(buttons);
}

} // namespace gatehouse
