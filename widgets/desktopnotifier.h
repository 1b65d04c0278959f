// SPDX-License-Identifier: MIT
#pragma once

#include <QElapsedTimer>
#include <QObject>

class QDBusServiceWatcher;
class QSystemTrayIcon;
class QWidget;

namespace gatehouse {

struct AlertEvent;

// Desktop notifications of alert firings and resolutions. Through the
// system tray where the desktop has one (QSystemTrayIcon::showMessage; on
// Linux Qt's StatusNotifierItem, whose messages go to
// org.freedesktop.Notifications), the icon made when the tray comes up, also
// after the console started. Without a tray (GNOME has none unless an
// extension adds it) straight to org.freedesktop.Notifications on the
// session bus, without waiting for the reply. Offscreen (tests, a headless
// run) it notifies nobody. GUI thread.
//
// Whether a tray is there (QSystemTrayIcon::isSystemTrayAvailable()) is a
// blocking round trip (the session bus, the X server): asked at start, then
// while there is none at most once a minute (an XEmbed tray coming up is
// seen within a minute of it), and at once when a panel's
// StatusNotifierWatcher takes its name on the session bus (watched, not
// polled). Alert transitions in between go straight to the notification
// server without asking.
class DesktopNotifier : public QObject
{
    Q_OBJECT
public:
    // window: whose icon and title the tray icon shows; not owned.
    explicit DesktopNotifier(QWidget *window);

    void notify(const AlertEvent &event);
    // The tray icon, made when a system tray is there (null while none is).
    QSystemTrayIcon *tray();
    // How long a "no tray" answer stands before it is asked again.
    static constexpr qint64 TrayRecheckMs = 60000;

Q_SIGNALS:
    void messageClicked(); // a notification shown through the tray
    void trayActivated();

private:
    // Whether QSystemTrayIcon::isSystemTrayAvailable() is worth asking now.
    bool mayAskForTray() const;
    void watchForWatcher();

    QWidget *m_window;
    QSystemTrayIcon *m_tray = nullptr;
    QElapsedTimer m_lastAsked;                // invalid: never asked
    bool m_watcherAppeared = false;           // since the last "no tray"
    QDBusServiceWatcher *m_watcher = nullptr; // made after the first "no tray"
};

} // namespace gatehouse
