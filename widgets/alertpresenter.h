// SPDX-License-Identifier: MIT
#pragma once

#include <QObject>

#include <memory>

class QListWidgetItem;
class QWidget;

namespace gatehouse {

class AlertEngine;
class HistoryStore;
class Monitor;
class OverviewPage;

// The alert engine in a console window: how many fire on the Alerts page's
// side-list entry ("Alerts (2)") and on the Overview (how many and the worst
// of them); evaluated at every tick of the
// monitor (queued: the monitor ticks on its own thread; evaluating is a
// figure per object per rule, cheap enough for the GUI thread), every firing
// and resolution written into the history file beside the figures, and
// shown as a desktop notification (the operator who saw a firing knows it is
// over without opening the console). A click on the tray icon or on a
// notification raises the window.
class AlertPresenter : public QObject
{
    Q_OBJECT
public:
    // history: may be null (no history kept); window: raised on a click.
    AlertPresenter(AlertEngine *engine, Monitor *monitor, std::weak_ptr<HistoryStore> history,
                   QWidget *window);
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
