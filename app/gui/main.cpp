// SPDX-License-Identifier: MIT
// gatehouse: the desktop console. Parses the command line, then opens the
// consoles it names (Consoles: a window per deployment, and what runs it).

#include "consoles.h"
#include "metricsendpoint.h"

#include <deploymentsoverview.h>
#include <englishplurals.h>
#include <environment.h>
#include <history/historystore.h>
#include <metrics/metricsserver.h>
#include <monitor/profile.h>
#include <redis/endpointoptions.h>
#include <sim/demoserver.h>
#include <theme.h>

#include <QApplication>
#include <QCommandLineParser>
#include <QSettings>
#include <QSocketNotifier>
#include <QTextStream>
#include <QThread>
#include <QTimer>

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

void setUpApplication(QCoreApplication *app)
{
    QCoreApplication::installTranslator(new EnglishPlurals(app));
    quitOnSignals(app);
    QApplication::setApplicationName(QStringLiteral("gatehouse"));
    QApplication::setApplicationDisplayName(QStringLiteral("Gatehouse"));
    QApplication::setOrganizationName(QStringLiteral("Gatehouse"));
    QApplication::setApplicationVersion(QStringLiteral(GATEHOUSE_VERSION));
    QApplication::setDesktopFileName(QStringLiteral("gatehouse"));
}

// The command line: every option, declared to parser.
struct CommandLine
{
    CommandLine();

    QCommandLineParser parser;
    const EndpointOptions endpointOptions;
    const QCommandLineOption profileOption{QStringLiteral("profile"),
                                           QStringLiteral("A profile file or a built-in name."),
                                           QStringLiteral("FILE|NAME")};
    const QCommandLineOption readOnly{QStringLiteral("read-only"),
                                      QStringLiteral("Disable every action.")};
    const QCommandLineOption demo{QStringLiteral("demo"),
                                  QStringLiteral("Start a private redis-server with simulated "
                                                 "traffic and watch it.")};
    const QCommandLineOption scale{QStringLiteral("scale"),
                                   QStringLiteral("--demo: simulator scale (default 1)."),
                                   QStringLiteral("K"), QStringLiteral("1")};
    const QCommandLineOption interval{QStringLiteral("interval"),
                                      QStringLiteral("Refresh interval in ms (default 1000)."),
                                      QStringLiteral("MS"), QStringLiteral("1000")};
    const QCommandLineOption quitAfter{QStringLiteral("quit-after"),
                                       QStringLiteral("Seconds to run, then quit."),
                                       QStringLiteral("S"), QStringLiteral("8")};
    const QCommandLineOption budget{
        QStringLiteral("refresh-budget"),
        QStringLiteral("Without keyspace events, refresh within PCT % of one server core "
                       "(default 2; 0 reads every object every interval)."),
        QStringLiteral("PCT"), QStringLiteral("2")};
    const QCommandLineOption noHistory{QStringLiteral("no-history"),
                                       QStringLiteral("Keep no history file for the connection.")};
    const QCommandLineOption historyDir{
        QStringLiteral("history-dir"),
        QStringLiteral("The directory of history files (default: the user's data directory, "
                       "or $GATEHOUSE_HISTORY_DIR)."),
        QStringLiteral("DIR")};
    const QCommandLineOption historyFull{
        QStringLiteral("history-full"),
        QStringLiteral("Keep every sample in the history file for this long (default 24h)."),
        QStringLiteral("DURATION")};
    const QCommandLineOption historyKeep{
        QStringLiteral("history-keep"),
        QStringLiteral("Keep one-minute buckets in the history file for this long (default "
                       "30d)."),
        QStringLiteral("DURATION")};
    const QCommandLineOption historyCap{
        QStringLiteral("history-cap"),
        QStringLiteral("The most the history file may take, oldest dropped first (default "
                       "1GiB)."),
        QStringLiteral("SIZE")};
    const QCommandLineOption metrics{
        QStringLiteral("metrics"),
        QStringLiteral("Serve every live figure to Prometheus at http://HOST:PORT/metrics "
                       "(loopback, e.g. 127.0.0.1:9187; View > Serve metrics turns it off)."),
        QStringLiteral("HOST:PORT")};
    const QCommandLineOption paletteOption{
        QStringLiteral("palette"),
        QStringLiteral("light or dark (default: whichever the desktop's colours are closer to)."),
        QStringLiteral("light|dark")};
    const QCommandLineOption environmentOption{
        QStringLiteral("environment"),
        QStringLiteral("Mark the connection as LABEL (production, staging, ...): shown in the "
                       "title, the status bar and every confirmation; on production (a label "
                       "starting with \"prod\") each action runs only once LABEL is typed."),
        QStringLiteral("LABEL")};
    const QCommandLineOption deploymentOption{
        QStringLiteral("deployment"),
        QStringLiteral("Open a window on this deployment, as NAME=URL; repeat for each, in place "
                       "of --url. NAME marks the window as --environment NAME would (a NAME "
                       "starting with \"prod\" must be typed before each action), and labels "
                       "its --metrics samples deployment=\"NAME\"."),
        QStringLiteral("NAME=URL")};
    const QCommandLineOption environmentColourOption{
        QStringLiteral("environment-colour"),
        QStringLiteral("The environment's colour: red, amber, green, blue or grey (default: red "
                       "for production, amber for staging, green for development, else grey)."),
        QStringLiteral("COLOUR")};
};

CommandLine::CommandLine()
{
    parser.setApplicationDescription(
        QStringLiteral("Operator console for Redis-based limiters, locks, tokens and queues."));
    parser.addHelpOption();
    parser.addVersionOption();
    endpointOptions.addTo(parser);
    parser.addOptions({profileOption, readOnly, demo, scale, interval, budget, quitAfter, noHistory,
                       historyDir, historyFull, historyKeep, historyCap, metrics, paletteOption,
                       environmentOption, environmentColourOption, deploymentOption});
}

// What the command line asks to run, once read and checked.
struct Launch
{
    Consoles::Options options;
    std::optional<RedisEndpoint> endpoint;     // --url and the flags that refine it
    QList<EndpointOptions::Named> deployments; // --deployment NAME=URL, each a window marked NAME
};

// Each reader below reports a bad value (reportFatal) and returns false:
// main then exits with 2.

bool applyPalette(const CommandLine &cl)
{
    const QCommandLineParser &parser = cl.parser;
    if (parser.isSet(cl.paletteOption)) {
        const std::optional<theme::Scheme> scheme
            = theme::schemeFromName(parser.value(cl.paletteOption));
        if (!scheme) {
            reportFatal(
                QStringLiteral("--palette %1: not a palette; use --palette light or --palette "
                               "dark.")
                    .arg(parser.value(cl.paletteOption)));
            return false;
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
    return true;
}

bool readEnvironment(const CommandLine &cl, Consoles::Options *options)
{
    const QCommandLineParser &parser = cl.parser;
    // The environment of a console started with an address (the Connect
    // dialog's replaces it for the connections chosen there).
    Environment environment = Environment::named(parser.value(cl.environmentOption).trimmed());
    if (parser.isSet(cl.environmentColourOption)) {
        const auto colour = Environment::colourFromName(parser.value(cl.environmentColourOption));
        if (!colour || !environment.isSet()) {
            reportFatal(
                !colour ? QStringLiteral("--environment-colour %1: not a colour; use one of %2.")
                              .arg(parser.value(cl.environmentColourOption),
                                   Environment::colourNames().join(QStringLiteral(", ")))
                        : QStringLiteral("--environment-colour needs --environment LABEL."));
            return false;
        }
        environment.colour = *colour;
    }
    options->environment = environment;
    return true;
}

bool readHistoryAndProfile(const CommandLine &cl, Consoles::Options *options, QString *error)
{
    const QCommandLineParser &parser = cl.parser;
    const std::optional<HistoryStore::Options> historyOptions = HistoryStore::Options::fromText(
        parser.value(cl.historyFull), parser.value(cl.historyKeep), parser.value(cl.historyCap),
        error);
    if (!historyOptions) {
        reportFatal(*error);
        return false;
    }
    options->historyOptions = *historyOptions;
    if (parser.isSet(cl.profileOption) || parser.isSet(cl.demo)) {
        options->profile
            = Profile::load(parser.isSet(cl.profileOption) ? parser.value(cl.profileOption)
                                                           : QStringLiteral("demo"),
                            error);
        if (!options->profile) {
            reportFatal(*error);
            return false;
        }
    }
    return true;
}

bool readAddresses(const CommandLine &cl, Launch *launch, QString *error)
{
    const QCommandLineParser &parser = cl.parser;
    bool addressGiven = false;
    for (const char *name : {"url", "host", "port", "socket"})
        addressGiven |= parser.isSet(QLatin1String(name));
    if (!parser.isSet(cl.demo) && addressGiven) {
        launch->endpoint = cl.endpointOptions.endpoint(parser, error);
        if (!launch->endpoint) {
            reportFatal(*error);
            return false;
        }
    }
    // --deployment NAME=URL, each a window marked NAME.
    if (parser.isSet(cl.deploymentOption)) {
        const char *clash = parser.isSet(cl.demo)                      ? "--demo"
                            : parser.isSet(cl.environmentOption)       ? "--environment"
                            : parser.isSet(cl.environmentColourOption) ? "--environment-colour"
                                                                       : nullptr;
        if (clash) {
            reportFatal(
                QStringLiteral("%1 cannot be combined with --deployment: each deployment's "
                               "window is marked with its NAME (name one prod-eu=URL to have "
                               "its actions confirmed by typing it).")
                    .arg(QLatin1String(clash)));
            return false;
        }
        const auto named
            = cl.endpointOptions.namedEndpoints(parser, parser.values(cl.deploymentOption), error);
        if (!named) {
            reportFatal(*error);
            return false;
        }
        launch->deployments = *named;
    }
    return true;
}

bool readMetrics(const CommandLine &cl, MetricsEndpoint *metricsEndpoint, QString *error)
{
    const QCommandLineParser &parser = cl.parser;
    if (parser.isSet(cl.metrics)) {
        const QString address = parser.value(cl.metrics);
        const auto parsed = MetricsServer::parseAddress(address, error);
        if (parsed && !MetricsServer::isLoopback(parsed->host))
            *error = QStringLiteral("--metrics %1 is not a loopback address: the console serves "
                                    "its figures (key names included) on loopback only; use "
                                    "gatehouse-cli serve --metrics-remote to publish them wider.")
                         .arg(address);
        if (!parsed || !error->isEmpty() || !metricsEndpoint->setAddress(address, error)) {
            reportFatal(*error);
            return false;
        }
    }
    return true;
}

bool readBudget(const CommandLine &cl, Consoles::Options *options)
{
    const QCommandLineParser &parser = cl.parser;
    bool budgetOk = false;
    const double budgetPercent = parser.value(cl.budget).toDouble(&budgetOk);
    if (!budgetOk || budgetPercent < 0 || budgetPercent > 100) {
        reportFatal(QStringLiteral("--refresh-budget must be a percentage from 0 to 100 (of one "
                                   "server core), not \"%1\".")
                        .arg(parser.value(cl.budget)));
        return false;
    }
    options->budgetPercent = budgetPercent;
    return true;
}

// The rest of what the command line sets for every console (nothing left
// to check).
void readConsoleOptions(const CommandLine &cl, Consoles::Options *options)
{
    const QCommandLineParser &parser = cl.parser;
    options->readOnly = parser.isSet(cl.readOnly);
    options->intervalMs = std::max(100, parser.value(cl.interval).toInt());
    options->demoScale = parser.value(cl.scale).toInt();
    options->keepHistory = !parser.isSet(cl.noHistory);
    options->historyDir = parser.isSet(cl.historyDir) ? parser.value(cl.historyDir)
                                                      : HistoryStore::defaultDirectory();
    options->quitAfterS = parser.isSet(cl.quitAfter) ? parser.value(cl.quitAfter).toInt() : -1;
    // The profile in use as the Connect dialog names it (a built-in name or
    // a file): it opens on that, not on "(autodetect)".
    options->profileName = !options->profile                ? QString()
                           : parser.isSet(cl.profileOption) ? parser.value(cl.profileOption)
                                                            : QStringLiteral("demo");
}

// Opens what the command line names (--demo, --deployment, an address, or
// else the Connect dialog) and runs until quit.
int run(QCoreApplication &app, const CommandLine &cl, const Launch &launch,
        MetricsEndpoint *metricsEndpoint)
{
    QThread monitorThread;
    monitorThread.setObjectName(QStringLiteral("gatehouse-monitor"));
    monitorThread.start();
    DemoServer demoServer;
    DeploymentsOverview overview;
    overview.setAttribute(Qt::WA_QuitOnClose, false);
    overview.resize(1100, 320);
    Consoles consoles(launch.options, &monitorThread, &demoServer, &overview, metricsEndpoint);
    if (cl.parser.isSet(cl.demo)) {
        QObject::connect(&demoServer, &DemoServer::ready, &app,
                         [&] { consoles.start(demoServer.endpoint(), true); });
        QObject::connect(&demoServer, &DemoServer::failed, &app, [](const QString &message) {
            reportFatal(message);
            QCoreApplication::exit(1);
        });
        demoServer.start();
    } else if (!launch.deployments.isEmpty()) {
        for (const EndpointOptions::Named &d : launch.deployments)
            consoles.start(d.endpoint, false, d.name);
    } else if (launch.endpoint) {
        consoles.start(*launch.endpoint, false);
    } else {
        QTimer::singleShot(0, &app, [&] { consoles.askForConnection(); });
    }
    const int code = app.exec();
    // Stop traffic and readings before the server goes away.
    overview.close();
    consoles.closeAll();
    monitorThread.quit();
    monitorThread.wait();
    demoServer.stop();
    return code;
}

} // namespace

int main(int argc, char *argv[])
{
    const std::unique_ptr<QCoreApplication> application(answersWithoutDisplay(argc, argv)
                                                            ? new QCoreApplication(argc, argv)
                                                            : new QApplication(argc, argv));
    QCoreApplication &app = *application;
    setUpApplication(&app);

    CommandLine commandLine;
    // A usage error exits 2, as every other one here (process() alone exits 1).
    if (!commandLine.parser.parse(app.arguments())) {
        QTextStream(stderr) << "gatehouse: " << commandLine.parser.errorText()
                            << " (gatehouse --help lists the options)" << Qt::endl;
        return 2;
    }
    commandLine.parser.process(app); // --help and --version
    if (!applyPalette(commandLine))
        return 2;
    Launch launch;
    // One error sentence for the checks in turn, as the readers leave it
    // (--metrics refuses one left there).
    QString error;
    if (!readEnvironment(commandLine, &launch.options)
        || !readHistoryAndProfile(commandLine, &launch.options, &error)
        || !readAddresses(commandLine, &launch, &error))
        return 2;
    MetricsEndpoint metricsEndpoint;
    if (!readMetrics(commandLine, &metricsEndpoint, &error)
        || !readBudget(commandLine, &launch.options))
        return 2;
    readConsoleOptions(commandLine, &launch.options);
    return run(app, commandLine, launch, &metricsEndpoint);
}
