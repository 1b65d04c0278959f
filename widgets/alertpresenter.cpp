// SPDX-License-Identifier: MIT
#include "alertpresenter.h"

#include "desktopnotifier.h"
#include "overviewpage.h"

#include <alerts/alertengine.h>

#include <QListWidgetItem>
#include <QWidget>

namespace gatehouse {

AlertPresenter::AlertPresenter(AlertEngine *engine, QWidget *window)
    : QObject(window)
    , m_engine(engine)
    , m_window(window)
{
    auto *notifier = new DesktopNotifier(window);
    connect(engine, &AlertEngine::transition, notifier, &DesktopNotifier::notify);
    connect(notifier, &DesktopNotifier::trayActivated, this, &AlertPresenter::raiseWindow);
    connect(notifier, &DesktopNotifier::messageClicked, this, [this] {
        Q_EMIT alertsWanted();
        raiseWindow();
    });
    notifier->tray(); // the icon from the start when a tray is there
}

void AlertPresenter::showFiringIn(QListWidgetItem *entry, OverviewPage *overview)
{
    connect(m_engine, &AlertEngine::firingCountChanged, this,
            [entry](int n) { entry->setText(n > 0 ? tr("Alerts (%1)").arg(n) : tr("Alerts")); });
    const auto firing = [this, overview] {
        overview->setFiring(m_engine->firing());
    };
    connect(m_engine, &AlertEngine::firingCountChanged, this, firing);
    connect(m_engine, &AlertEngine::transition, this, firing);
}

void AlertPresenter::raiseWindow()
{
    m_window->showNormal();
    m_window->raise();
    m_window->activateWindow();
}

} // namespace gatehouse
