// SPDX-License-Identifier: MIT
#include "faultbanner.h"

#include <actions/actionengine.h>

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>

namespace gatehouse {

FaultBanner::FaultBanner(QWidget *parent)
    : QFrame(parent)
    , m_text(new QLabel(this))
    , m_connect(new QPushButton(tr("Connect…"), this))
    , m_dismiss(new QPushButton(tr("Dismiss"), this))
{
    setObjectName(QStringLiteral("faultBanner"));
    auto *layout = new QHBoxLayout(this);
    m_text->setWordWrap(true);
    m_text->setTextFormat(Qt::RichText);
    layout->addWidget(m_text, 1);
    connect(m_connect, &QPushButton::clicked, this, &FaultBanner::connectRequested);
    layout->addWidget(m_connect);
    connect(m_dismiss, &QPushButton::clicked, this, [this] {
        if (m_kind == Kind::World)
            m_worldNotice.dismiss();
        clear();
    });
    layout->addWidget(m_dismiss);
    hide();
}

QString FaultBanner::text() const
{
    return isHidden() ? QString() : m_text->text();
}

void FaultBanner::display(Kind kind, const QString &title, const QString &message,
                          const QString &advice)
{
    m_kind = kind;
    if (kind == Kind::None) {
        hide();
        m_text->clear();
        return;
    }
    // Connection and Offline: red, until the connection is back or another
    // is made. Action: amber, until dismissed or the next action's outcome.
    // Dark text on the light fill in either palette.
    const bool connection = kind == Kind::Connection || kind == Kind::Offline;
    setStyleSheet(connection ? QStringLiteral("#faultBanner { background: #fdecea; color: #202124; "
                                              "border: 1px solid #d93025; border-radius: 4px; } "
                                              "#faultBanner QLabel { color: #202124; }")
                             : QStringLiteral("#faultBanner { background: #fef7e0; color: #202124; "
                                              "border: 1px solid #f9ab00; border-radius: 4px; } "
                                              "#faultBanner QLabel { color: #202124; }"));
    m_connect->setVisible(connection);
    m_dismiss->setVisible(kind == Kind::Action || kind == Kind::World);
    m_text->setText(
        QStringLiteral("<b>%1</b><br>%2<br><i>%3</i>")
            .arg(title.toHtmlEscaped(), message.toHtmlEscaped(), advice.toHtmlEscaped()));
    show();
}

void FaultBanner::showConnection(const ConnectionStatus &status, const QString &message,
                                 const QString &offline, bool everReady)
{
    using State = ConnectionState;
    using Error = ConnectionErrorKind;
    if (status.state == State::Failed && status.errorKind == Error::Authentication) {
        display(Kind::Connection, tr("Not connected: the server refused the credentials."), message,
                tr("Check the user name and password in File › Connect… (or --user/--pass, "
                   "REDISCLI_AUTH); for an ACL user, check that it is enabled and may "
                   "AUTH. Nothing below is a reading until the connection is "
                   "authenticated."));
    } else if (status.state == State::Failed && status.errorKind == Error::Tls) {
        display(Kind::Connection, tr("Not connected: the TLS connection could not be set up."),
                message,
                tr("Check that the port speaks TLS, the CA that signed the server's "
                   "certificate (--cacert), the name the certificate is for (--sni), and "
                   "the client certificate and key if the server asks for one (--cert, "
                   "--key), in File › Connect…."));
    } else if (!everReady && status.state != State::Ready && status.state != State::Disconnected
               && status.errorKind == Error::Network && !status.message.isEmpty()) {
        // Never reached yet (refused, no answer, a name that does not
        // resolve): said where the figures would be, while it tries again.
        display(Kind::Connection, tr("Not connected: the server cannot be reached."), message,
                tr("Gatehouse tries again by itself. Check the host and port, that the server "
                   "runs and that nothing in between drops the connection (File › Connect… "
                   "to change them). Nothing below is a reading until it connects."));
    } else if (m_kind == Kind::Connection
               && (status.state == State::Ready
                   || (status.state == State::Connecting && everReady))) {
        // Kept through the next attempt while never connected: not a banner
        // that blinks off at each try.
        clear();
    }
    // Not connected: said where the figures are, once they were figures.
    if (status.state != State::Ready) {
        if (everReady && m_kind != Kind::Connection && m_kind != Kind::Action)
            display(Kind::Offline, offline, message,
                    tr("Figures are the last ones read and actions are disabled until the "
                       "connection is back (File › Connect… to connect again)."));
    } else if (m_kind == Kind::Offline) {
        clear();
    }
}

void FaultBanner::showOutcome(const ActionOutcome &outcome, const QString &action)
{
    if (outcome.result == ActionOutcome::Result::Unknown) {
        // Not a passing status message: a reconnect must not wipe it.
        display(Kind::Action, tr("%1 may or may not have run.").arg(action), outcome.message,
                tr("Look at what it acts on (it refreshes by itself once the connection is "
                   "back) before running it again; the attempt is in the audit log."));
        return;
    }
    if (m_kind == Kind::Action)
        clear();
}

void FaultBanner::showProblem(const QString &title, const QString &message, const QString &advice)
{
    display(Kind::Action, title, message, advice);
}

void FaultBanner::showWorld(const ServerStatus &server)
{
    const bool changed = m_worldNotice.update(server);
    if ((changed || m_kind == Kind::None) && (m_kind == Kind::None || m_kind == Kind::World)) {
        if (const auto notice = m_worldNotice.current())
            display(Kind::World, notice->title, notice->message, notice->advice);
        else if (m_kind == Kind::World)
            clear();
    }
}

} // namespace gatehouse
