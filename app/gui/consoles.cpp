// SPDX-License-Identifier: MIT
#include "consoles.h"

#include <alerts/builtinalerts.h>
#include <alertspage.h>
#include <connectiondialog.h>
#include <deployment/deployment.h>
#include <deploymentsoverview.h>
#include <mainwindow.h>
#include <monitor/monitor.h>
#include <sim/demoserver.h>
#include <statusdetails.h>
#include <unconfirmedpage.h>

#include "metricsendpoint.h"

#include <QApplication>
#include <QDebug>
#include <QDir>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>
#include <QStatusBar>
#include <QTextStream>
#include <QThread>
#include <QTimer>

#include <algorithm>

namespace gatehouse {

namespace {

// Calls onClose when watched's window is closed (the application then lets
// that console go, if others are open).
class CloseWatch : public QObject
{
public:
    CloseWatch(QObject *watched, std::function<void()> onClose)
        : QObject(watched)
        , m_onClose(std::move(onClose))
    {
        watched->installEventFilter(this);
    }
    bool eventFilter(QObject *, QEvent *event) override
    {
        // Later, and not in the window's name: onClose may delete the window.
        if (event->type() == QEvent::Close)
            QTimer::singleShot(0, QCoreApplication::instance(), m_onClose);
        return false;
    }

private:
    std::function<void()> m_onClose;
};

} // namespace

void reportFatal(const QString &message)
{
    QTextStream(stderr) << "gatehouse: " << message << Qt::endl;
    if (QGuiApplication::platformName() != QLatin1String("offscreen"))
        QMessageBox::critical(nullptr, QStringLiteral("Gatehouse"), message);
}

// One connection's console: its deployment (the monitor, with its client and
// the demo's traffic, on the monitor thread, so a tick of tens of thousands
// of objects never stalls the window; the actions, the window's reads and
// the alerts on the GUI thread, where their outcomes are shown) and its
// window.
struct Consoles::Console
{
    ~Console() { teardown(); }

    // The window first: it shows what the deployment reads.
    void teardown()
    {
        window.reset();
        deployment.reset();
    }
    Monitor *monitor() const { return deployment ? deployment->monitor() : nullptr; }

    ConnectionSettings settings; // what the Connect dialog opens with
    QString name;                // --deployment NAME, or the URL
    bool named = false;          // opened by --deployment NAME=URL
    int overviewId = 0;          // its row in All Deployments; 0: none yet
    std::unique_ptr<Deployment> deployment;
    std::unique_ptr<MainWindow> window;
};

Consoles::Consoles(Options options, QThread *monitorThread, DemoServer *demo,
                   DeploymentsOverview *overview, MetricsEndpoint *metrics, QObject *parent)
    : QObject(parent)
    , m_options(std::move(options))
    , m_readOnlyFlag(m_options.readOnly)
    , m_monitorThread(monitorThread)
    , m_demo(demo)
    , m_overview(overview)
    , m_metrics(metrics)
    , m_alertRules(m_options.profile ? m_options.profile->alerts : builtInAlertRules())
{
    connect(m_overview, &DeploymentsOverview::openRequested, this,
            [this](int id, const QString &section, const QByteArray &key) {
                Console *c = consoleOf(id);
                if (!c || !c->window)
                    return;
                c->window->showNormal();
                c->window->raise();
                c->window->activateWindow();
                if (!section.isEmpty())
                    c->window->openObject(section, key);
            });
}

Consoles::~Consoles()
{
    closeAll();
}

void Consoles::closeAll()
{
    m_consoles.clear(); // each tears itself down
}

Consoles::Console *Consoles::consoleOf(int overviewId) const
{
    for (const auto &c : m_consoles) {
        if (c->overviewId == overviewId)
            return c.get();
    }
    return nullptr;
}

void Consoles::start(const RedisEndpoint &ep, bool demo, const QString &name)
{
    if (!name.isEmpty())
        m_options.environment = Environment::named(name);
    startConsole(ep, demo, nullptr, name);
}

Consoles::Console &Consoles::startConsole(const RedisEndpoint &ep, bool demoConsole, Console *into,
                                          const QString &name)
{
    if (!into) {
        m_consoles.push_back(std::make_unique<Console>());
        into = m_consoles.back().get();
    }
    Console &console = *into;
    m_metrics->remove(console.deployment.get());
    console.teardown();
    describeConsole(console, ep, name);
    QString ownProblem;
    const QString ownProfile = loadOwnProfile(ep, &ownProblem);
    buildDeployment(console, ep, demoConsole);
    buildWindow(console, demoConsole);
    connectWindow(console);
    addToMetrics(console);
    setUpAlerts(console, ownProfile);
    openConsole(console, ownProblem);
    return console;
}

void Consoles::describeConsole(Console &console, const RedisEndpoint &ep, const QString &name)
{
    console.named = !name.isEmpty();
    console.name = console.named ? name : ep.displayUrl();
    ConnectionSettings &current = console.settings;
    current = ConnectionSettings();
    current.url = ep.displayUrl(); // with the user, never the password
    current.readOnly = m_options.readOnly;
    current.intervalMs = m_options.intervalMs;
    current.readFromReplicas = ep.readFromReplicas;
    current.profile = m_options.profile ? m_options.profileName : QString();
    current.environment = m_options.environment;
}

QString Consoles::loadOwnProfile(const RedisEndpoint &ep, QString *ownProblem)
{
    // Without --profile: this deployment's own profile, the verdicts and
    // alert rules given in earlier runs (read once, small and bounded,
    // before the window shows).
    const QString ownProfile = m_options.profile ? QString() : Profile::connectionFile(ep);
    if (!ownProfile.isEmpty() && QFileInfo::exists(ownProfile)) {
        m_options.profile = Profile::load(ownProfile, ownProblem);
        if (m_options.profile) {
            m_options.profile->autodetect = true; // it refines autodetection, never replaces it
            m_alertRules = m_options.profile->alerts;
            qInfo().noquote() << QStringLiteral("gatehouse: this connection's verdicts and "
                                                "alert rules are in %1")
                                     .arg(QDir::toNativeSeparators(ownProfile));
        } else {
            *ownProblem = QObject::tr("This connection's saved profile could not be read, so "
                                      "autodetection runs without its verdicts: %1")
                              .arg(*ownProblem);
            qWarning().noquote() << *ownProblem;
        }
    }
    return ownProfile;
}

void Consoles::buildDeployment(Console &console, const RedisEndpoint &ep, bool demoConsole)
{
    Deployment::Options options;
    options.endpoint = ep;
    options.monitor.profile = m_options.profile;
    options.monitor.intervalMs = m_options.intervalMs;
    options.monitor.budgetPercent = m_options.budgetPercent;
    // The demo's server is new each time: nothing to keep.
    if (!demoConsole && m_options.keepHistory)
        options.historyFile = HistoryStore::fileFor(ep, m_options.historyDir);
    options.historyOptions = m_options.historyOptions;
    // The window opens at once and says why while the first connection
    // is retried (a server still starting, a typo to fix in File > Connect).
    options.retryFirstConnection = true;
    options.thread = m_monitorThread;
    if (demoConsole) {
        Simulator::Options sim;
        sim.scale = std::max(1, m_options.demoScale);
        sim.seconds = 0; // until quit
        options.demoTraffic = sim;
    }
    options.actions = true;
    options.readOnly = m_options.readOnly;
    options.alerts = m_alertRules;
    console.deployment = std::make_unique<Deployment>(std::move(options));
}

void Consoles::buildWindow(Console &console, bool demoConsole)
{
    MainWindow::Options windowOptions;
    windowOptions.readOnly = m_options.readOnly;
    windowOptions.demo = demoConsole;
    windowOptions.environment = m_options.environment;
    console.window = std::make_unique<MainWindow>(console.deployment.get(), windowOptions);
}

void Consoles::connectWindow(Console &console)
{
    Console *into = &console;
    connect(console.window.get(), &MainWindow::connectRequested, this,
            [this, into] { QTimer::singleShot(0, this, [this, into] { ask(into); }); });
    connect(console.window.get(), &MainWindow::connectAnotherRequested, this,
            [this] { QTimer::singleShot(0, this, [this] { ask(nullptr); }); });
    // Its row in All Deployments, fed every snapshot its window gets.
    m_overview->removeDeployment(console.overviewId);
    console.overviewId = m_overview->addDeployment(console.name, m_options.environment);
    QObject::connect(console.deployment.get(), &Deployment::snapshotReady, m_overview,
                     [overview = m_overview, id = console.overviewId](const Snapshot &s) {
                         overview->setSnapshot(id, s);
                     });
    QObject::connect(console.window.get(), &MainWindow::allDeploymentsRequested, m_overview,
                     [overview = m_overview] {
                         overview->show();
                         overview->raise();
                         overview->activateWindow();
                     });
    // A window closed while others are open lets its deployment go.
    new CloseWatch(console.window.get(), [this, into] {
        const bool open = std::any_of(m_consoles.cbegin(), m_consoles.cend(),
                                      [into](const auto &c) { return c.get() == into; });
        if (!open || m_consoles.size() < 2 || !into->window || into->window->isVisible())
            return;
        m_overview->removeDeployment(into->overviewId);
        m_metrics->remove(into->deployment.get());
        into->teardown();
        m_consoles.erase(std::remove_if(m_consoles.begin(), m_consoles.end(),
                                        [into](const auto &c) { return c.get() == into; }),
                         m_consoles.end());
    });
}

void Consoles::addToMetrics(Console &console)
{
    // The metrics endpoint serves every open deployment.
    m_metrics->add(console.deployment.get(), console.name, console.named);
    console.window->viewMenu()->addAction(m_metrics->toggleAction());
    new StatusDetails(console.window->statusBar()); // owned by the status bar
    QMainWindow *window = console.window.get();
    QObject::connect(m_metrics, &MetricsEndpoint::failed, window,
                     [window](const QString &m) { window->statusBar()->showMessage(m); });
    QObject::connect(m_metrics, &MetricsEndpoint::serving, window, [window](const QString &url) {
        window->statusBar()->showMessage(QObject::tr("Serving metrics at %1").arg(url), 8000);
    });
    m_metrics->startIfEnabled();
}

void Consoles::setUpAlerts(Console &console, const QString &ownProfile)
{
    // Rules edited in the console outlive a reconnection.
    Profile alertProfile = m_options.profile.value_or(Profile());
    if (!m_options.profile && !ownProfile.isEmpty()) // what is saved goes to this connection's file
        alertProfile.fileName = ownProfile;
    alertProfile.alerts = m_alertRules;
    console.window->setAlerts(alertProfile);
    connect(console.window->alertsPage(), &AlertsPage::rulesEdited, this,
            [this](const QList<AlertRule> &rules) { m_alertRules = rules; });
    // Verdicts on autodetection's candidates outlive a reconnection too.
    console.window->unconfirmedPage()->setProfile(
        alertProfile, !m_options.profile || m_options.profile->autodetect);
    connect(console.window->unconfirmedPage(), &UnconfirmedPage::profileChanged, this,
            [this](const Profile &p) { m_options.profile = p; });
}

void Consoles::openConsole(Console &console, const QString &ownProblem)
{
    console.window->show();
    if (!ownProblem.isEmpty())
        console.window->statusBar()->showMessage(ownProblem);
    console.deployment->start();
    if (m_options.quitAfterS >= 0 && !m_quitTimerSet) {
        m_quitTimerSet = true;
        QTimer::singleShot(m_options.quitAfterS * 1000, QCoreApplication::instance(),
                           &QCoreApplication::quit);
    }
}

// No address on the command line, File > Connect… or File > Open Another
// Deployment…: the connection dialog (saved and recent connections,
// passwords from the keychain).
void Consoles::ask(Console *target)
{
    ConnectionDialog dialog; // no parent: the window it came from may be replaced
    if (target && target->window) {
        dialog.setSettings(target->settings);
    } else if (m_consoles.empty()
               && m_options.environment.isSet()) { // --environment without an address
        ConnectionSettings marked;
        marked.environment = m_options.environment;
        dialog.setSettings(marked);
    }
    if (dialog.exec() != QDialog::Accepted) {
        if (m_consoles.empty())
            QCoreApplication::exit(0);
        return;
    }
    const ConnectionSettings chosen = dialog.settings();
    QString problem;
    if (!chosen.profile.isEmpty()) {
        m_options.profile = Profile::load(chosen.profile, &problem);
        if (!m_options.profile) {
            reportFatal(problem);
            return;
        }
    } else {
        m_options.profile.reset();
    }
    m_alertRules = m_options.profile ? m_options.profile->alerts : builtInAlertRules();
    m_options.readOnly = chosen.readOnly || m_readOnlyFlag;
    m_options.intervalMs = chosen.intervalMs;
    const auto ep = dialog.endpoint(&problem);
    if (!ep)
        return;
    // Back to the demo's own server: the demo goes on (simulator, its
    // profile unless another was chosen, the DEMO badge).
    const DemoServer::Console next = m_demo->consoleFor(*ep, chosen.profile);
    m_options.profileName = next.profile;
    if (next.profile != chosen.profile)
        m_options.profile = Profile::load(next.profile, &problem);
    m_options.environment = chosen.environment;
    // One simulator at most: another window on the demo's server only watches.
    const bool simulate = next.demo && (target || m_consoles.empty());
    Console &started = startConsole(*ep, simulate, target, QString());
    started.settings = chosen; // as typed: TLS files and all, for the next reconnect
    started.settings.profile = m_options.profile ? m_options.profileName : QString();
    if (m_consoles.size() > 1)
        started.window->showMessage(
            QObject::tr("%n deployment(s) open: View > All Deployments (Ctrl+Shift+D) shows "
                        "them side by side.",
                        nullptr, int(m_consoles.size())));
}

} // namespace gatehouse
