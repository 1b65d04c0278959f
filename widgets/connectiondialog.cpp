// SPDX-License-Identifier: MIT
#include "connectiondialog.h"

#include "theme.h"

#include <monitor/profile.h>
#include <redis/connectionprobe.h>
#include <redis/userinput.h>

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPixmap>
#include <QPointer>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QSplitter>
#include <QToolButton>
#include <QVBoxLayout>

#include <tuple>

#include <qt6keychain/keychain.h>

namespace gatehouse {

namespace {
const QString s_service = QStringLiteral("gatehouse");
const QString s_group = QStringLiteral("connections");
} // namespace

std::optional<RedisEndpoint> ConnectionSettings::endpoint(const QString &password,
                                                          QString *error) const
{
    auto ep = RedisEndpoint::fromUrl(url.trimmed(), error);
    if (!ep)
        return std::nullopt;
    if (ep->isSentinel() && ep->sentinelMaster.trimmed().isEmpty()) {
        *error = QObject::tr("The Sentinel URL names no master: add #NAME to it "
                             "(redis-sentinel://host:26379#mymaster).");
        return std::nullopt;
    }
    if (!user.isEmpty())
        ep->user = user;
    if (!password.isEmpty())
        ep->password = password;
    if ((certFile.isEmpty()) != (keyFile.isEmpty())) {
        *error = QObject::tr("A client certificate needs its key, and a key its certificate.");
        return std::nullopt;
    }
    // The same checks as gatehouse-cli's --cacert, --cert and --key: regular
    // files, bounded reads, PEM content.
    for (const auto &[file, what, content] :
         {std::tuple{caFile, QObject::tr("The CA certificate file"), PemContent::Certificates},
          std::tuple{certFile, QObject::tr("The client certificate file"),
                     PemContent::Certificates},
          std::tuple{keyFile, QObject::tr("The client key file"), PemContent::PrivateKey}}) {
        if (!file.isEmpty() && !readPemFile(file, content, what, error))
            return std::nullopt;
    }
    if (!caFile.isEmpty() || !certFile.isEmpty() || insecure) {
        if (ep->transport == RedisEndpoint::Transport::Unix) {
            *error = QObject::tr("TLS settings do not apply to a unix socket.");
            return std::nullopt;
        }
        ep->transport = RedisEndpoint::Transport::Tls;
    }
    ep->caFile = caFile;
    ep->certFile = certFile;
    ep->keyFile = keyFile;
    if (!sniName.isEmpty())
        ep->sniName = sniName;
    ep->verifyPeer = !insecure;
    ep->readFromReplicas = readFromReplicas;
    // As gatehouse's --url: a Cluster is followed from any one node's
    // address (without it the console would show one node's keys only, and
    // reading from replicas would have no Cluster to apply to).
    ep->discoverTopology = true;
    return ep;
}

QList<ConnectionSettings> ConnectionStore::saved()
{
    QSettings settings;
    QList<ConnectionSettings> out;
    settings.beginGroup(s_group);
    for (const QString &name : settings.childGroups()) {
        settings.beginGroup(name);
        ConnectionSettings c;
        c.name = settings.value(QStringLiteral("name"), name).toString();
        c.url = settings.value(QStringLiteral("url")).toString();
        c.user = settings.value(QStringLiteral("user")).toString();
        c.caFile = settings.value(QStringLiteral("caFile")).toString();
        c.certFile = settings.value(QStringLiteral("certFile")).toString();
        c.keyFile = settings.value(QStringLiteral("keyFile")).toString();
        c.sniName = settings.value(QStringLiteral("sni")).toString();
        c.insecure = settings.value(QStringLiteral("insecure")).toBool();
        c.profile = settings.value(QStringLiteral("profile")).toString();
        c.readOnly = settings.value(QStringLiteral("readOnly")).toBool();
        c.intervalMs = settings.value(QStringLiteral("intervalMs"), 1000).toInt();
        c.readFromReplicas
            = settings.value(QStringLiteral("readFrom")).toString() == QLatin1String("replicas");
        c.environment.label = settings.value(QStringLiteral("environment")).toString();
        c.environment.colour = Environment::colourFromName(
                                   settings.value(QStringLiteral("environmentColour")).toString())
                                   .value_or(Environment::defaultColour(c.environment.label));
        out.append(c);
        settings.endGroup();
    }
    return out;
}

void ConnectionStore::save(const ConnectionSettings &c)
{
    QSettings settings;
    settings.beginGroup(s_group);
    settings.beginGroup(QString::fromLatin1(c.name.toUtf8().toHex()));
    settings.setValue(QStringLiteral("name"), c.name);
    settings.setValue(QStringLiteral("url"), c.url);
    settings.setValue(QStringLiteral("user"), c.user);
    settings.setValue(QStringLiteral("caFile"), c.caFile);
    settings.setValue(QStringLiteral("certFile"), c.certFile);
    settings.setValue(QStringLiteral("keyFile"), c.keyFile);
    settings.setValue(QStringLiteral("sni"), c.sniName);
    settings.setValue(QStringLiteral("insecure"), c.insecure);
    settings.setValue(QStringLiteral("profile"), c.profile);
    settings.setValue(QStringLiteral("readOnly"), c.readOnly);
    settings.setValue(QStringLiteral("intervalMs"), c.intervalMs);
    // As the flag spells it: --read-from master|replicas.
    settings.setValue(QStringLiteral("readFrom"),
                      c.readFromReplicas ? QStringLiteral("replicas") : QStringLiteral("master"));
    settings.setValue(QStringLiteral("environment"), c.environment.label);
    // As --environment-colour spells it.
    settings.setValue(QStringLiteral("environmentColour"),
                      Environment::colourName(c.environment.colour));
}

void ConnectionStore::remove(const QString &name)
{
    QSettings settings;
    settings.beginGroup(s_group);
    settings.remove(QString::fromLatin1(name.toUtf8().toHex()));
    auto *job = new QKeychain::DeletePasswordJob(s_service);
    job->setKey(name);
    job->start(); // deletes itself when done
}

QStringList ConnectionStore::recentUrls()
{
    return QSettings().value(QStringLiteral("recent/urls")).toStringList();
}

void ConnectionStore::addRecent(const QString &url)
{
    QStringList urls = recentUrls();
    urls.removeAll(url);
    urls.prepend(url);
    QSettings().setValue(QStringLiteral("recent/urls"), urls.mid(0, 8));
}

void ConnectionStore::storePassword(const QString &name, const QString &password, QObject *context,
                                    std::function<void(const QString &)> handler)
{
    auto *job = new QKeychain::WritePasswordJob(s_service);
    job->setKey(name);
    job->setTextData(password);
    QObject::connect(job, &QKeychain::Job::finished, context, [job, handler] {
        handler(job->error() == QKeychain::NoError
                    ? QString()
                    : QObject::tr("The password was not saved: the keychain said \"%1\".")
                          .arg(job->errorString()));
    });
    job->start();
}

void ConnectionStore::loadPassword(const QString &name, QObject *context,
                                   std::function<void(const QString &, const QString &)> handler)
{
    auto *job = new QKeychain::ReadPasswordJob(s_service);
    job->setKey(name);
    QObject::connect(job, &QKeychain::Job::finished, context, [job, handler] {
        if (job->error() == QKeychain::NoError)
            handler(job->textData(), QString());
        else if (job->error() == QKeychain::EntryNotFound)
            handler(QString(), QString());
        else
            handler(QString(), QObject::tr("The keychain could not give the password (%1); type "
                                           "it.")
                                   .arg(job->errorString()));
    });
    job->start();
}

ConnectionDialog::ConnectionDialog(QWidget *parent)
    : QDialog(parent)
    , m_list(new QListWidget(this))
    , m_name(new QLineEdit(this))
    , m_url(new QLineEdit(this))
    , m_readFrom(new QComboBox(this))
    , m_user(new QLineEdit(this))
    , m_password(new QLineEdit(this))
    , m_savePassword(new QCheckBox(tr("Remember in the keychain"), this))
    , m_ca(fileField(tr("CA certificate (PEM)")))
    , m_cert(fileField(tr("client certificate (PEM)")))
    , m_key(fileField(tr("client key (PEM)")))
    , m_sni(new QLineEdit(this))
    , m_insecure(new QCheckBox(tr("Do not verify the server (insecure)"), this))
    , m_profile(new QComboBox(this))
    , m_readOnly(new QCheckBox(tr("Read-only: no actions"), this))
    , m_environment(new QComboBox(this))
    , m_environmentColour(new QComboBox(this))
    , m_interval(new QSpinBox(this))
    , m_message(new QLabel(this))
    , m_testResult(new QLabel(this))
{
    setWindowTitle(tr("Connect to Redis"));
    setUpFields();
    QFormLayout *form = buildForm();
    QDialogButtonBox *buttons = buildButtons();
    buildLayout(form, buttons);
    connectFields();
    reloadList();
    setSettings(ConnectionSettings());
    resize(820, 520);
}

void ConnectionDialog::setUpFields()
{
    m_url->setPlaceholderText(tr("redis://host:6379/0, rediss://…, unix:///path/to/redis.sock, "
                                 "redis-sentinel://host:26379,host:26380#master"));
    m_password->setEchoMode(QLineEdit::Password);
    m_password->setObjectName(QStringLiteral("password"));
    m_user->setPlaceholderText(tr("ACL user (empty: default)"));
    m_sni->setPlaceholderText(tr("name to verify (default: the host)"));
    m_profile->setEditable(true);
    m_profile->addItem(tr("(autodetect)"), QString());
    for (const QString &name : Profile::builtInNames())
        m_profile->addItem(name, name);
    m_interval->setRange(100, 60000);
    m_interval->setSingleStep(100);
    m_interval->setSuffix(tr(" ms"));
    m_message->setWordWrap(true);
    m_message->setStyleSheet(QStringLiteral("color: red"));
}

QFormLayout *ConnectionDialog::buildForm()
{
    auto *form = new QFormLayout;
    form->addRow(tr("&Name:"), m_name);
    QWidget *urlRow = buildUrlRow();
    form->addRow(tr("&URL:"), urlRow);
    if (auto *label = qobject_cast<QLabel *>(form->labelForField(urlRow)))
        label->setBuddy(m_url);
    form->addRow(tr("U&ser:"), m_user);
    // A field that is a widget, not a layout: QFormLayout makes it the
    // label's buddy, so "&Password:" shows as a mnemonic, not an ampersand.
    auto *pwRow = new QWidget(this);
    auto *pw = new QHBoxLayout(pwRow);
    pw->setContentsMargins(0, 0, 0, 0);
    pw->addWidget(m_password, 1);
    pw->addWidget(m_savePassword);
    form->addRow(tr("&Password:"), pwRow);
    if (auto *label = qobject_cast<QLabel *>(form->labelForField(pwRow)))
        label->setBuddy(m_password); // the field, not its row
    form->addRow(buildTlsGroup());
    form->addRow(tr("Gatehouse &profile:"), m_profile);
    form->addRow(tr("Re&fresh every:"), m_interval);
    form->addRow(QString(), m_readOnly);
    QWidget *environmentRow = buildEnvironmentRow();
    form->addRow(tr("&Environment:"), environmentRow);
    if (auto *label = qobject_cast<QLabel *>(form->labelForField(environmentRow)))
        label->setBuddy(m_environment);
    return form;
}

// The read-from choice beside the URL: whether it can apply depends on
// what the URL reaches.
QWidget *ConnectionDialog::buildUrlRow()
{
    m_readFrom->setObjectName(QStringLiteral("readFrom"));
    m_readFrom->addItem(tr("master"), false);
    m_readFrom->addItem(tr("replicas"), true);
    auto *urlRow = new QWidget(this);
    auto *urlLayout = new QHBoxLayout(urlRow);
    urlLayout->setContentsMargins(0, 0, 0, 0);
    urlLayout->addWidget(m_url, 1);
    auto *readFromLabel = new QLabel(tr("Read fro&m:"), this);
    readFromLabel->setBuddy(m_readFrom);
    urlLayout->addWidget(readFromLabel);
    urlLayout->addWidget(m_readFrom);
    return urlRow;
}

QGroupBox *ConnectionDialog::buildTlsGroup()
{
    auto *tls = new QGroupBox(tr("TLS"), this);
    auto *tlsForm = new QFormLayout(tls);
    auto fileRow = [this, tlsForm](const QString &label, QLineEdit *field) {
        auto *rowWidget = new QWidget(this);
        auto *row = new QHBoxLayout(rowWidget);
        row->setContentsMargins(0, 0, 0, 0);
        row->addWidget(field, 1);
        auto *browse = new QToolButton(this);
        browse->setText(QStringLiteral("…"));
        connect(browse, &QToolButton::clicked, this, [this, field] {
            const QString file = QFileDialog::getOpenFileName(this, tr("Choose a file"));
            if (!file.isEmpty())
                field->setText(file);
        });
        row->addWidget(browse);
        tlsForm->addRow(label, rowWidget);
    };
    fileRow(tr("CA:"), m_ca);
    fileRow(tr("Certificate:"), m_cert);
    fileRow(tr("Key:"), m_key);
    tlsForm->addRow(tr("SNI:"), m_sni);
    tlsForm->addRow(QString(), m_insecure);
    return tls;
}

QDialogButtonBox *ConnectionDialog::buildButtons()
{
    auto *buttons = new QDialogButtonBox(this);
    m_connect = buttons->addButton(tr("&Connect"), QDialogButtonBox::AcceptRole);
    m_save = buttons->addButton(tr("&Save"), QDialogButtonBox::ActionRole);
    m_delete = buttons->addButton(tr("&Delete"), QDialogButtonBox::DestructiveRole);
    m_test = buttons->addButton(tr("&Test"), QDialogButtonBox::ActionRole);
    m_test->setObjectName(QStringLiteral("testButton"));
    m_test->setToolTip(tr("Connect once and report the server's version, role and ACL user"));
    connect(m_test, &QPushButton::clicked, this, &ConnectionDialog::test);
    buttons->addButton(QDialogButtonBox::Cancel);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_connect, &QPushButton::clicked, this, [this] {
        ConnectionStore::addRecent(m_url->text().trimmed());
        if (!m_name->text().trimmed().isEmpty())
            saveCurrent();
        accept();
    });
    connect(m_save, &QPushButton::clicked, this, &ConnectionDialog::saveCurrent);
    connect(m_delete, &QPushButton::clicked, this, [this] {
        ConnectionStore::remove(m_name->text().trimmed());
        reloadList();
    });
    return buttons;
}

// The list on the left; on the right the form, the messages and the buttons.
void ConnectionDialog::buildLayout(QFormLayout *form, QDialogButtonBox *buttons)
{
    auto *right = new QWidget(this);
    auto *rightLayout = new QVBoxLayout(right);
    rightLayout->addLayout(form);
    rightLayout->addWidget(m_message);
    m_testResult->setObjectName(QStringLiteral("testResult"));
    m_testResult->setWordWrap(true);
    m_testResult->setTextInteractionFlags(Qt::TextSelectableByMouse);
    rightLayout->addWidget(m_testResult);
    rightLayout->addStretch(1);
    rightLayout->addWidget(buttons);
    auto *splitter = new QSplitter(this);
    m_list->setObjectName(QStringLiteral("connectionList"));
    splitter->addWidget(m_list);
    splitter->addWidget(right);
    splitter->setStretchFactor(1, 1);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(splitter);
}

// A connection chosen in the list fills the fields (its password from the
// keychain); every edit is validated.
void ConnectionDialog::connectFields()
{
    connect(m_list, &QListWidget::currentItemChanged, this, [this](QListWidgetItem *item) {
        if (!item || !(item->flags() & Qt::ItemIsSelectable)) // a heading
            return;
        const QString name = item->data(Qt::UserRole).toString();
        if (name.isEmpty()) { // a recent URL
            ConnectionSettings c;
            c.url = item->data(Qt::UserRole + 1).toString();
            setSettings(c);
            return;
        }
        for (const ConnectionSettings &c : ConnectionStore::saved()) {
            if (c.name == name)
                setSettings(c);
        }
        QPointer<QLineEdit> password = m_password;
        ConnectionStore::loadPassword(name, this,
                                      [this, password](const QString &pw, const QString &error) {
                                          if (password && !pw.isEmpty())
                                              password->setText(pw);
                                          if (!error.isEmpty())
                                              m_message->setText(error);
                                      });
    });
    for (QLineEdit *e : {m_name, m_url, m_user, m_ca, m_cert, m_key, m_sni})
        connect(e, &QLineEdit::textChanged, this, &ConnectionDialog::validate);
    connect(m_insecure, &QCheckBox::toggled, this, &ConnectionDialog::validate);
    connect(m_readFrom, &QComboBox::currentIndexChanged, this, &ConnectionDialog::validate);
}

// The environment and its colour on one row; a label of free text is kept
// as typed.
QWidget *ConnectionDialog::buildEnvironmentRow()
{
    m_environment->setObjectName(QStringLiteral("environment"));
    m_environment->setEditable(true);
    m_environment->setInsertPolicy(QComboBox::NoInsert);
    m_environment->addItem(tr("(none)"), QString());
    for (const QString &preset : Environment::presets())
        m_environment->addItem(preset, preset);
    m_environment->setToolTip(tr("Shown in the window's title, its status bar and every "
                                 "confirmation. On a connection marked production (a label "
                                 "starting with \"prod\"), each action asks for the label to "
                                 "be typed before it runs."));
    m_environmentColour->setObjectName(QStringLiteral("environmentColour"));
    for (const QString &name : Environment::colourNames()) {
        QPixmap swatch(12, 12);
        swatch.fill(theme::environmentBadge(*Environment::colourFromName(name), palette()).fill);
        m_environmentColour->addItem(QIcon(swatch), name, name);
    }
    auto *environmentRow = new QWidget(this);
    auto *environmentLayout = new QHBoxLayout(environmentRow);
    environmentLayout->setContentsMargins(0, 0, 0, 0);
    environmentLayout->addWidget(m_environment, 1);
    auto *colourLabel = new QLabel(tr("Co&lour:"), this);
    colourLabel->setBuddy(m_environmentColour);
    environmentLayout->addWidget(colourLabel);
    environmentLayout->addWidget(m_environmentColour);
    connect(m_environment, &QComboBox::currentTextChanged, this,
            &ConnectionDialog::environmentLabelChanged);
    return environmentRow;
}

QLineEdit *ConnectionDialog::fileField(const QString &placeholder)
{
    auto *field = new QLineEdit(this);
    field->setPlaceholderText(placeholder);
    return field;
}

void ConnectionDialog::reloadList()
{
    m_list->clear();
    // Each group under its heading, the heading only when the group has
    // entries; with neither, the list is hidden rather than an empty box.
    auto heading = [this](const QString &text) {
        auto *item = new QListWidgetItem(text, m_list);
        item->setFlags(Qt::ItemIsEnabled); // not selectable: nothing to connect to
        QFont bold = m_list->font();
        bold.setBold(true);
        item->setFont(bold);
    };
    const QList<ConnectionSettings> saved = ConnectionStore::saved();
    if (!saved.isEmpty())
        heading(tr("Saved connections"));
    for (const ConnectionSettings &c : saved) {
        auto *item = new QListWidgetItem(c.name, m_list);
        item->setData(Qt::UserRole, c.name);
        item->setToolTip(c.url);
    }
    const QStringList recent = ConnectionStore::recentUrls();
    if (!recent.isEmpty())
        heading(tr("Recent"));
    for (const QString &url : recent) {
        auto *item = new QListWidgetItem(url, m_list);
        item->setData(Qt::UserRole + 1, url);
        item->setToolTip(tr("Connected to recently"));
    }
    m_list->setVisible(m_list->count() > 0);
}

void ConnectionDialog::test()
{
    QString error;
    const auto ep = endpoint(&error);
    if (!ep) {
        showTestResult(false, error);
        return;
    }
    m_test->setEnabled(false);
    m_testResult->setStyleSheet(QString());
    m_testResult->setText(tr("Testing %1…").arg(ep->displayUrl()));
    // A newer test's answer replaces an older one's: each has its own context.
    delete m_testContext;
    m_testContext = new QObject(this);
    ConnectionProbe::run(*ep, m_testContext, [this](const ProbeResult &result) {
        m_testContext->deleteLater();
        m_testContext = nullptr;
        m_test->setEnabled(m_connect->isEnabled());
        showTestResult(result.ok, result.message);
        Q_EMIT tested(result.ok);
    });
}

void ConnectionDialog::showTestResult(bool ok, const QString &text)
{
    m_testResult->setStyleSheet(ok ? QStringLiteral("color: #1b7a2f")
                                   : QStringLiteral("color: red"));
    m_testResult->setText(text);
}

QString ConnectionDialog::testResult() const
{
    return m_testResult->text();
}

void ConnectionDialog::setSettings(const ConnectionSettings &c)
{
    m_name->setText(c.name);
    m_url->setText(c.url);
    m_user->setText(c.user);
    m_password->clear();
    m_ca->setText(c.caFile);
    m_cert->setText(c.certFile);
    m_key->setText(c.keyFile);
    m_sni->setText(c.sniName);
    m_insecure->setChecked(c.insecure);
    const int at = m_profile->findData(c.profile);
    if (at >= 0)
        m_profile->setCurrentIndex(at);
    else
        m_profile->setEditText(c.profile);
    m_readOnly->setChecked(c.readOnly);
    m_interval->setValue(c.intervalMs);
    m_readFrom->setCurrentIndex(c.readFromReplicas ? 1 : 0);
    const int environment = m_environment->findData(c.environment.label);
    if (environment >= 0)
        m_environment->setCurrentIndex(environment);
    else
        m_environment->setEditText(c.environment.label);
    m_environmentColour->setCurrentIndex(
        m_environmentColour->findData(Environment::colourName(c.environment.colour)));
    m_environmentLabel = c.environment.label.trimmed();
    m_environmentColour->setEnabled(c.environment.isSet());
    validate();
}

ConnectionSettings ConnectionDialog::settings() const
{
    ConnectionSettings c;
    c.name = m_name->text().trimmed();
    c.url = m_url->text().trimmed();
    c.user = m_user->text().trimmed();
    c.caFile = m_ca->text().trimmed();
    c.certFile = m_cert->text().trimmed();
    c.keyFile = m_key->text().trimmed();
    c.sniName = m_sni->text().trimmed();
    c.insecure = m_insecure->isChecked();
    const int known = m_profile->findText(m_profile->currentText());
    c.profile = known >= 0 ? m_profile->itemData(known).toString() : m_profile->currentText();
    c.readOnly = m_readOnly->isChecked();
    c.intervalMs = m_interval->value();
    // A choice that cannot apply (disabled) is not passed on.
    c.readFromReplicas = m_readFrom->isEnabled() && m_readFrom->currentData().toBool();
    const int environment = m_environment->findText(m_environment->currentText());
    c.environment.label = environment >= 0 ? m_environment->itemData(environment).toString()
                                           : m_environment->currentText().trimmed();
    c.environment.colour
        = Environment::colourFromName(m_environmentColour->currentData().toString())
              .value_or(Environment::defaultColour(c.environment.label));
    return c;
}

void ConnectionDialog::environmentLabelChanged(const QString &text)
{
    const int preset = m_environment->findText(text);
    const QString label = preset >= 0 ? m_environment->itemData(preset).toString() : text.trimmed();
    const QString chosen = m_environmentColour->currentData().toString();
    if (chosen == Environment::colourName(Environment::defaultColour(m_environmentLabel)))
        m_environmentColour->setCurrentIndex(m_environmentColour->findData(
            Environment::colourName(Environment::defaultColour(label))));
    m_environmentLabel = label;
    m_environmentColour->setEnabled(!label.isEmpty());
}

QString ConnectionDialog::password() const
{
    return m_password->text();
}

std::optional<RedisEndpoint> ConnectionDialog::endpoint(QString *error) const
{
    QString e;
    auto ep = settings().endpoint(password(), &e);
    if (error)
        *error = e;
    return ep;
}

QString ConnectionDialog::validationMessage() const
{
    return m_message->text();
}

bool ConnectionDialog::canConnect() const
{
    return m_connect->isEnabled();
}

void ConnectionDialog::validate()
{
    QString error;
    const bool ok = endpoint(&error).has_value();
    m_message->setText(ok ? QString() : error);
    m_connect->setEnabled(ok);
    m_test->setEnabled(ok && !m_testContext);
    m_save->setEnabled(ok && !m_name->text().trimmed().isEmpty());
    m_delete->setEnabled(!m_name->text().trimmed().isEmpty());
    updateReadFrom();
}

void ConnectionDialog::updateReadFrom()
{
    // What the URL reaches decides whether there can be replicas to read
    // from: the sentinels name the master's replicas; a redis:// address may
    // be a Cluster node, which is known only once connected.
    QString ignored;
    const auto ep = RedisEndpoint::fromUrl(m_url->text().trimmed(), &ignored);
    QString tip;
    bool applies = true;
    if (!ep) {
        applies = false;
        tip = tr("Type a valid URL first: where reads can go depends on what it reaches.");
    } else if (ep->transport == RedisEndpoint::Transport::Unix) {
        applies = false;
        tip = tr("A unix socket reaches one standalone server: there are no replicas to read "
                 "from.");
    } else if (ep->isSentinel()) {
        tip = tr("replicas: discovery and refresh read from the master's replicas, as "
                 "--read-from replicas (readings trail the master by the replication lag); "
                 "actions always run on the master.");
    } else {
        tip = tr("replicas: if this server is a Cluster node, each master's reads go to one of "
                 "its replicas, as --read-from replicas; actions always run on the master. A "
                 "standalone server is read itself (the console notes it).");
    }
    m_readFrom->setEnabled(applies);
    m_readFrom->setToolTip(tip);
}

void ConnectionDialog::saveCurrent()
{
    const ConnectionSettings c = settings();
    if (c.name.isEmpty())
        return;
    ConnectionStore::save(c); // never the password: that goes to the keychain
    if (m_savePassword->isChecked() && !password().isEmpty()) {
        QPointer<QLabel> message = m_message;
        ConnectionStore::storePassword(c.name, password(), this, [message](const QString &error) {
            if (message && !error.isEmpty())
                message->setText(error);
        });
    }
    reloadList();
}

} // namespace gatehouse
