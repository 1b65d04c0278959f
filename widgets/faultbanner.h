// SPDX-License-Identifier: MIT
#pragma once

#include "worldnotice.h"

#include <monitor/snapshot.h>

#include <QFrame>

class QLabel;
class QPushButton;

namespace gatehouse {

struct ActionOutcome;

// The banner over the pages for what must not pass by in the status bar:
// a connection that cannot be made (authentication, TLS: they do not heal by
// waiting), a connection lost, an action whose outcome is unknown, a new
// world (a restart, a master switch). What a connection failure is comes
// from the connection's typed error kind, never from its sentence.
class FaultBanner : public QFrame
{
    Q_OBJECT
public:
    // Connection: it cannot be made (credentials, TLS); Offline: it was
    // there and is not now; Action: an outcome the operator must see;
    // World: a restart or master switch, until dismissed.
    enum class Kind { None, Connection, Offline, Action, World };

    explicit FaultBanner(QWidget *parent = nullptr);

    Kind kind() const { return m_kind; }
    QString text() const; // empty while no banner is shown

    // The connection as last reported: message is its sentence without the
    // attempt countdown, offline the sentence for not being connected (empty
    // when Ready), everReady whether a handshake ever succeeded.
    void showConnection(const ConnectionStatus &status, const QString &message,
                        const QString &offline, bool everReady);
    // An action's outcome: an unknown one stays until dismissed or the next
    // outcome; any other clears an earlier action's banner.
    void showOutcome(const ActionOutcome &outcome, const QString &action);
    // A problem the operator must read (amber, dismissable).
    void showProblem(const QString &title, const QString &message, const QString &advice);
    // The latest snapshot's world: a restart or master switch is said until
    // dismissed, below a connection fault or an action's outcome.
    void showWorld(const ServerStatus &server);

Q_SIGNALS:
    void connectRequested();

private:
    void display(Kind kind, const QString &title, const QString &message, const QString &advice);
    void clear() { display(Kind::None, {}, {}, {}); }

    Kind m_kind = Kind::None;
    WorldNotice m_worldNotice;
    QLabel *m_text;
    QPushButton *m_connect;
    QPushButton *m_dismiss;
};

} // namespace gatehouse
