// SPDX-License-Identifier: MIT
#pragma once

#include <alerts/alertrule.h>
#include <environment.h>
#include <history/historystore.h>
#include <monitor/profile.h>
#include <redis/redisendpoint.h>

#include <QObject>
#include <QString>

#include <memory>
#include <optional>
#include <vector>

class QThread;

namespace gatehouse {

class DemoServer;
class DeploymentsOverview;
class MetricsEndpoint;

// "gatehouse: <message>" on stderr and, with a display, in a message box.
void reportFatal(const QString &message);

// Every deployment the console has open, a window each, and what runs each
// one: its Deployment (client and monitor on the monitor thread, actions,
// history) and its alerts. Opens one from the command line (start) or the Connect dialog
// (askForConnection), replaces one when its window connects elsewhere, and
// lets one go when its window closes while others are open. Each is fed to
// All Deployments and the metrics endpoint.
class Consoles : public QObject
{
    Q_OBJECT
public:
    // What the command line set for every console.
    struct Options
    {
        bool readOnly = false; // --read-only: the Connect dialog's flag adds to it
        int intervalMs = 1000;
        double budgetPercent = 2;
        int demoScale = 1;
        bool keepHistory = true; // not --no-history
        QString historyDir;      // --history-dir, or the default directory
        HistoryStore::Options historyOptions;
        int quitAfterS = -1; // --quit-after; -1: run until quit
        Environment environment;
        std::optional<Profile> profile; // --profile, or the demo's
        QString profileName;            // as the Connect dialog names it
    };

    Consoles(Options options, QThread *monitorThread, DemoServer *demo,
             DeploymentsOverview *overview, MetricsEndpoint *metrics, QObject *parent = nullptr);
    ~Consoles() override;

    // Opens a window on ep (a new one: into null), marked with name when
    // given (--deployment NAME=URL: its environment label too); demo: the
    // simulator runs against it.
    void start(const RedisEndpoint &ep, bool demo, const QString &name = QString());
    // The Connect dialog for one more window; cancelled with nothing open,
    // the application ends.
    void askForConnection() { ask(nullptr); }
    // Stops every console (traffic and readings) before the servers go.
    void closeAll();

private:
    struct Console;
    Console &startConsole(const RedisEndpoint &ep, bool demoConsole, Console *into,
                          const QString &name);
    // startConsole's parts, in the order it runs them. describeConsole:
    // its name, and the settings the Connect dialog opens with.
    void describeConsole(Console &console, const RedisEndpoint &ep, const QString &name);
    // With no profile in use, loads ep's own if one is saved (a problem
    // reading it in *ownProblem); returns the file ep's own is kept in,
    // empty when a profile was in use.
    QString loadOwnProfile(const RedisEndpoint &ep, QString *ownProblem);
    // Its connection, monitor, history, actions and the demo's traffic.
    void buildDeployment(Console &console, const RedisEndpoint &ep, bool demoConsole);
    void buildWindow(Console &console, bool demoConsole);
    // The window's requests, its row in All Deployments, and its closing.
    void connectWindow(Console &console);
    void addToMetrics(Console &console);
    void setUpAlerts(Console &console, const QString &ownProfile);
    // Shows the window and starts the clients, the monitor and the simulator.
    void openConsole(Console &console, const QString &ownProblem);
    // The Connect dialog for target's window (replacing its connection), or
    // for one more (target null).
    void ask(Console *target);
    Console *consoleOf(int overviewId) const;

    Options m_options;         // the dialog changes read-only, interval, profile, environment
    const bool m_readOnlyFlag; // the command line's --read-only: every console's
    QThread *m_monitorThread;
    DemoServer *m_demo;
    DeploymentsOverview *m_overview;
    MetricsEndpoint *m_metrics;
    QList<AlertRule> m_alertRules; // edited in a window: they outlive a reconnection
    // The first is the one the command line or the first Connect dialog named.
    std::vector<std::unique_ptr<Console>> m_consoles;
    bool m_quitTimerSet = false;
};

} // namespace gatehouse
