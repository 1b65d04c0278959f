// SPDX-License-Identifier: MIT
#include "statuspresenter.h"

#include "connectionwords.h"
#include "environmentbadge.h"

#include <monitor/monitor.h>
#include <patterns/presentation.h>

#include <QDateTime>
#include <QLabel>
#include <QProgressBar>
#include <QStatusBar>
#include <QToolButton>

namespace gatehouse {

StatusPresenter::StatusPresenter(QStatusBar *bar, bool readOnly, bool demo,
                                 const Environment &environment)
    : QObject(bar)
    , m_bar(bar)
    , m_discoveryBar(new QProgressBar(bar))
    , m_cancelDiscovery(new QToolButton(bar))
    , m_stateLabel(new QLabel(bar))
    , m_serverLabel(new QLabel(bar))
    , m_eventsLabel(new QLabel(bar))
    , m_ageLabel(new QLabel(bar))
    , m_offsetLabel(new QLabel(bar))
{
    m_discoveryBar->setObjectName(QStringLiteral("discoveryProgress"));
    bar->addPermanentWidget(m_discoveryBar);
    m_discoveryBar->setMaximumWidth(260);
    m_discoveryBar->hide();
    m_cancelDiscovery->setText(tr("Cancel"));
    m_cancelDiscovery->setToolTip(tr("Stop the key scan; what was found stays"));
    m_cancelDiscovery->hide();
    bar->addPermanentWidget(m_cancelDiscovery);
    m_eventsLabel->setObjectName(QStringLiteral("eventsLabel"));
    for (QLabel *l : {m_stateLabel, m_serverLabel, m_eventsLabel, m_ageLabel, m_offsetLabel})
        bar->addPermanentWidget(l);
    if (readOnly) {
        auto *badge = new QLabel(tr("<b>READ-ONLY</b>"), bar);
        badge->setToolTip(tr("Started with --read-only: every action is disabled."));
        bar->addPermanentWidget(badge);
    }
    if (demo) {
        auto *badge = new QLabel(tr("<b>DEMO</b>"), bar);
        badge->setToolTip(tr("A private redis-server with simulated traffic; it is removed "
                             "when you quit."));
        bar->addPermanentWidget(badge);
    }
    if (environment.isSet()) {
        auto *badge = new EnvironmentBadge(environment, QString(), bar);
        badge->setObjectName(QStringLiteral("environmentBadge"));
        badge->setToolTip(
            environment.isProduction()
                ? tr("This connection is marked %1: every action asks for the "
                     "word to be typed before it runs.")
                      .arg(environment.label.trimmed())
                : tr("This connection is marked %1.").arg(environment.label.trimmed()));
        bar->addPermanentWidget(badge);
    }
}

void StatusPresenter::showMessage(const QString &text, int timeoutMs)
{
    m_bar->showMessage(text, timeoutMs);
}

void StatusPresenter::follow(Monitor *monitor)
{
    connect(monitor, &Monitor::discoveryProgress, this, &StatusPresenter::discoveryProgress);
    connect(monitor, &Monitor::discoveryFinished, this, &StatusPresenter::discoveryFinished);
    connect(m_cancelDiscovery, &QToolButton::clicked, this,
            [monitor] { QMetaObject::invokeMethod(monitor, &Monitor::cancelDiscovery); });
}

void StatusPresenter::discoveryProgress(qint64 scanned, qint64 total)
{
    // Shown until the scan's keys are judged too (discoveryFinished).
    m_discoveryBar->setRange(0, int(std::min<qint64>(total, INT_MAX)));
    m_discoveryBar->setValue(int(std::min<qint64>(scanned, INT_MAX)));
    m_discoveryBar->setFormat(ConnectionWords::scanning(scanned, total));
    m_discoveryBar->setToolTip(m_discoveryBar->format());
    m_discoveryBar->show();
    m_cancelDiscovery->show();
}

void StatusPresenter::discoveryFinished()
{
    m_discoveryBar->hide();
    m_cancelDiscovery->hide();
}

void StatusPresenter::showConnection(const ConnectionStatus &status, const QString &message)
{
    m_connection = status;
    using State = ConnectionState;
    QString text;
    switch (status.state) {
    case State::Disconnected:
        text = tr("Disconnected");
        break;
    case State::Connecting:
        text = tr("Connecting…");
        break;
    case State::Ready:
        text = tr("Connected");
        break;
    case State::Reconnecting:
        text = tr("Reconnecting…");
        break;
    case State::Failed:
        // What a final failure is, by the connection's error kind:
        // authentication and TLS need the operator.
        if (status.errorKind == ConnectionErrorKind::Authentication)
            text = tr("Authentication failed");
        else if (status.errorKind == ConnectionErrorKind::Tls)
            text = tr("TLS failed");
        else
            text = tr("Failed");
        break;
    }
    m_stateLabel->setText(text);
    m_stateLabel->setToolTip(message);
    // Only the current state: a reconnect clears the last attempt's sentence
    // (and only that: an action's outcome shown since stays).
    if (message.isEmpty() || status.state == State::Ready) {
        if (!m_stateMessage.isEmpty() && m_bar->currentMessage() == m_stateMessage)
            m_bar->clearMessage();
        m_stateMessage.clear();
    } else if (m_bar->currentMessage().isEmpty() || m_bar->currentMessage() == m_stateMessage) {
        // Never over an action's outcome: the connection's sentence is in
        // the state label's tooltip too.
        m_bar->showMessage(message, 15000);
        m_stateMessage = message;
    }
}

void StatusPresenter::tick(const ServerStatus &server, bool offline)
{
    if (m_connection.state == ConnectionState::Reconnecting && m_connection.nextAttemptAtMs > 0) {
        m_stateLabel->setText(ConnectionWords::reconnecting(m_connection.nextAttemptAtMs
                                                            - QDateTime::currentMSecsSinceEpoch()));
    }
    if (server.timeMs <= 0)
        return;
    const NodeStatus &node = server.primary();
    m_ageLabel->setText(
        tr("reading %1 old")
            .arg(formatMs(std::max<qint64>(0, QDateTime::currentMSecsSinceEpoch()
                                                  + server.clockOffsetMs - server.timeMs))));
    m_offsetLabel->setText(tr("clock offset %1 ms").arg(server.clockOffsetMs));
    m_offsetLabel->setToolTip(tr("Server clock minus this machine's clock; window maths use "
                                 "the server's clock."));
    m_serverLabel->setText(
        node.version.isEmpty()
            ? tr("Redis (version unknown)")
            : tr("%1 %2 %3")
                  .arg(node.serverName.isEmpty() ? QStringLiteral("Redis") : node.serverName,
                       node.version, node.role));
    m_eventsLabel->setText(ConnectionWords::events(server, offline));
    m_eventsLabel->setToolTip(ConnectionWords::eventsToolTip(server));
}

} // namespace gatehouse
