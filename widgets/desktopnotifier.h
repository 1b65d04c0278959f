// SPDX-License-Identifier: MIT
#pragma once

#include <QObject>

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
class DesktopNotifier : public QObject
{
    Q_OBJECT
public:
    // window: whose icon and title the tray icon shows; not owned.
    explicit DesktopNotifier(QWidget *window);

    void notify(const AlertEvent &event);
    // The tray icon, made when a system tray is there (null while none is).
    QSystemTrayIcon *tray();

Q_SIGNALS:
    void messageClicked(); // a notification shown through the tray
    void trayActivated();

private:
    QWidget *m_window;
    QSystemTrayIcon *m_tray = nullptr;
};

} // namespace gatehouse
