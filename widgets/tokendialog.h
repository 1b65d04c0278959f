// SPDX-License-Identifier: MIT
#pragma once

#include <QDialog>

class QComboBox;
class QLabel;
class QPlainTextEdit;
class QSpinBox;

namespace gatehouse {

// Issue a one-time token: family, TTL and a JSON payload that is validated
// before anything is sent (the OK button stays disabled until it parses).
class TokenDialog : public QDialog
{
    Q_OBJECT
public:
    TokenDialog(const QStringList &families, QWidget *parent = nullptr);

    QByteArray family() const;
    qint64 ttlSeconds() const;
    QByteArray payload() const;
    bool isPayloadValid() const { return m_valid; }
    void setPayload(const QString &text);

private:
    void validate();

    QComboBox *m_family;
    QSpinBox *m_ttl;
    QPlainTextEdit *m_payload;
    QLabel *m_error;
    bool m_valid = true;
};

// Shows a freshly issued token once, with a copy button.
class TokenShownDialog : public QDialog
{
    Q_OBJECT
public:
    TokenShownDialog(const QByteArray &key, const QByteArray &token, QWidget *parent = nullptr);
};

} // namespace gatehouse
