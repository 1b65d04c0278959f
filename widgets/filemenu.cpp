// SPDX-License-Identifier: MIT
#include "filemenu.h"

#include "auditpage.h"
#include "mainwindow.h"
#include "otherkeyspage.h"
#include "sectionpage.h"
#include "unconfirmedpage.h"

#include <deployment/deployment.h>
#include <monitor/monitor.h>

#include <QAction>
#include <QApplication>
#include <QFileDialog>
#include <QMenu>
#include <QMenuBar>

namespace gatehouse {

FileMenu::FileMenu(MainWindow *window, Deployment *deployment)
    : QObject(window)
    , m_window(window)
    , m_monitor(deployment->monitor())
{
    Monitor *monitor = m_monitor;
    QMenu *file = window->menuBar()->addMenu(tr("&File"));
    QAction *connectAction
        = file->addAction(tr("&Connect…"), window, &MainWindow::connectRequested);
    connectAction->setShortcut(QKeySequence::Open);
    QAction *another = file->addAction(tr("Open &Another Deployment…"), window,
                                       &MainWindow::connectAnotherRequested);
    another->setObjectName(QStringLiteral("openAnotherDeployment"));
    another->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    // Both connections: the monitor's (and the demo's traffic on it) and the actions'.
    QAction *disconnectAction = file->addAction(tr("&Disconnect"), deployment, &Deployment::close);
    disconnectAction->setObjectName(QStringLiteral("disconnect"));
    QAction *refresh = file->addAction(tr("&Refresh now"), this, [monitor] {
        QMetaObject::invokeMethod(monitor, &Monitor::refreshNow);
    });
    refresh->setShortcut(QKeySequence::Refresh);
    // Nothing is read while paused (a server in trouble, or a view to study
    // as it stands); the readings show their age meanwhile.
    QAction *pause = file->addAction(tr("&Pause refresh"));
    pause->setObjectName(QStringLiteral("pauseRefresh"));
    pause->setCheckable(true);
    pause->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P));
    connect(pause, &QAction::toggled, this, [monitor](bool paused) {
        QMetaObject::invokeMethod(monitor, [monitor, paused] { monitor->setPaused(paused); });
    });
    // Gone objects stay, with when they went, until the operator has seen
    // them: this lets them go (a key written again is found again).
    QAction *dismiss = file->addAction(tr("Dis&miss gone objects"), this, [monitor] {
        QMetaObject::invokeMethod(monitor, &Monitor::dismissGone);
    });
    dismiss->setObjectName(QStringLiteral("dismissGone"));
    dismiss->setStatusTip(tr("Removes the objects shown as gone; one written again comes back"));
    QAction *findAction = file->addAction(tr("&Find…"), this, &FileMenu::find);
    findAction->setShortcut(QKeySequence::Find);
    QAction *csv = file->addAction(tr("Export table as &CSV…"), this, &FileMenu::exportCsv);
    csv->setShortcut(QKeySequence::Save);
    file->addSeparator();
    QAction *quit = file->addAction(tr("&Quit"), qApp, &QApplication::quit);
    // QKeySequence::Quit is empty under some platform themes (Windows' keys).
    quit->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Q));
}

// The current page's filter; on a page without one, the first section's.
void FileMenu::find()
{
    QWidget *current = m_window->page(m_window->currentPage());
    if (auto *audit = qobject_cast<AuditPage *>(current))
        return audit->focusFilter();
    if (auto *unconfirmed = qobject_cast<UnconfirmedPage *>(current))
        return unconfirmed->focusFilter();
    if (auto *others = qobject_cast<OtherKeysPage *>(current))
        return others->focusFilter();
    auto *page = qobject_cast<SectionPage *>(current);
    for (int i = 0; !page && i < m_window->pageNames().size(); ++i) {
        if ((page = qobject_cast<SectionPage *>(m_window->page(i))))
            m_window->showPage(i);
    }
    if (page)
        page->focusFilter();
}

void FileMenu::exportCsv()
{
    auto *page = qobject_cast<SectionPage *>(m_window->page(m_window->currentPage()));
    if (!page)
        return m_window->showMessage(tr("Open a page with a table to export it."), 5000);
    const QString file
        = QFileDialog::getSaveFileName(m_window, tr("Export table"), QString(), tr("CSV (*.csv)"));
    if (!file.isEmpty() && !page->exportCsv(file))
        m_window->showMessage(tr("Could not write %1.").arg(file));
}

} // namespace gatehouse
