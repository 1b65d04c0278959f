// SPDX-License-Identifier: MIT
#include "confirmactiondialog.h"

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
    wrapLabels();
}

ConfirmActionDialog::ConfirmActionDialog(const QString &title, const QString &text, QWidget *parent)
    : QMessageBox(QMessageBox::Question, title, text, QMessageBox::Ok | QMessageBox::Cancel, parent)
{
    setObjectName(QStringLiteral("confirmAction"));
    setTextFormat(Qt::PlainText);
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
}

void ConfirmActionDialog::changeEvent(QEvent *event)
{
    QMessageBox::changeEvent(event);
    if (event->type() == QEvent::StyleChange || event->type() == QEvent::FontChange) {
        wrapLabels();
        // QMessageBox sized itself before the texts were back: again, with them.
        QCoreApplication::postEvent(this, new QEvent(QEvent::LayoutRequest));
    }
}

bool ConfirmActionDialog::confirm(const ScriptCall &call, QWidget *parent, const QString &matchNow)
{
    ConfirmActionDialog box(call, parent, matchNow);
    return box.exec() == QMessageBox::Ok;
}

bool ConfirmActionDialog::confirmMany(const QList<ScriptCall> &calls, const QString &what,
                                      QWidget *parent, const QString &matchNow)
{
    if (calls.isEmpty())
        return false;
    ConfirmActionDialog box(tr("Confirm: %1").arg(titleOf(calls.first())), what, parent);
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
    box.wrapLabels();
    return box.exec() == QMessageBox::Ok;
}

bool ConfirmActionDialog::confirmForce(const ScriptCall &call, const QString &refusal,
                                       QWidget *parent)
{
    QMessageBox force(QMessageBox::Warning, tr("Refused: %1").arg(titleOf(call)), refusal,
                      QMessageBox::Cancel, parent);
    force.setObjectName(QStringLiteral("forceAction"));
    force.setInformativeText(tr("Force it? The checks are skipped and the attempt is written to "
                                "the audit log as forced."));
    force.setDetailedText(ActionEngine::describe(call.forced()));
    QPushButton *run = force.addButton(tr("Force"), QMessageBox::DestructiveRole);
    force.setDefaultButton(QMessageBox::Cancel);
    force.exec();
    return force.clickedButton() == run;
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
