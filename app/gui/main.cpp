// SPDX-License-Identifier: MIT
// gatehouse: the desktop console. Parses the command line and wires the
// backend (client, monitor, actions, simulator for --demo) to the window.

#include "metricsendpoint.h"

#include <actions/actionengine.h>
#include <alerts/alertengine.h>
#include <alerts/builtinalerts.h>
#include <alertspage.h>
#include <connectiondialog.h>
#include <deploymentsoverview.h>
#include <englishplurals.h>
#include <environment.h>
#include <history/historystore.h>
#include <mainwindow.h>
#include <metrics/metricsserver.h>
#include <monitor/monitor.h>
#include <redis/endpointoptions.h>
#include <redis/redisclient.h>
#include <sim/demoserver.h>
#include <sim/simulator.h>
#include <statusdetails.h>
#include <theme.h>
#include <unconfirmedpage.h>

#include <QAction>
#include <QApplication>
#include <QCommandLineParser>
#include <QDebug>
#include <QDir>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>
#include <QSettings>
#include <QStatusBar>
#include <QTextStream>
#include <QThread>
#include <QTimer>

#include <QSocketNotifier>

#include <algorithm>
#include <csignal>
#include <memory>

#include <sys/socket.h>
#include <unistd.h>

using namespace gatehouse;

namespace {

int s_signalPipe[2] = {-1, -1};

void onQuitSignal(int)
{
    const char c = 1;
    [[maybe_unused]] const ssize_t n = ::write(s_signalPipe[0], &c, 1); // async-signal-safe
}

// SIGINT and SIGTERM quit like File > Quit: the monitor stops, and --demo's
// private redis-server is stopped and its directory removed.
void quitOnSignals(QCoreApplication *app)
{
    if (::socketpair(AF_UNIX, SOCK_STREAM, 0, s_signalPipe) != 0)
        return;
    auto *notifier = new QSocketNotifier(s_signalPipe[1], QSocketNotifier::Read, app);
    QObject::connect(notifier, &QSocketNotifier::activated, app, [] {
        char c = 0;
        [[maybe_unused]] const ssize_t n = ::read(s_signalPipe[1], &c, 1);
        QCoreApplication::quit();
    });
    struct sigaction action = {};
    action.sa_handler = onQuitSignal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
}

// One connection's console. The monitor (with its client, and the demo's
// simulator) runs on a thread of its own, so a tick of tens of thousands of
// objects never stalls the window; actions use a second client on the GUI
// thread, where their outcomes are shown.
struct Console
{
    explicit Console(QThread *thread)
        : monitorThread(thread)
    {
        anchor.moveToThread(thread);
    }
    ~Console() { teardown(); }

    void teardown()
    {
        window.reset();
        alerts.reset();
        actions.reset();
        actionsClient.reset();
        if (!monitor && !client)
            return;
        // Deleted on their own thread, before the server they watch goes away.
        QMetaObject::invokeMethod(
            &anchor,
            [this] {
                simulator.reset();
                monitor.reset();
                client.reset();
            },
            Qt::BlockingQueuedConnection);
    }

    QThread *monitorThread;
    ConnectionSettings settings;          // what the Connect dialog opens with
    QString name;                         // --deployment NAME, or the URL
    bool named = false;                   // opened by --deployment NAME=URL
    int overviewId = 0;                   // its row in All Deployments; 0: none yet
    QObject anchor;                       // lives on the monitor thread: the context for teardown
    std::unique_ptr<RedisClient> client;  // monitor thread
    std::unique_ptr<Monitor> monitor;     // monitor thread
    std::unique_ptr<Simulator> simulator; // monitor thread
    std::unique_ptr<RedisClient> actionsClient; // GUI thread
    std::unique_ptr<ActionEngine> actions;
    std::unique_ptr<AlertEngine> alerts; // GUI thread
    std::unique_ptr<MainWindow> window;
};

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

void fatal(const QString &message)
{
    QTextStream(stderr) << "gatehouse: " << message << Qt::endl;
    if (QGuiApplication::platformName() != QLatin1String("offscreen"))
        QMessageBox::critical(nullptr, QStringLiteral("Gatehouse"), message);
}

// --help and --version print and quit: they need no display, and a
// QApplication without one aborts, so they get a QCoreApplication.
bool answersWithoutDisplay(int argc, char *argv[])
{
    for (int i = 1; i < argc; ++i) {
        const QByteArray arg(argv[i]);
        if (arg == "-h" || arg == "--help" || arg == "-?" || arg == "--help-all" || arg == "-v"
            || arg == "--version")
            return true;
    }
    return false;
}

} // namespace

int main(int argc, char *argv[])
{
    const std::unique_ptr<QCoreApplication> application(answersWithoutDisplay(argc, argv)
                                                            ? new QCoreApplication(argc, argv)
                                                            : new QApplication(argc, argv));
    QCoreApplication &app = *application;
    QCoreApplication::installTranslator(new EnglishPlurals(&app));
    quitOnSignals(&app);
    QApplication::setApplicationName(QStringLiteral("gatehouse"));
    QApplication::setApplicationDisplayName(QStringLiteral("Gatehouse"));
    QApplication::setOrganizationName(QStringLiteral("Gatehouse"));
    QApplication::setApplicationVersion(QStringLiteral(GATEHOUSE_VERSION));
    QApplication::setDesktopFileName(QStringLiteral("gatehouse"));

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Operator console for Redis-based limiters, locks, tokens and queues."));
    parser.addHelpOption();
    parser.addVersionOption();
    const EndpointOptions endpointOptions;
    endpointOptions.addTo(parser);
    const QCommandLineOption profileOption(QStringLiteral("profile"),
                                           QStringLiteral("A profile file or a built-in name."),
                                           QStringLiteral("FILE|NAME"));
    const QCommandLineOption readOnly(QStringLiteral("read-only"),
                                      QStringLiteral("Disable every action."));
    const QCommandLineOption demo(QStringLiteral("demo"),
                                  QStringLiteral("Start a private redis-server with simulated "
                                                 "traffic and watch it."));
    const QCommandLineOption scale(QStringLiteral("scale"),
                                   QStringLiteral("--demo: simulator scale (default 1)."),
                                   QStringLiteral("K"), QStringLiteral("1"));
    const QCommandLineOption interval(QStringLiteral("interval"),
                                      QStringLiteral("Refresh interval in ms (default 1000)."),
                                      QStringLiteral("MS"), QStringLiteral("1000"));
    const QCommandLineOption quitAfter(QStringLiteral("quit-after"),
                                       QStringLiteral("Seconds to run, then quit."),
                                       QStringLiteral("S"), QStringLiteral("8"));
    const QCommandLineOption budget(
        QStringLiteral("refresh-budget"),
        QStringLiteral("Without keyspace events, refresh within PCT % of one server core "
                       "(default 2; 0 reads every object every interval)."),
        QStringLiteral("PCT"), QStringLiteral("2"));
    const QCommandLineOption noHistory(QStringLiteral("no-history"),
                                       QStringLiteral("Keep no history file for the connection."));
    const QCommandLineOption historyDir(
        QStringLiteral("history-dir"),
        QStringLiteral("The directory of history files (default: the user's data directory, "
                       "or $GATEHOUSE_HISTORY_DIR)."),
        QStringLiteral("DIR"));
    const QCommandLineOption historyFull(
        QStringLiteral("history-full"),
        QStringLiteral("Keep every sample in the history file for this long (default 24h)."),
        QStringLiteral("DURATION"));
    const QCommandLineOption historyKeep(
        QStringLiteral("history-keep"),
        QStringLiteral("Keep one-minute buckets in the history file for this long (default "
                       "30d)."),
        QStringLiteral("DURATION"));
    const QCommandLineOption historyCap(
        QStringLiteral("history-cap"),
        QStringLiteral("The most the history file may take, oldest dropped first (default "
                       "1GiB)."),
        QStringLiteral("SIZE"));
    const QCommandLineOption metrics(
        QStringLiteral("metrics"),
        QStringLiteral("Serve every live figure to Prometheus at http://HOST:PORT/metrics "
                       "(loopback, e.g. 127.0.0.1:9187; View > Serve metrics turns it off)."),
        QStringLiteral("HOST:PORT"));
    const QCommandLineOption paletteOption(
        QStringLiteral("palette"),
        QStringLiteral("light or dark (default: whichever the desktop's colours are closer to)."),
        QStringLiteral("light|dark"));
    const QCommandLineOption environmentOption(
        QStringLiteral("environment"),
        QStringLiteral("Mark the connection as LABEL (production, staging, ...): shown in the "
                       "title, the status bar and every confirmation; on production (a label "
                       "starting with \"prod\") each action runs only once LABEL is typed."),
        QStringLiteral("LABEL"));
    const QCommandLineOption deploymentOption(
        QStringLiteral("deployment"),
        QStringLiteral("Open a window on this deployment, as NAME=URL; repeat for each, in place "
                       "of --url. NAME marks the window as --environment NAME would (a NAME "
                       "starting with \"prod\" must be typed before each action), and labels "
                       "its --metrics samples deployment=\"NAME\"."),
        QStringLiteral("NAME=URL"));
    const QCommandLineOption environmentColourOption(
        QStringLiteral("environment-colour"),
        QStringLiteral("The environment's colour: red, amber, green, blue or grey (default: red "
                       "for production, amber for staging, green for development, else grey)."),
        QStringLiteral("COLOUR"));
    parser.addOptions({profileOption, readOnly, demo, scale, interval, budget, quitAfter, noHistory,
                       historyDir, historyFull, historyKeep, historyCap, metrics, paletteOption,
                       environmentOption, environmentColourOption, deploymentOption});
    parser.process(app);
    if (parser.isSet(paletteOption)) {
        const std::optional<theme::Scheme> scheme
            = theme::schemeFromName(parser.value(paletteOption));
        if (!scheme) {
            fatal(QStringLiteral("--palette %1: not a palette; use --palette light or --palette "
                                 "dark.")
                      .arg(parser.value(paletteOption)));
            return 2;
        }
        theme::apply(*scheme);
    } else if (const std::optional<theme::Scheme> chosen = theme::schemeFromName(
                   QSettings().value(QLatin1String(theme::SettingsKey)).toString())) {
        theme::apply(*chosen); // the one last chosen in View > Palette
    } else {
        // The console's own palettes (tested for contrast), light or dark
        // as the desktop is.
        theme::apply(theme::schemeOf(QApplication::palette()));
    }

    // The environment of a console started with an address (the Connect
    // dialog's replaces it for the connections chosen there).
    Environment environment = Environment::named(parser.value(environmentOption).trimmed());
    if (parser.isSet(environmentColourOption)) {
        const auto colour = Environment::colourFromName(parser.value(environmentColourOption));
        if (!colour || !environment.isSet()) {
            fatal(!colour ? QStringLiteral("--environment-colour %1: not a colour; use one of %2.")
                                .arg(parser.value(environmentColourOption),
                                     Environment::colourNames().join(QStringLiteral(", ")))
                          : QStringLiteral("--environment-colour needs --environment LABEL."));
            return 2;
        }
        environment.colour = *colour;
    }

    QString error;
    const std::optional<HistoryStore::Options> historyOptions = HistoryStore::Options::fromText(
        parser.value(historyFull), parser.value(historyKeep), parser.value(historyCap), &error);
    if (!historyOptions) {
        fatal(error);
        return 2;
    }
    std::optional<Profile> profile;
    if (parser.isSet(profileOption) || parser.isSet(demo)) {
        profile = Profile::load(parser.isSet(profileOption) ? parser.value(profileOption)
                                                            : QStringLiteral("demo"),
                                &error);
        if (!profile) {
            fatal(error);
            return 2;
        }
    }
    std::optional<RedisEndpoint> endpoint;
    bool addressGiven = false;
    for (const char *name : {"url", "host", "port", "socket"})
        addressGiven |= parser.isSet(QLatin1String(name));
    if (!parser.isSet(demo) && addressGiven) {
        endpoint = endpointOptions.endpoint(parser, &error);
        if (!endpoint) {
            fatal(error);
            return 2;
        }
    }
    // --deployment NAME=URL, each a window marked NAME.
    QList<EndpointOptions::Named> deployments;
    if (parser.isSet(deploymentOption)) {
        const char *clash = parser.isSet(demo)                      ? "--demo"
                            : parser.isSet(environmentOption)       ? "--environment"
                            : parser.isSet(environmentColourOption) ? "--environment-colour"
                                                                    : nullptr;
        if (clash) {
            fatal(QStringLiteral("%1 cannot be combined with --deployment: each deployment's "
                                 "window is marked with its NAME (name one prod-eu=URL to have "
                                 "its actions confirmed by typing it).")
                      .arg(QLatin1String(clash)));
            return 2;
        }
        const auto named
            = endpointOptions.namedEndpoints(parser, parser.values(deploymentOption), &error);
        if (!named) {
            fatal(error);
            return 2;
        }
        deployments = *named;
    }

    MetricsEndpoint metricsEndpoint;
    if (parser.isSet(metrics)) {
        const QString address = parser.value(metrics);
        const auto parsed = MetricsServer::parseAddress(address, &error);
        if (parsed && !MetricsServer::isLoopback(parsed->host))
            error = QStringLiteral("--metrics %1 is not a loopback address: the console serves "
                                   "its figures (key names included) on loopback only; use "
                                   "gatehouse-cli serve --metrics-remote to publish them wider.")
                        .arg(address);
        if (!parsed || !error.isEmpty() || !metricsEndpoint.setAddress(address, &error)) {
            fatal(error);
            return 2;
        }
    }

    QThread monitorThread;
    monitorThread.setObjectName(QStringLiteral("gatehouse-monitor"));
    monitorThread.start();
    DemoServer demoServer;
    // Every open deployment, a window each; the first is the one the
    // command line or the first Connect dialog named.
    std::vector<std::unique_ptr<Console>> consoles;
    DeploymentsOverview overview;
    overview.setAttribute(Qt::WA_QuitOnClose, false);
    overview.resize(1100, 320);
    const auto consoleOf = [&](int overviewId) -> Console * {
        for (const auto &c : consoles) {
            if (c->overviewId == overviewId)
                return c.get();
        }
        return nullptr;
    };
    QObject::connect(&overview, &DeploymentsOverview::openRequested, &app,
                     [&](int id, const QString &section, const QByteArray &key) {
                         Console *c = consoleOf(id);
                         if (!c || !c->window)
                             return;
                         c->window->showNormal();
                         c->window->raise();
                         c->window->activateWindow();
                         if (!section.isEmpty())
                             c->window->openObject(section, key);
                     });
    bool readOnlyMode = parser.isSet(readOnly);
    int intervalMs = std::max(100, parser.value(interval).toInt());
    bool budgetOk = false;
    const double budgetPercent = parser.value(budget).toDouble(&budgetOk);
    if (!budgetOk || budgetPercent < 0 || budgetPercent > 100) {
        fatal(QStringLiteral("--refresh-budget must be a percentage from 0 to 100 (of one server "
                             "core), not \"%1\".")
                  .arg(parser.value(budget)));
        return 2;
    }
    std::function<void(Console *)> askForConnection; // null: one more window
    // The profile in use as the Connect dialog names it (a built-in name or
    // a file): it opens on that, not on "(autodetect)".
    QString profileName = !profile                      ? QString()
                          : parser.isSet(profileOption) ? parser.value(profileOption)
                                                        : QStringLiteral("demo");
    QList<AlertRule> alertRules = profile ? profile->alerts : builtInAlertRules();
    auto startConsole = [&](const RedisEndpoint &ep, bool demoConsole, Console *into,
                            const QString &name = QString()) -> Console & {
        if (!into) {
            consoles.push_back(std::make_unique<Console>(&monitorThread));
            into = consoles.back().get();
        }
        Console &console = *into;
        metricsEndpoint.remove(console.monitor.get());
        console.teardown();
        console.named = !name.isEmpty();
        console.name = console.named ? name : ep.displayUrl();
        ConnectionSettings &current = console.settings;
        current = ConnectionSettings();
        current.url = ep.displayUrl(); // with the user, never the password
        current.readOnly = readOnlyMode;
        current.intervalMs = intervalMs;
        current.readFromReplicas = ep.readFromReplicas;
        current.profile = profile ? profileName : QString();
        current.environment = environment;
        // The monitor's connection lives on the monitor thread with it: no
        // hop per round trip.
        console.client = std::make_unique<RedisClient>(ep, &monitorThread);
        // Without --profile: this deployment's own profile, the verdicts and
        // alert rules given in earlier runs (read once, small and bounded,
        // before the window shows).
        const QString ownProfile = profile ? QString() : Profile::connectionFile(ep);
        QString ownProblem;
        if (!ownProfile.isEmpty() && QFileInfo::exists(ownProfile)) {
            profile = Profile::load(ownProfile, &ownProblem);
            if (profile) {
                profile->autodetect = true; // it refines autodetection, never replaces it
                alertRules = profile->alerts;
                qInfo().noquote() << QStringLiteral("gatehouse: this connection's verdicts and "
                                                    "alert rules are in %1")
                                         .arg(QDir::toNativeSeparators(ownProfile));
            } else {
                ownProblem = QObject::tr("This connection's saved profile could not be read, so "
                                         "autodetection runs without its verdicts: %1")
                                 .arg(ownProblem);
                qWarning().noquote() << ownProblem;
            }
        }
        Monitor::Options options;
        options.profile = profile;
        options.intervalMs = intervalMs;
        options.budgetPercent = budgetPercent;
        console.monitor = std::make_unique<Monitor>(console.client.get(), options);
        if (demoConsole) {
            Simulator::Options sim;
            sim.scale = std::max(1, parser.value(scale).toInt());
            sim.seconds = 0; // until quit
            console.simulator = std::make_unique<Simulator>(console.client.get(), sim);
            console.simulator->moveToThread(&monitorThread);
        }
        console.client->moveToThread(&monitorThread);
        console.monitor->moveToThread(&monitorThread);
        // Actions always run on the master, whatever --read-from says.
        RedisEndpoint actionsEndpoint = ep;
        actionsEndpoint.readFromReplicas = false;
        console.actionsClient = std::make_unique<RedisClient>(actionsEndpoint);
        console.actions = std::make_unique<ActionEngine>(console.actionsClient.get());
        console.actions->setReadOnly(readOnlyMode);
        MainWindow::Options windowOptions;
        windowOptions.readOnly = readOnlyMode;
        windowOptions.demo = demoConsole;
        // The demo's server is new each time: nothing to keep.
        if (!demoConsole && !parser.isSet(noHistory))
            windowOptions.historyFile = HistoryStore::fileFor(
                ep, parser.isSet(historyDir) ? parser.value(historyDir)
                                             : HistoryStore::defaultDirectory());
        windowOptions.historyOptions = *historyOptions;
        windowOptions.environment = environment;
        console.window
            = std::make_unique<MainWindow>(console.actionsClient.get(), console.monitor.get(),
                                           console.actions.get(), windowOptions);
        QObject::connect(console.window.get(), &MainWindow::connectRequested, &app, [&, into] {
            QTimer::singleShot(0, &app, [&, into] { askForConnection(into); });
        });
        QObject::connect(console.window.get(), &MainWindow::connectAnotherRequested, &app,
                         [&] { QTimer::singleShot(0, &app, [&] { askForConnection(nullptr); }); });
        // Its row in All Deployments, fed every snapshot its window gets.
        overview.removeDeployment(console.overviewId);
        console.overviewId = overview.addDeployment(console.name, environment);
        QObject::connect(console.monitor.get(), &Monitor::snapshotReady, &overview,
                         [&overview, id = console.overviewId](const Snapshot &s) {
                             overview.setSnapshot(id, s);
                         });
        QObject::connect(console.window.get(), &MainWindow::allDeploymentsRequested, &overview,
                         [&overview] {
                             overview.show();
                             overview.raise();
                             overview.activateWindow();
                         });
        // A window closed while others are open lets its deployment go.
        new CloseWatch(console.window.get(), [&, into] {
            const bool open = std::any_of(consoles.cbegin(), consoles.cend(),
                                          [into](const auto &c) { return c.get() == into; });
            if (!open || consoles.size() < 2 || !into->window || into->window->isVisible())
                return;
            overview.removeDeployment(into->overviewId);
            metricsEndpoint.remove(into->monitor.get());
            into->teardown();
            consoles.erase(std::remove_if(consoles.begin(), consoles.end(),
                                          [into](const auto &c) { return c.get() == into; }),
                           consoles.end());
        });
        // The metrics endpoint serves every open deployment.
        metricsEndpoint.add(console.monitor.get(), console.name, console.named);
        console.window->viewMenu()->addAction(metricsEndpoint.toggleAction());
        new StatusDetails(console.window->statusBar()); // owned by the status bar
        QMainWindow *window = console.window.get();
        QObject::connect(&metricsEndpoint, &MetricsEndpoint::failed, window,
                         [window](const QString &m) { window->statusBar()->showMessage(m); });
        QObject::connect(&metricsEndpoint, &MetricsEndpoint::serving, window,
                         [window](const QString &url) {
                             window->statusBar()->showMessage(
                                 QObject::tr("Serving metrics at %1").arg(url), 8000);
                         });
        metricsEndpoint.startIfEnabled();
        // Rules edited in the console outlive a reconnection.
        Profile alertProfile = profile.value_or(Profile());
        if (!profile && !ownProfile.isEmpty()) // what is saved goes to this connection's file
            alertProfile.fileName = ownProfile;
        alertProfile.alerts = alertRules;
        console.alerts = std::make_unique<AlertEngine>();
        console.alerts->setRules(alertRules);
        console.window->setAlerts(console.alerts.get(), alertProfile);
        QObject::connect(console.window->alertsPage(), &AlertsPage::rulesEdited, &app,
                         [&](const QList<AlertRule> &rules) { alertRules = rules; });
        // Verdicts on autodetection's candidates outlive a reconnection too.
        console.window->unconfirmedPage()->setProfile(alertProfile,
                                                      !profile || profile->autodetect);
        QObject::connect(console.window->unconfirmedPage(), &UnconfirmedPage::profileChanged, &app,
                         [&](const Profile &p) { profile = p; });
        console.window->show();
        if (!ownProblem.isEmpty())
            console.window->statusBar()->showMessage(ownProblem);
        console.actionsClient->open();
        QMetaObject::invokeMethod(console.client.get(), &RedisClient::open);
        QMetaObject::invokeMethod(console.monitor.get(), &Monitor::start);
        if (console.simulator)
            QMetaObject::invokeMethod(console.simulator.get(), &Simulator::start);
        static bool quitTimerSet = false;
        if (parser.isSet(quitAfter) && !quitTimerSet) {
            quitTimerSet = true;
            QTimer::singleShot(parser.value(quitAfter).toInt() * 1000, &app,
                               &QCoreApplication::quit);
        }
        return console;
    };

    // No address on the command line: the connection dialog (saved and
    // recent connections, passwords from the keychain).
    askForConnection = [&](Console *target) {
        ConnectionDialog dialog; // no parent: the window it came from may be replaced
        if (target && target->window) {
            dialog.setSettings(target->settings);
        } else if (consoles.empty() && environment.isSet()) { // --environment without an address
            ConnectionSettings marked;
            marked.environment = environment;
            dialog.setSettings(marked);
        }
        if (dialog.exec() != QDialog::Accepted) {
            if (consoles.empty())
                QCoreApplication::exit(0);
            return;
        }
        const ConnectionSettings chosen = dialog.settings();
        QString problem;
        if (!chosen.profile.isEmpty()) {
            profile = Profile::load(chosen.profile, &problem);
            if (!profile) {
                fatal(problem);
                return;
            }
        } else {
            profile.reset();
        }
        alertRules = profile ? profile->alerts : builtInAlertRules();
        readOnlyMode = chosen.readOnly || parser.isSet(readOnly);
        intervalMs = chosen.intervalMs;
        const auto ep = dialog.endpoint(&problem);
        if (!ep)
            return;
        // Back to the demo's own server: the demo goes on (simulator, its
        // profile unless another was chosen, the DEMO badge).
        const DemoServer::Console next = demoServer.consoleFor(*ep, chosen.profile);
        profileName = next.profile;
        if (next.profile != chosen.profile)
            profile = Profile::load(next.profile, &problem);
        environment = chosen.environment;
        // One simulator at most: another window on the demo's server only watches.
        const bool simulate = next.demo && (target || consoles.empty());
        Console &started = startConsole(*ep, simulate, target);
        started.settings = chosen; // as typed: TLS files and all, for the next reconnect
        started.settings.profile = profile ? profileName : QString();
        if (consoles.size() > 1)
            started.window->showMessage(
                QObject::tr("%n deployment(s) open: View > All Deployments (Ctrl+Shift+D) shows "
                            "them side by side.",
                            nullptr, int(consoles.size())));
    };
    if (parser.isSet(demo)) {
        QObject::connect(&demoServer, &DemoServer::ready, &app,
                         [&] { startConsole(demoServer.endpoint(), true, nullptr); });
        QObject::connect(&demoServer, &DemoServer::failed, &app, [](const QString &message) {
            fatal(message);
            QCoreApplication::exit(1);
        });
        demoServer.start();
    } else if (!deployments.isEmpty()) {
        for (const EndpointOptions::Named &d : deployments) {
            environment = Environment::named(d.name);
            startConsole(d.endpoint, false, nullptr, d.name);
        }
    } else {
        if (endpoint)
            startConsole(*endpoint, false, nullptr);
        else
            QTimer::singleShot(0, &app, [&] { askForConnection(nullptr); });
    }
    const int code = app.exec();
    // Stop traffic and readings before the server goes away.
    overview.close();
    consoles.clear(); // each tears itself down
    monitorThread.quit();
    monitorThread.wait();
    demoServer.stop();
    return code;
}
