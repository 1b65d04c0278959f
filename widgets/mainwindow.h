// SPDX-License-Identifier: MIT
#pragma once

#include "environment.h"
#include "sidelist.h"

#include <history/historystore.h>
#include <monitor/snapshot.h>

#include <QMainWindow>
#include <QTimer>

#include <memory>

class QMenu;
class QStackedWidget;
class QTableView;

namespace gatehouse {

class ActionEngine;
class ActionRightsGate;
class ActionWorkflow;
class AlertEngine;
class AlertsPage;
class Profile;
class JobBrowser;
class AuditPage;
class TimelinePage;
class ChartPanel;
class ConsoleReads;
class ConsoleNavigation;
class Deployment;
class FaultBanner;
class Monitor;
class ObjectTableModel;
class OverviewPage;
class NodesPage;
class OtherKeysPage;
class PageList;
class StatusPresenter;
class UnconfirmedPage;
class SectionPage;

// The console's main window hosts pages: the Overview, one SectionPage per
// section of the pattern registry, the Audit log. Everything it shows comes
// from the monitor's snapshots (objects, history, attention, connection
// state); what it sends the monitor are commands (refresh, cancel discovery,
// the watched objects). An action a page builds goes to the ActionWorkflow
// (confirmed, run, reported); faults that must not pass by go to the
// FaultBanner, the connection and the readings' figures to the status bar
// (StatusPresenter). It shows one Deployment, given, made with its actions
// and its monitor from the start (Deployment::Options::actions,
// retryFirstConnection): the window never opens a socket, and every read it
// asks goes through the deployment (ConsoleReads, JobBrowser).
class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    struct Options
    {
        bool readOnly = false;
        bool demo = false;
        // The connection's environment (--environment, or the Connect
        // dialog's): first in the title, a badge in the status bar, and in
        // every action's confirmation. Unset: none.
        Environment environment;
    };

    // The deployment's history file, when it keeps one, gives the charts
    // their longer ranges, the panels and the Timeline page what earlier
    // runs recorded. deployment outlives the window.
    MainWindow(Deployment *deployment, Options options, QWidget *parent = nullptr);
    ~MainWindow() override;

    // For tests and the screenshot run.
    QString bannerText() const; // empty while no banner is shown
    QStringList pageNames() const;
    void showPage(int index);
    int currentPage() const;
    // The latest snapshot (null before the first): what search and details read.
    std::shared_ptr<const Snapshot> snapshot() const { return m_snapshot; }
    int pageOf(const QString &section) const;
    QWidget *page(int index) const;
    SectionPage *sectionPage(const QString &section) const;
    // The Alerts page of the deployment's rules (Deployment::alerts(); none
    // without them), its badge on the side list ("Alerts (2)") and desktop
    // notifications of firings and resolutions (DesktopNotifier). Its rules
    // are saved with profile.
    void setAlerts(const Profile &profile);
    AlertsPage *alertsPage() const { return m_alertsPage; }
    // Autodetection's pages: the candidates with Accept/Reject (their
    // verdicts go to the monitor as a new profile), and the ordinary keys.
    UnconfirmedPage *unconfirmedPage() const { return m_unconfirmed; }
    OtherKeysPage *otherKeysPage() const { return m_otherKeys; }
    ObjectTableModel *model(const QString &section) const;
    ChartPanel *chart(const QString &section) const;
    QTableView *table(const QString &section) const;
    QString lastOutcome() const { return m_lastOutcome; }
    void selectRow(const QString &section, int row);
    // Writes a section's table (the rows as shown, filter and sort applied) as CSV.
    bool exportCsv(const QString &section, const QString &fileName) const;
    // The View menu, made at first use: the application adds the options it
    // wires (the metrics endpoint).
    QMenu *viewMenu();
    // Opens section's page on key (as a click on an Overview tile does).
    void openObject(const QString &section, const QByteArray &key);
    // A passing sentence in the status bar (lastOutcome() until the next).
    void showMessage(const QString &text, int timeoutMs = 8000);

Q_SIGNALS:
    void actionFinished(const QString &message);
    // File > Connect…: the application opens the connection dialog.
    void connectRequested();
    // File > Open Another Deployment…: the application opens the connection
    // dialog for one more window, this one staying as it is.
    void connectAnotherRequested();
    // View > All Deployments: the application shows every open deployment.
    void allDeploymentsRequested();

private:
    void buildPages();
    void buildLayout();
    // The charts', panels' and Timeline's longer ranges from the history file.
    void showHistory();
    void addPage(QWidget *page, const QString &title);
    void onSnapshot(const Snapshot &snapshot);
    void onTimer();
    void updateSideList();
    void showConnection(const ConnectionStatus &status);
    // The selected objects of every page: the monitor reads the latest in
    // detail and publishes their history.
    void watchSelection(const QByteArray &latest);

    Deployment *m_deployment;
    Monitor *m_monitor;
    ActionEngine *m_actions;
    ActionRightsGate *m_rights; // what the user's ACL allows, for every page's buttons
    // Library queues' job lists, read on demand over the deployment's
    // actions' connection.
    JobBrowser *m_jobBrowser;
    // The server panel's and the panels' reads, over the same connection.
    ConsoleReads *m_reads;
    Options m_options;
    std::shared_ptr<HistoryStore> m_history; // null: no history kept (--no-history)
    std::shared_ptr<const Snapshot> m_snapshot;
    SectionTallier m_tallier; // the side list's counts, snapshot to snapshot
    QString m_lastOutcome;

    PageList *m_pages;
    QStackedWidget *m_stack;
    OverviewPage *m_overview = nullptr;
    QList<SectionPage *> m_sectionPages;
    AuditPage *m_audit = nullptr;
    NodesPage *m_nodesPage = nullptr;
    TimelinePage *m_timeline = nullptr;
    AlertsPage *m_alertsPage = nullptr;
    UnconfirmedPage *m_unconfirmed = nullptr;
    OtherKeysPage *m_otherKeys = nullptr;

    ConsoleNavigation *m_navigation = nullptr;
    FaultBanner *m_banner;
    StatusPresenter *m_status;
    ActionWorkflow *m_workflow;
    ConnectionStatus m_connection; // as last shown
    QTimer m_timer;                // replots and the age of the last reading, never per sample
    bool m_dirty = false;
    bool m_everReady = false; // a handshake succeeded: the figures are readings
    bool m_offline = false;   // not connected now: pages greyed, actions disabled
};

} // namespace gatehouse
