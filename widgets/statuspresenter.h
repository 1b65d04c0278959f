// SPDX-License-Identifier: MIT
#pragma once

#include "environment.h"

#include <monitor/snapshot.h>

#include <QObject>

class QLabel;
class QProgressBar;
class QStatusBar;
class QToolButton;

namespace gatehouse {

class Monitor;

// The window's status bar: the connection's state (a live countdown while
// reconnecting), the server, keyspace events, the age of the reading, the
// clock offset, the key scan's progress with Cancel, the READ-ONLY and DEMO
// badges, the connection's environment in its colour, and passing messages. A connection's sentence
// is shown only where no action's outcome is: it never hides one.
class StatusPresenter : public QObject
{
    Q_OBJECT
public:
    // environment: unset for none (no badge).
    StatusPresenter(QStatusBar *bar, bool readOnly, bool demo,
                    const Environment &environment = Environment());

    // The connection as last reported; message is its sentence without the
    // attempt countdown.
    void showConnection(const ConnectionStatus &status, const QString &message);
    // Every half second: the countdown, and the latest reading's figures
    // (offline: the events are not live).
    void tick(const ServerStatus &server, bool offline);
    void showMessage(const QString &text, int timeoutMs);

    // The key scan's progress, and Cancel asking the monitor to stop it.
    void follow(Monitor *monitor);

private:
    void discoveryProgress(qint64 scanned, qint64 total);
    void discoveryFinished();

    QStatusBar *m_bar;
    ConnectionStatus m_connection; // as last shown
    QString m_stateMessage;        // the connection sentence in the status bar, if any
    QProgressBar *m_discoveryBar;
    QToolButton *m_cancelDiscovery;
    QLabel *m_stateLabel;
    QLabel *m_serverLabel;
    QLabel *m_eventsLabel;
    QLabel *m_ageLabel;
    QLabel *m_offsetLabel;
};

} // namespace gatehouse
