// SPDX-License-Identifier: MIT
#include "desktopnotifier.h"

#include <alerts/alertengine.h>

#include <QDBusConnection>
#include <QDBusMessage>
#include <QDBusServiceWatcher>
#include <QGuiApplication>
#include <QLoggingCategory>
#include <QSystemTrayIcon>
#include <QVariantMap>
#include <QWidget>

namespace gatehouse {

namespace {

// Each time the console asks whether a tray is there (a blocking round trip),
// for whoever watches it (QT_LOGGING_RULES="gatehouse.tray.debug=true").
Q_LOGGING_CATEGORY(lcTray, "gatehouse.tray", QtWarningMsg)

// org.freedesktop.Notifications.Notify (Desktop Notifications Specification
// 1.2), sent without waiting: the reply (an id) is not needed, and a
// desktop without the service answers with an error nobody reads.
void notifyOverBus(const QString &summary, const QString &body, const QString &icon, uchar urgency)
{
    QDBusConnection bus = QDBusConnection::sessionBus();
    if (!bus.isConnected())
        return;
    QDBusMessage call = QDBusMessage::createMethodCall(
        QStringLiteral("org.freedesktop.Notifications"),
        QStringLiteral("/org/freedesktop/Notifications"),
        QStringLiteral("org.freedesktop.Notifications"), QStringLiteral("Notify"));
    QVariantMap hints;
    hints.insert(QStringLiteral("urgency"), QVariant::fromValue(urgency)); // 0 low .. 2 critical
    hints.insert(QStringLiteral("desktop-entry"), QGuiApplication::desktopFileName());
    call << QCoreApplication::applicationName() << uint(0) << icon << summary << body
         << QStringList() << hints << int(-1);
    bus.send(call); // the reply (an id) is not read
}

// offscreen, minimal: a console without a screen (the GUI tests, a
// headless run) has no desktop of its own to notify; the user's session bus
// may still be reachable, and its panel is not this console's.
bool hasDesktop()
{
    const QString platform = QGuiApplication::platformName();
    return platform != QLatin1String("offscreen") && platform != QLatin1String("minimal");
}

} // namespace

DesktopNotifier::DesktopNotifier(QWidget *window)
    : QObject(window)
    , m_window(window)
{}

bool DesktopNotifier::mayAskForTray() const
{
    return !m_lastAsked.isValid() || m_watcherAppeared || m_lastAsked.hasExpired(TrayRecheckMs);
}

void DesktopNotifier::watchForWatcher()
{
    if (m_watcher)
        return;
    QDBusConnection bus = QDBusConnection::sessionBus();
    if (!bus.isConnected())
        return;
    // A panel's watcher (KDE Plasma, LXQt, GNOME's AppIndicator extension)
    // taking its name: a signal from the bus, no call of ours (a match rule
    // added without waiting for its reply).
    m_watcher = new QDBusServiceWatcher(QStringLiteral("org.kde.StatusNotifierWatcher"), bus,
                                        QDBusServiceWatcher::WatchForRegistration, this);
    connect(m_watcher, &QDBusServiceWatcher::serviceRegistered, this,
            [this] { m_watcherAppeared = true; });
}

QSystemTrayIcon *DesktopNotifier::tray()
{
    // Made once a tray is there, not only at start: a desktop's panel (its
    // StatusNotifierWatcher on the session bus, or an XEmbed tray) may come
    // up after the console. Asked again only when there is something to say,
    // and then only as mayAskForTray() allows: the question blocks.
    if (m_tray || !hasDesktop() || !mayAskForTray())
        return m_tray;
    m_lastAsked.start();
    m_watcherAppeared = false;
    const bool available = QSystemTrayIcon::isSystemTrayAvailable();
    qCDebug(lcTray) << "asked whether a system tray is there:" << (available ? "yes" : "no");
    if (!available) {
        watchForWatcher();
        return nullptr;
    }
    m_tray = new QSystemTrayIcon(m_window->windowIcon(), this);
    m_tray->setObjectName(QStringLiteral("alertTray"));
    m_tray->setToolTip(m_window->windowTitle());
    connect(m_tray, &QSystemTrayIcon::activated, this, &DesktopNotifier::trayActivated);
    connect(m_tray, &QSystemTrayIcon::messageClicked, this, &DesktopNotifier::messageClicked);
    m_tray->show();
    delete m_watcher; // the tray is there for good
    m_watcher = nullptr;
    return m_tray;
}

void DesktopNotifier::notify(const AlertEvent &event)
{
    const bool fired = event.state == AlertEvent::State::Fired;
    const bool critical = fired && event.rule.severity == AlertRule::Severity::Critical;
    const QString summary
        = fired ? tr("Gatehouse alert: %1").arg(event.rule.shownName())
          : event.state == AlertEvent::State::Vanished
              ? tr("Gatehouse: object vanished while firing: %1").arg(event.rule.shownName())
              : tr("Gatehouse resolved: %1").arg(event.rule.shownName());
    if (QSystemTrayIcon *icon = tray()) {
        icon->showMessage(summary, event.sentence(),
                          critical ? QSystemTrayIcon::Critical
                          : fired  ? QSystemTrayIcon::Warning
                                   : QSystemTrayIcon::Information);
        return;
    }
    if (hasDesktop())
        notifyOverBus(summary, event.sentence(),
                      critical ? QStringLiteral("dialog-error")
                      : fired  ? QStringLiteral("dialog-warning")
                               : QStringLiteral("dialog-information"),
                      critical ? 2
                      : fired  ? 1
                               : 0);
}

} // namespace gatehouse
