// SPDX-License-Identifier: MIT
#pragma once

#include <QObject>

namespace gatehouse {

class Deployment;
class MainWindow;
class Monitor;

// The window's File menu: Connect…, Disconnect, Refresh now (F5), Pause
// refresh, Dismiss gone objects, Find… (the current page's filter), Export
// table as CSV…, Quit.
// What it asks of the monitor goes to the monitor's thread as commands; it
// uses only the window's public face otherwise.
class FileMenu : public QObject
{
    Q_OBJECT
public:
    FileMenu(MainWindow *window, Deployment *deployment);

private:
    void find();
    void exportCsv();

    MainWindow *m_window;
    Monitor *m_monitor;
};

} // namespace gatehouse
