// SPDX-License-Identifier: MIT
#pragma once

#include "environment.h"

#include <redis/redisendpoint.h>

#include <QDialog>
#include <QPointer>

class QCheckBox;
class QComboBox;
class QDialogButtonBox;
class QFormLayout;
class QGroupBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;
class QSpinBox;

namespace gatehouse {

// A saved connection. Everything but the password lives in QSettings; the
// password is kept by the desktop's keychain (QtKeychain), never on disk here.
struct ConnectionSettings
{
    QString name;
    QString url = QStringLiteral("redis://127.0.0.1:6379");
    QString user;
    QString caFile;
    QString certFile;
    QString keyFile;
    QString sniName;
    bool insecure = false;
    QString profile; // a Gatehouse profile: built-in name or file; empty = autodetect
    bool readOnly = false;
    int intervalMs = 1000;
    // --read-from replicas: the monitor reads a Sentinel master's or each
    // Cluster master's replica; actions still go to the master.
    bool readFromReplicas = false;
    // "production", "staging", ...: shown in the window's title, status bar
    // and confirmations; production asks for the word before an action.
    Environment environment;

    // The endpoint, or nothing with a sentence in *error.
    std::optional<RedisEndpoint> endpoint(const QString &password, QString *error) const;
};

// Saved and recent connections (QSettings) and their passwords (keychain).
class ConnectionStore
{
public:
    static QList<ConnectionSettings> saved();
    static void save(const ConnectionSettings &connection);
    static void remove(const QString &name);
    static QStringList recentUrls();
    static void addRecent(const QString &url);

    // Asynchronous: the handler gets an error sentence, empty on success.
    static void storePassword(const QString &name, const QString &password, QObject *context,
                              std::function<void(const QString &error)> handler);
    static void
    loadPassword(const QString &name, QObject *context,
                 std::function<void(const QString &password, const QString &error)> handler);
};

// Connect to a server: saved connections and recent URLs on the left, the
// connection's details on the right, validated as they are typed (Connect is
// enabled only for a valid URL and readable TLS files).
class ConnectionDialog : public QDialog
{
    Q_OBJECT
public:
    explicit ConnectionDialog(QWidget *parent = nullptr);

    ConnectionSettings settings() const;
    void setSettings(const ConnectionSettings &settings);
    QString password() const;
    // The endpoint for the settings shown (with the password); nothing if invalid.
    std::optional<RedisEndpoint> endpoint(QString *error = nullptr) const;
    QString validationMessage() const;
    bool canConnect() const;
    // The Test button's last report (a sentence), empty before one.
    QString testResult() const;

Q_SIGNALS:
    // A Test finished (its report is testResult()).
    void tested(bool ok);

private:
    void reloadList();
    void validate();
    void updateReadFrom();
    // A new label takes its preset's colour, unless a colour was chosen for
    // the one before.
    void environmentLabelChanged(const QString &text);
    void saveCurrent();
    void test();
    void showTestResult(bool ok, const QString &text);
    QLineEdit *fileField(const QString &placeholder);
    // The constructor's parts, in the order it runs them.
    void setUpFields(); // placeholders, choices and ranges
    QFormLayout *buildForm();
    QWidget *buildUrlRow();
    QGroupBox *buildTlsGroup();
    QWidget *buildEnvironmentRow();
    QDialogButtonBox *buildButtons();
    void buildLayout(QFormLayout *form, QDialogButtonBox *buttons);
    void connectFields();

    QListWidget *m_list;
    QLineEdit *m_name;
    QLineEdit *m_url;
    QComboBox *m_readFrom;
    QLineEdit *m_user;
    QLineEdit *m_password;
    QCheckBox *m_savePassword;
    QLineEdit *m_ca;
    QLineEdit *m_cert;
    QLineEdit *m_key;
    QLineEdit *m_sni;
    QCheckBox *m_insecure;
    QComboBox *m_profile;
    QCheckBox *m_readOnly;
    QComboBox *m_environment;
    QComboBox *m_environmentColour;
    QString m_environmentLabel; // the label the colour was last matched to
    QSpinBox *m_interval;
    QLabel *m_message;
    QLabel *m_testResult;
    QPushButton *m_test = nullptr;
    QPointer<QObject> m_testContext; // the running test's; null when none runs
    QPushButton *m_connect;
    QPushButton *m_save;
    QPushButton *m_delete;
};

} // namespace gatehouse
