// SPDX-License-Identifier: MIT
#include "tokendialog.h"

#include <patterns/token-family/tokenfamilyunit.h>

#include <QClipboard>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QGuiApplication>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

namespace gatehouse {

TokenDialog::TokenDialog(const QStringList &families, QWidget *parent)
    : QDialog(parent)
    , m_family(new QComboBox(this))
    , m_ttl(new QSpinBox(this))
    , m_payload(new QPlainTextEdit(this))
    , m_error(new QLabel(this))
{
    setWindowTitle(tr("Issue a token"));
    m_family->setEditable(true);
    m_family->addItems(families);
    m_family->setToolTip(tr("The family prefix; the token is appended to it"));
    m_ttl->setRange(1, 30 * 24 * 3600);
    m_ttl->setValue(600);
    m_ttl->setSuffix(tr(" s"));
    m_payload->setPlaceholderText(tr("JSON payload, e.g. {\"user\": 42}; empty for none"));
    m_error->setWordWrap(true);
    m_error->setStyleSheet(QStringLiteral("color: red"));
    auto *form = new QFormLayout;
    form->addRow(tr("&Family:"), m_family);
    form->addRow(tr("&TTL:"), m_ttl);
    form->addRow(tr("&Payload:"), m_payload);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Issue"));
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_error);
    layout->addWidget(buttons);
    connect(m_payload, &QPlainTextEdit::textChanged, this, &TokenDialog::validate);
    connect(m_family, &QComboBox::currentTextChanged, this, &TokenDialog::validate);
    validate();
}

void TokenDialog::setPayload(const QString &text)
{
    m_payload->setPlainText(text);
}

void TokenDialog::validate()
{
    QString problem;
    const QByteArray text = m_payload->toPlainText().trimmed().toUtf8();
    if (m_family->currentText().isEmpty())
        problem = tr("Choose or type a family prefix.");
    else
        problem = TokenFamilyUnit::familyProblem(m_family->currentText().toUtf8());
    if (problem.isEmpty() && !text.isEmpty())
        problem = TokenFamilyUnit::payloadProblem(text);
    m_valid = problem.isEmpty();
    m_error->setText(problem);
    m_error->setVisible(!m_valid);
    if (auto *box = findChild<QDialogButtonBox *>())
        box->button(QDialogButtonBox::Ok)->setEnabled(m_valid);
}

QByteArray TokenDialog::family() const
{
    return m_family->currentText().toUtf8();
}

qint64 TokenDialog::ttlSeconds() const
{
    return m_ttl->value();
}

QByteArray TokenDialog::payload() const
{
    return m_payload->toPlainText().trimmed().toUtf8();
}

TokenShownDialog::TokenShownDialog(const QByteArray &key, const QByteArray &token, QWidget *parent)
    : QDialog(parent)
{
    setWindowTitle(tr("Token issued"));
    auto *layout = new QVBoxLayout(this);
    auto *note = new QLabel(tr("Token issued as <b>%1</b>. It is shown only now: copy it.")
                                .arg(QString::fromUtf8(key).toHtmlEscaped()),
                            this);
    note->setWordWrap(true);
    auto *field = new QLineEdit(QString::fromUtf8(token), this);
    field->setReadOnly(true);
    field->setObjectName(QStringLiteral("token"));
    auto *copy = new QPushButton(tr("&Copy"), this);
    connect(copy, &QPushButton::clicked, this,
            [token] { QGuiApplication::clipboard()->setText(QString::fromUtf8(token)); });
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
