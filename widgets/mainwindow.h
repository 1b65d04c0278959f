// SPDX-License-Identifier: MIT
#pragma once

#include "sidelist.h"

#include <history/historystore.h>
#include <monitor/snapshot.h>

#include "worldnotice.h"
#include <patterns/scriptcall.h>

#include <QMainWindow>
#include <QTimer>

#include <memory>

class QLabel;
class QListWidget;
class QMenu;
class QProgressBar;
class QPushButton;
class QStackedWidget;
class QTableView;
class QToolButton;

namespace gatehouse {

class ActionEngine;
class AlertEngine;
class AlertsPage;
class Profile;
class JobBrowser;
class AuditPage;
class ChartPanel;
class Monitor;
class ObjectTableModel;
class OverviewPage;
class NodesPage;
class OtherKeysPage;
class UnconfirmedPage;
class RedisClient;
class SectionPage;
struct ActionOutcome;

// The console's main window hosts pages: the Overview, one SectionPage per
// section of the pattern registry, the Audit log. Everything it shows comes
// from the monitor's snapshots (objects, history, attention, connection
// state); what it sends the monitor are commands (refresh, cancel discovery,
// the watched objects). An action a page builds is confirmed
// (ConfirmActionDialog: exactly what will run) and run by the actions engine.
// The backend objects are injected; the window never opens a socket.
class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    struct Options
    {
        bool readOnly = false;
        bool demo = false;
        // The connection's history file (HistoryStore::fileFor): every tick
        // is written to it and the charts read their longer ranges from it.
        // Empty: no history kept (--no-history).
        QString historyFile;
        HistoryStore::Options historyOptions; // horizons and cap (--history-full, ...)
    };

    MainWindow(RedisClient *client, Monitor *monitor, ActionEngine *actions, Options options,
               QWidget *parent = nullptr);
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
    // The Alerts page, its badge on the side list ("Alerts (2)") and desktop
    // notifications of firings and resolutions (DesktopNotifier); the
    // engine evaluates every tick of the monitor. Its rules are saved with
    // profile.
    void setAlerts(AlertEngine *engine, const Profile &profile);
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

Q_SIGNALS:
    void actionFinished(const QString &message);
    // File > Connect…: the application opens the connection dialog.
    void connectRequested();

private:
    void addPage(QWidget *page, const QString &title);
    void onSnapshot(const Snapshot &snapshot);
    void onTimer();
    void updateSideList();
    // A section's object (its page, selected), or a node's row on the Nodes page.
    void openObject(const QString &section, const QByteArray &key);
    void showConnection(const ConnectionStatus &status);
    // Authentication and TLS failures do not heal by waiting, and an action
    // whose outcome is unknown must not pass by in the status bar: a banner
    // over the pages says what happened and what to try.
    // Connection: it cannot be made (credentials, TLS); Offline: it was
    // there and is not now; Action: an outcome the operator must see.
    enum class BannerKind { None, Connection, Offline, Action, World };
    void showBanner(BannerKind kind, const QString &title, const QString &message,
                    const QString &advice);
    void showOutcome(const ActionOutcome &outcome, const QString &action);
    void showMessage(const QString &text, int timeoutMs = 8000);
    // The selected objects of every page: the monitor reads the latest in
    // detail and publishes their history.
    void watchSelection(const QByteArray &latest);
    // Confirmation (exact script, KEYS, ARGV), then run; the outcome goes to
    // the status bar and, when unknown, a banner.
    void act(const ScriptCall &call);
    void actOnEach(const QList<ScriptCall> &calls);
    // After the count of what matches now (MatchCount), if any was read.
    void confirmAndRun(const ScriptCall &call, const QString &matchNow);
    void confirmAndRunEach(const QList<ScriptCall> &calls, const QString &matchNow);
    static QString itemsOf(const QList<ScriptCall> &calls);
    qint64 serverNowMs() const; // the desktop's clock plus the server's offset
    void runEach(const QList<ScriptCall> &calls, qsizetype next, const QStringList &done,
                 const QStringList &notDone);

    RedisClient *m_client;
    Monitor *m_monitor;
    ActionEngine *m_actions;
    // Library queues' job lists, read on demand over the window's connection.
    JobBrowser *m_jobBrowser;
    Options m_options;
    std::shared_ptr<const Snapshot> m_snapshot;
    SectionTallier m_tallier;  // the side list's counts, snapshot to snapshot
    WorldNotice m_worldNotice; // a restart or master switch, until dismissed
    // Writes on its own thread; shared with the monitor thread's tick
    // handler (a weak reference), so closing never races a tick.
    std::shared_ptr<HistoryStore> m_history;
    QString m_lastOutcome;

    QListWidget *m_pages;
    QStackedWidget *m_stack;
    OverviewPage *m_overview = nullptr;
    QList<SectionPage *> m_sectionPages;
    AuditPage *m_audit = nullptr;
    NodesPage *m_nodesPage = nullptr;
    AlertsPage *m_alertsPage = nullptr;
    UnconfirmedPage *m_unconfirmed = nullptr;
    OtherKeysPage *m_otherKeys = nullptr;

    QLabel *m_stateLabel;
    QWidget *m_banner = nullptr;
    QLabel *m_bannerText = nullptr;
    QPushButton *m_bannerConnect = nullptr;
    QPushButton *m_bannerDismiss = nullptr;
    BannerKind m_bannerKind = BannerKind::None;
    ConnectionStatus m_connection; // as last shown
    QString m_stateMessage;        // the connection sentence in the status bar, if any
    QLabel *m_serverLabel;
    QLabel *m_eventsLabel;
    QLabel *m_ageLabel;
    QLabel *m_offsetLabel;
    QProgressBar *m_discoveryBar;
    QToolButton *m_cancelDiscovery;
    QTimer m_timer; // replots and the age of the last reading, never per sample
    bool m_dirty = false;
    bool m_everReady = false; // a handshake succeeded: the figures are readings
    bool m_offline = false;   // not connected now: pages greyed, actions disabled
};

} // namespace gatehouse
