// SPDX-License-Identifier: MIT
#pragma once

#include <QObject>

class QListWidgetItem;
class QWidget;

namespace gatehouse {

class AlertEngine;
class OverviewPage;

// The alert engine in a console window: how many fire on the Alerts page's
// side-list entry ("Alerts (2)") and on the Overview (how many and the worst
// of them), and every firing and resolution shown as a desktop notification
// (the operator who saw a firing knows it is over without opening the
// console). A click on the tray icon or on a notification raises the window.
// The engine is the deployment's (Deployment::alerts()): it evaluates every
// tick and writes each transition into the history file.
class AlertPresenter : public QObject
{
    Q_OBJECT
public:
    // window: raised on a click.
    AlertPresenter(AlertEngine *engine, QWidget *window);
    // Where the firing alerts are counted: the side list's entry, the Overview.
    void showFiringIn(QListWidgetItem *entry, OverviewPage *overview);

Q_SIGNALS:
    // A notification was clicked: where it is listed is wanted.
    void alertsWanted();

private:
    void raiseWindow();

    AlertEngine *m_engine;
    QWidget *m_window;
};

} // namespace gatehouse
