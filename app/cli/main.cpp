// SPDX-License-Identifier: MIT
// gatehouse-cli: the headless front of Gatehouse's backend.

#include "actioncommand.h"
#include "clioptions.h"
#include "environmentgate.h"
#include "exitcodes.h"
#include "historycommand.h"
#include "infocommand.h"
#include "jobcommand.h"
#include "monitorcommands.h"
#include "pingcommand.h"
#include "searchcommand.h"
#include "servecommand.h"
#include "simulatecommand.h"
#include "timelinecommand.h"
#include "watchcommand.h"

#include <alerts/builtinalerts.h>
#include <history/historystore.h>
#include <patterns/patternregistry.h>
#include <patterns/patternunit.h>
#include <redis/endpointoptions.h>
#include <redis/userinput.h>

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDateTime>
#include <QFileInfo>
#include <QSet>
#include <QTextStream>

#include <algorithm>
#include <optional>

using namespace gatehouse;

namespace {

const char s_commands[]
    = "Commands:\n"
      "  ping [--json]                    Connect, run PING, print version, server time,\n"
      "                                   topology and what a failover or crash would lose.\n"
      "  snapshot [--json]                One reading of every limiter, lock, token family,\n"
      "                                   queue ... found (--profile, or autodetected).\n"
      "  watch [--interval MS] [--count N] A line per tick (JSON lines with --json);\n"
      "                                   --history also writes the history file.\n"
      "  history KEY [--since T] [--until T] [--figure NAME] [--csv|--json]\n"
      "                                   What the history file holds of KEY (T: ISO\n"
      "                                   time, or back from now: 30m, 2h, 7d).\n"
      "  timeline [--since T] [--until T] [--json]\n"
      "                                   What happened to the connection (lost, back,\n"
      "                                   restarts, master switches, readings stale and\n"
      "                                   whole again), from the history file.\n"
      "  serve --metrics ADDR [--seconds N] Watch and serve the figures to Prometheus at\n"
      "                                   http://ADDR/metrics (e.g. 127.0.0.1:9187);\n"
      "                                   --history also writes the history file.\n"
      "  watch --alerts [--alert EXPR]... [--fail-on-alert]\n"
      "                                   A line per alert firing or resolving, for the\n"
      "                                   profile's \"alerts\" and each --alert EXPR:\n"
      "                                   FIGURE OP VALUE [for DURATION] [on TARGET]\n"
      "                                   [as NAME] [severity info|warning|critical]\n"
      "                                   OP is > >= < <=; VALUE 80% (occupancy), 30s,\n"
      "                                   500ms, 5m or a count; TARGET a section, a\n"
      "                                   pattern or \"node\", a key glob, or both\n"
      "                                   (limiter:sim:rl:*). E.g. 'occupancy >= 80%\n"
      "                                   for 5s on limiter', 'stuck > 0 on queue',\n"
      "                                   'heldForMs > 30s on lock', 'down > 0 on node'.\n"
      "                                   --fail-on-alert: exit 4 at the end (--count,\n"
      "                                   Ctrl-C, SIGTERM) when any alert fired.\n"
      "  profile suggest                  Autodetect and print the profile as JSON.\n"
      "  profile accept KEY|FAMILY --profile FILE\n"
      "                                   Show an unconfirmed candidate from now on.\n"
      "  profile reject KEY|FAMILY --profile FILE\n"
      "                                   Take a candidate or instance for ordinary keys.\n"
      "  queue job QUEUE JOB [--json]     One job of a library queue: its fields and its\n"
      "                                   payloads decoded (JSON, pickle, msgpack, PHP,\n"
      "                                   protobuf, base64, gzip), with the raw hex.\n"
      "  queue search QUEUE EXPR [--state S] [--limit N] [--busy PERCENT] [--json]\n"
      "                                   The jobs of a library queue matching EXPR, in\n"
      "                                   paced pages: a word, error~ETIMEDOUT, name=X,\n"
      "                                   age>1h, attempts>2, data.customerId=4411.\n"
      "  info                             Paths and settings in use, versions (and the\n"
      "                                   server's, given a connection option).\n"
      "  help [SUBJECT]                   The commands and options of one subject\n"
      "                                   (queue, lock, watch, ...).\n";

const char s_commandsAfter[]
    = "  events enable                    Turn on keyspace notifications (CONFIG SET).\n"
      "  simulate [--seconds N] [--seed S] [--scale K] [--rate R] [--allow-nonempty]\n"
      "                                   Traffic over every pattern (writes sim:* keys;\n"
      "                                   refuses a database holding other keys).\n"
      "\nActions take --read-only (refuse), --dry-run (print what would run) and\n"
      "--audit-log FILE. Exit codes: 0 done, 1 failed, 2 usage, 3 refused or nothing\n"
      "to do (token changed, job gone), 4 an alert fired (watch --fail-on-alert).\n";

// Every pattern's actions (PatternRegistry), one usage line each. When a verb
// has several shapes (each library's `queue retry`) or belongs to a job
// library, the line names the patterns it is for, so an operator knows which
// to use on which queue.
QString actionUsage()
{
    QStringList usages;
    QHash<QString, QStringList> titles; // usage -> the patterns offering it
    QSet<QString> ofLibraries;          // usages a job library's pattern offers
    for (const PatternUnit *unit : PatternRegistry::instance().units()) {
        for (const PatternAction &a : unit->actions()) {
            if (a.consoleOnly)
                continue;
            if (!usages.contains(a.usage))
                usages << a.usage;
            QStringList &forUsage = titles[a.usage];
            if (!forUsage.contains(unit->title()))
                forUsage << unit->title();
            if (!unit->library().isEmpty())
                ofLibraries.insert(a.usage);
        }
    }
    const auto verb = [](const QString &usage) {
        return usage.section(QLatin1Char(' '), 0, 1);
    };
    QString out;
    for (const QString &usage : std::as_const(usages)) {
        const QString v = verb(usage);
        const bool shared = std::count_if(usages.cbegin(), usages.cend(),
                                          [&](const QString &u) { return verb(u) == v; })
                            > 1;
        out += QStringLiteral("  ") + usage + QLatin1Char('\n');
        if (shared || ofLibraries.contains(usage))
            out += QString(35, QLatin1Char(' ')) + QLatin1Char('(')
                   + titles.value(usage).join(QStringLiteral(", ")) + QStringLiteral(")\n");
    }
    return out;
}

int usageError(const QString &message)
{
    QTextStream(stderr) << "gatehouse-cli: " << message << " Run 'gatehouse-cli --help' for usage."
                        << Qt::endl;
    return cli::ExitUsage;
}

// A whole-number option within [min, max], or an error sentence.
std::optional<qint64> intOption(const QCommandLineParser &parser, const QCommandLineOption &option,
                                qint64 min, qint64 max, qint64 fallback, QString *error)
{
    if (!parser.isSet(option))
        return fallback;
    bool ok = false;
    const qint64 v = parser.value(option).toLongLong(&ok);
    if (!ok || v < min || v > max) {
        *error = QStringLiteral("--%1 must be a whole number from %2 to %3, not \"%4\".")
                     .arg(option.names().first())
                     .arg(min)
                     .arg(max)
                     .arg(echoed(parser.value(option)));
        return std::nullopt;
    }
    return v;
}

template<typename Command>
int runSession(QCoreApplication &app, Command &command)
{
    QObject::connect(&command, &Command::finished, &app,
                     [](int code) { QCoreApplication::exit(code); });
    command.start();
    return app.exec();
}

// Whether noun is the section of a pattern that lists jobs ("queue job").
bool listsJobs(const QString &noun)
{
    for (const PatternUnit *unit : PatternRegistry::instance().units()) {
        if (!unit->jobStates().isEmpty() && unit->section().id == noun)
            return true;
    }
    return false;
}

// One run of gatehouse-cli once its command line is parsed and the
// connection is known: what each command's function reads.
struct Invocation
{
    QCoreApplication &app;
    const QCommandLineParser &parser;
    const cli::CliOptions &options;
    const QStringList &args; // the positional arguments: the command and its words
    QString command;         // args.first()
    RedisEndpoint endpoint;
    RedisEndpoint master;           // endpoint, never a replica: for what writes
    std::optional<Profile> profile; // --profile, loaded
};

// Where watch and serve --history write, and history and timeline read.
struct HistoryFiles
{
    QString directory;             // --history-dir, or the default
    QString file;                  // the connection's history file in it
    HistoryStore::Options options; // --history-full, --history-keep, --history-cap
};

// `help [SUBJECT]`.
int printHelp(const QCommandLineParser &parser, const QStringList &args)
{
    const QString text = cli::subjectHelp(args.value(1), parser.helpText());
    if (!text.isEmpty() || args.size() == 1) {
        QTextStream(stdout) << (args.size() == 1 ? parser.helpText() : text);
        return cli::ExitOk;
    }
    return usageError(QStringLiteral("No help on \"%1\"; subjects: %2.")
                          .arg(echoed(args.value(1)),
                               cli::helpSubjects(parser.helpText()).join(QLatin1String(", "))));
}

int runInfo(const Invocation &run)
{
    const QCommandLineParser &parser = run.parser;
    const cli::CliOptions &o = run.options;
    cli::printLocalInfo(run.endpoint, {parser.value(o.profile), parser.value(o.auditLog),
                                       parser.value(o.historyDir)});
    const QStringList where{QStringLiteral("url"), QStringLiteral("host"), QStringLiteral("port"),
                            QStringLiteral("socket")};
    if (std::none_of(where.cbegin(), where.cend(),
                     [&](const QString &name) { return parser.isSet(name); }))
        return cli::ExitOk;
    cli::InfoCommand info(run.endpoint);
    return runSession(run.app, info);
}

// `profile accept|reject KEY|FAMILY --profile FILE`.
int runProfileVerdict(const Invocation &run)
{
    const QStringList &args = run.args;
    // The file the verdict goes to: loaded when it exists, made when not.
    if (args.size() != 3)
        return usageError(
            QStringLiteral("Use \"profile %1 KEY|FAMILY --profile FILE\".").arg(args.value(1)));
    if (!run.parser.isSet(run.options.profile))
        return usageError(QStringLiteral("profile %1 needs --profile FILE: the file the "
                                         "verdict is written to.")
                              .arg(args.value(1)));
    const QString file = run.parser.value(run.options.profile);
    Profile verdicts;
    verdicts.alerts = builtInAlertRules(); // a new file: no list, so the built-in rules
    if (QFileInfo::exists(file)) {
        QString error;
        const std::optional<Profile> p = Profile::load(file, &error);
        if (!p) {
            QTextStream(stderr) << "gatehouse-cli: " << error << Qt::endl;
            return cli::ExitUsage;
        }
        verdicts = *p;
    }
    cli::ProfileVerdictCommand verdict(run.endpoint, args.value(1) == QLatin1String("accept"),
                                       args.value(2).toUtf8(), file, verdicts);
    return runSession(run.app, verdict);
}

// A write on a connection marked production, without its name typed back:
// said, and nothing sent.
QString environmentRefusal(const Invocation &run, const QString &what)
{
    return cli::environmentRefusal(cli::cliEnvironment(run.parser, run.options),
                                   run.parser.value(run.options.confirmEnvironment), what,
                                   run.master.displayUrl());
}

bool refusedByEnvironment(const Invocation &run)
{
    const QString why = environmentRefusal(run, run.args.join(QLatin1Char(' ')));
    if (why.isEmpty())
        return false;
    QTextStream(stderr) << "gatehouse-cli: Refused: " << why << " Nothing was sent." << Qt::endl;
    return true;
}

// An action the connection's environment refuses: said with its options as
// typed, and audited as refused, without connecting to the server at all.
bool refusedByEnvironment(const Invocation &run, const cli::ActionCommand::Request &request)
{
    QStringList what = run.args;
    QStringList inputs = request.inputs.keys();
    inputs.sort();
    for (const QString &id : std::as_const(inputs)) {
        what << QStringLiteral("--") + id;
        if (run.options.actionInputs.inputs.value(id).source != ActionInput::Source::Flag)
            what << QString::fromUtf8(request.inputs.value(id));
    }
    if (request.force)
        what << QStringLiteral("--force");
    const QString why = environmentRefusal(run, what.join(QLatin1Char(' ')));
    if (why.isEmpty())
        return false;
    const QString message = QStringLiteral("Refused: %1 Nothing was sent.").arg(why);
    QTextStream(stderr) << "gatehouse-cli: " << message << Qt::endl;
    if (const QString error = cli::auditEnvironmentRefusal(
            request.auditLog, run.master.displayUrl(), request.environment,
            cli::ActionCommand::callFor(request), request.force, message);
        !error.isEmpty())
        QTextStream(stderr) << "gatehouse-cli: " << error << Qt::endl;
    return true;
}

int runSimulate(const Invocation &run)
{
    const QCommandLineParser &parser = run.parser;
    const cli::CliOptions &o = run.options;
    if (run.args.size() > 1)
        return usageError(QStringLiteral("simulate takes no arguments."));
    if (parser.isSet(o.readOnly)) {
        QTextStream(stderr) << "gatehouse-cli: simulate writes traffic (sim:* keys) and "
                               "--read-only refuses every write; nothing was sent. Run it "
                               "without --read-only against a private server."
                            << Qt::endl;
        return cli::ExitNothingDone;
    }
    if (refusedByEnvironment(run))
        return cli::ExitNothingDone;
    QString error;
    Simulator::Options options;
    const auto secs = intOption(parser, o.seconds, 1, 7 * 24 * 3600, 10, &error);
    const auto seedValue = intOption(parser, o.seed, 0, 0xffffffffLL, 1, &error);
    const auto scaleValue = intOption(parser, o.scale, 1, 100000, 1, &error);
    if (!secs || !seedValue || !scaleValue)
        return usageError(error);
    options.seconds = *secs;
    options.seed = quint32(*seedValue);
    options.scale = int(*scaleValue);
    if (parser.isSet(o.rate)) {
        bool ok = false;
        options.rate = parser.value(o.rate).toDouble(&ok);
        if (!ok || options.rate < 0.01 || options.rate > 100)
            return usageError(QStringLiteral("--rate must be a number from 0.01 to 100, not "
                                             "\"%1\".")
                                  .arg(echoed(parser.value(o.rate))));
    }
    cli::SimulateCommand simulate(run.master, options, parser.isSet(o.json),
                                  parser.isSet(o.allowNonEmpty));
    return runSession(run.app, simulate);
}

// The connection's history file and the --history-* options; nothing and an
// error sentence when those are wrong.
std::optional<HistoryFiles> historyFiles(const Invocation &run, QString *error)
{
    const QCommandLineParser &parser = run.parser;
    const cli::CliOptions &o = run.options;
    HistoryFiles files;
    files.directory = parser.isSet(o.historyDir) ? parser.value(o.historyDir)
                                                 : HistoryStore::defaultDirectory();
    files.file = HistoryStore::fileFor(run.endpoint, files.directory);
    const std::optional<HistoryStore::Options> options
        = HistoryStore::Options::fromText(parser.value(o.historyFull), parser.value(o.historyKeep),
                                          parser.value(o.historyCap), error);
    if (!options)
        return std::nullopt;
    if ((parser.isSet(o.historyFull) || parser.isSet(o.historyKeep) || parser.isSet(o.historyCap))
        && !parser.isSet(o.history)) {
        *error = QStringLiteral("--history-full, --history-keep and --history-cap apply with "
                                "--history (watch, serve).");
        return std::nullopt;
    }
    files.options = *options;
    return files;
}

// `history KEY ...` and `timeline ...`: they read the history file only.
int runHistoryOrTimeline(const Invocation &run, const QString &historyFile)
{
    const QCommandLineParser &parser = run.parser;
    const cli::CliOptions &o = run.options;
    const QStringList &args = run.args;
    const bool timeline = run.command == QLatin1String("timeline");
    if (timeline && (args.size() != 1 || parser.isSet(o.csv) || parser.isSet(o.figure)))
        return usageError(QStringLiteral("Use \"timeline [--since T] [--until T] [--json]\"."));
    if (!timeline && args.size() != 2)
        return usageError(QStringLiteral("Use \"history KEY [--since T] [--until T] "
                                         "[--figure NAME] [--csv|--json]\"."));
    if (parser.isSet(o.csv) && parser.isSet(o.json))
        return usageError(QStringLiteral("history prints --csv or --json, not both."));
    QString error;
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    cli::HistoryRequest request;
    request.path = historyFile;
    request.connection = run.endpoint.displayUrl();
    request.key = timeline ? QByteArray() : args.at(1).toUtf8();
    const auto from = cli::parseHistoryTime(
        parser.isSet(o.since) ? parser.value(o.since) : QStringLiteral("1h"), now, &error);
    if (!from)
        return usageError(QStringLiteral("--since: ") + error);
    const auto to = cli::parseHistoryTime(
        parser.isSet(o.until) ? parser.value(o.until) : QStringLiteral("now"), now, &error);
    if (!to)
        return usageError(QStringLiteral("--until: ") + error);
    if (*to < *from)
        return usageError(QStringLiteral("--until is before --since."));
    request.sinceMs = *from;
    request.untilMs = *to;
    request.figure = parser.value(o.figure);
    request.csv = parser.isSet(o.csv);
    request.json = parser.isSet(o.json);
    return timeline ? cli::runTimeline(request) : cli::runHistory(request);
}

// --refresh-budget PCT, for every command that watches.
bool readBudget(const Invocation &run, Monitor::Options *options, QString *error)
{
    const QCommandLineParser &parser = run.parser;
    const QCommandLineOption &budget = run.options.budget;
    if (!parser.isSet(budget))
        return true;
    bool ok = false;
    const double pct = parser.value(budget).toDouble(&ok);
    if (!ok || pct < 0 || pct > 100) {
        *error = QStringLiteral("--refresh-budget must be a percentage from 0 to 100 (of one "
                                "server core), not \"%1\".")
                     .arg(echoed(parser.value(budget)));
        return false;
    }
    options->budgetPercent = pct;
    return true;
}

// What every command that watches gives its monitor: the profile, the
// interval (ms) and --refresh-budget; nullopt, with the sentence in *error,
// when the budget is not a percentage.
std::optional<Monitor::Options> monitorOptions(const Invocation &run, qint64 intervalMs,
                                               QString *error)
{
    Monitor::Options options;
    options.profile = run.profile;
    options.intervalMs = int(intervalMs);
    if (!readBudget(run, &options, error))
        return std::nullopt;
    return options;
}

// Adds each --alert EXPR to rules; false and an error sentence at the first
// that does not parse or takes a name already taken, or when that leaves
// no rules at all.
bool addAlertExpressions(const Invocation &run, QList<AlertRule> *rules, QString *error)
{
    for (const QString &expression : run.parser.values(run.options.alert)) {
        std::optional<AlertRule> rule = AlertRule::parseExpression(expression, error);
        if (!rule)
            return false;
        for (const AlertRule &r : std::as_const(*rules)) {
            if (r.name == rule->name) {
                *error = QStringLiteral("--alert \"%1\": another rule is named \"%2\"; give it "
                                        "another with \"as NAME\".")
                             .arg(echoed(expression), echoed(rule->name));
                return false;
            }
        }
        rules->append(*rule);
    }
    if (rules->isEmpty()) {
        *error = QStringLiteral("watch --alerts has no rules to watch: give --alert 'occupancy "
                                ">= 80% for 5s on limiter', or a --profile with an \"alerts\" "
                                "list.");
        return false;
    }
    return true;
}

// `snapshot` and `watch`.
int runMonitor(const Invocation &run, const HistoryFiles &history)
{
    const QCommandLineParser &parser = run.parser;
    const cli::CliOptions &o = run.options;
    const bool watch = run.command == QLatin1String("watch");
    if (run.args.size() > 1)
        return usageError(QStringLiteral("%1 takes no arguments.").arg(run.command));
    QString error;
    const auto ms = intOption(parser, o.interval, 50, 3600 * 1000, 1000, &error);
    const auto n = intOption(parser, o.count, 1, 1000000000, 0, &error); // unset: no end
    if (!ms || !n)
        return usageError(error);
    const std::optional<Monitor::Options> watching = monitorOptions(run, *ms, &error);
    if (!watching)
        return usageError(error);
    Monitor::Options options = *watching;
    const auto most = intOption(parser, o.limit, 0, 1000000000, -1, &error);
    if (!most)
        return usageError(error);
    if (parser.isSet(o.limit) && (watch || !parser.isSet(o.json)))
        return usageError(QStringLiteral("--limit applies to snapshot --json only."));
    const bool alerting = parser.isSet(o.alerts) || parser.isSet(o.alert)
                          || parser.isSet(o.failOnAlert) || parser.isSet(o.noDefaultAlerts);
    QList<AlertRule> rules = run.profile ? run.profile->alerts : builtInAlertRules();
    if (parser.isSet(o.noDefaultAlerts)) {
        const QList<AlertRule> builtIn = builtInAlertRules();
        rules.removeIf([&](const AlertRule &r) { return builtIn.contains(r); });
    }
    if (alerting) {
        if (!watch)
            return usageError(QStringLiteral("--alerts, --alert and --fail-on-alert apply to "
                                             "watch only."));
        if (!addAlertExpressions(run, &rules, &error))
            return usageError(error);
    }
    if (parser.isSet(o.history) && !watch)
        return usageError(QStringLiteral("--history applies to watch and serve only."));
    if (!watch) {
        cli::SnapshotCommand snapshot(run.endpoint, options, parser.isSet(o.json));
        snapshot.setLimit(qsizetype(*most));
        return runSession(run.app, snapshot);
    }
    cli::WatchCommand watchCommand(run.endpoint, options, parser.isSet(o.json), int(*n));
    if (parser.isSet(o.history))
        watchCommand.setHistoryFile(history.file, history.options);
    if (alerting)
        watchCommand.setAlerts(rules, parser.isSet(o.failOnAlert));
    return runSession(run.app, watchCommand);
}

// `serve --metrics ADDR`.
int runServe(const Invocation &run, const HistoryFiles &history)
{
    const QCommandLineParser &parser = run.parser;
    const cli::CliOptions &o = run.options;
    if (run.args.size() > 1)
        return usageError(QStringLiteral("serve takes no arguments."));
    if (!parser.isSet(o.metrics))
        return usageError(QStringLiteral("serve needs --metrics HOST:PORT, e.g. --metrics "
                                         "127.0.0.1:9187."));
    QString error;
    const auto address = MetricsServer::parseAddress(parser.value(o.metrics), &error);
    if (!address)
        return usageError(error);
    if (!MetricsServer::isLoopback(address->host) && !parser.isSet(o.metricsRemote))
        return usageError(MetricsServer::remoteRefusal(*address));
    const auto ms = intOption(parser, o.interval, 50, 3600 * 1000, 1000, &error);
    const auto secs = intOption(parser, o.seconds, 1, 365 * 24 * 3600, 0, &error);
    const auto most = intOption(parser, o.metricsMax, 0, 1000000, 500, &error);
    if (!ms || !secs || !most)
        return usageError(error);
    const std::optional<Monitor::Options> watching = monitorOptions(run, *ms, &error);
    if (!watching)
        return usageError(error);
    Monitor::Options options = *watching;
    cli::ServeCommand::Options serveOptions;
    serveOptions.address = *address;
    serveOptions.allowRemote = parser.isSet(o.metricsRemote);
    serveOptions.seconds = int(*secs);
    serveOptions.maxObjectsPerPattern = int(*most);
    // One deployment (--url and its flags), or each --deployment NAME=URL.
    QList<Deployment::Options> deployments;
    const std::optional<QList<EndpointOptions::Named>> named
        = o.endpointOptions.namedEndpoints(parser, parser.values(o.deployment), &error);
    if (!named)
        return usageError(error);
    for (qsizetype i = 0; i < std::max<qsizetype>(1, named->size()); ++i) {
        Deployment::Options d;
        d.monitor = options;
        d.name = named->isEmpty() ? QString() : named->at(i).name;
        d.endpoint = named->isEmpty() ? run.endpoint : named->at(i).endpoint;
        if (parser.isSet(o.history)) {
            d.historyFile = HistoryStore::fileFor(d.endpoint, history.directory);
            d.historyOptions = history.options;
        }
        deployments.append(d);
    }
    cli::ServeCommand serve(deployments, serveOptions);
    if (!serve.listen())
        return cli::ExitFailure;
    return runSession(run.app, serve);
}

// `queue search QUEUE EXPR ...`.
int runSearch(const Invocation &run)
{
    const QCommandLineParser &parser = run.parser;
    const cli::CliOptions &o = run.options;
    const QStringList &args = run.args;
    if (args.size() != 4)
        return usageError(QStringLiteral("Use \"queue search QUEUE EXPR [--state S] [--limit "
                                         "N] [--busy PERCENT] [--json]\" (quote EXPR: "
                                         "'error~timeout age>1h')."));
    QString error;
    cli::SearchCommand::Request request;
    request.queue = args.at(2).toUtf8();
    request.expression = args.at(3);
    const QHash<QString, QCommandLineOption> &inputOptions = o.actionInputs.options;
    if (const auto state = inputOptions.constFind(QStringLiteral("state"));
        state != inputOptions.cend() && parser.isSet(*state))
        request.states = parser.value(*state).split(QLatin1Char(','), Qt::SkipEmptyParts);
    if (parser.isSet(o.limit)) {
        const auto n = intOption(parser, o.limit, 1, 100000, 50, &error);
        if (!n)
            return usageError(error);
        request.limit = int(*n);
    }
    if (parser.isSet(o.busy)) {
        const auto percent = intOption(parser, o.busy, 1, 100, 10, &error);
        if (!percent)
            return usageError(error);
        request.busyPercent = double(*percent);
    }
    request.json = parser.isSet(o.json);
    request.profile = run.profile;
    cli::SearchCommand search(run.endpoint, std::move(request));
    return runSession(run.app, search);
}

// A pattern's action (`limiter reset KEY`, ...) or `events enable`.
int runAction(const Invocation &run)
{
    const QCommandLineParser &parser = run.parser;
    const cli::CliOptions &o = run.options;
    QString error;
    cli::ActionCommand::Request request;
    request.words = run.args;
    for (auto it = o.actionInputs.options.cbegin(); it != o.actionInputs.options.cend(); ++it) {
        if (!parser.isSet(it.value()))
            continue;
        const ActionInput &in = o.actionInputs.inputs.value(it.key());
        if (in.integer) {
            // Whether it is a count or a duration; the action's own check
            // then says its range ("lock extend --ttl is at most 7 days").
            bool ok = false;
            const qint64 v = parser.value(it.value()).toLongLong(&ok);
            if (!ok || v < 0 || v > (qint64(1) << 53))
                return usageError(QStringLiteral("--%1 takes a whole number from 0 to %2, not "
                                                 "\"%3\".")
                                      .arg(it.key())
                                      .arg(qint64(1) << 53)
                                      .arg(echoed(parser.value(it.value()))));
        }
        request.inputs.insert(it.key(), parser.value(it.value()).toUtf8());
    }
    request.readOnly = parser.isSet(o.readOnly);
    request.dryRun = parser.isSet(o.dryRun);
    request.force = parser.isSet(o.force);
    request.json = parser.isSet(o.json);
    request.profile = run.profile;
    request.auditLog = parser.value(o.auditLog);
    request.environment = cli::cliEnvironment(parser, o).label;
    if (const QString problem = cli::ActionCommand::validate(request); !problem.isEmpty())
        return usageError(problem);
    if (!request.dryRun && !request.readOnly && refusedByEnvironment(run, request))
        return cli::ExitNothingDone;
    // A dry run needs nothing typed, but says what the run would meet at
    // the environment's gate: a name typed wrong refuses it as the run would.
    if (request.dryRun && !request.readOnly) {
        if (const QString why = environmentRefusal(run, run.args.join(QLatin1Char(' ')));
            !why.isEmpty()) {
            // With --json, stdout is the outcome's object alone: said on stderr.
            QTextStream said(request.json ? stderr : stdout);
            if (!parser.value(o.confirmEnvironment).isEmpty()) {
                said << "Dry run: it would be refused. Refused: " << why << " Nothing was sent."
                     << Qt::endl;
                return cli::ExitNothingDone;
            }
            said << "Note: " << why << " (A dry run needs nothing typed.)" << Qt::endl;
        }
    }
    cli::ActionCommand action(run.master, request);
    return runSession(run.app, action);
}

// Runs the command args.first() names. Keep the order of the checks: it
// decides which error a command line that is wrong in several ways gets.
int runCommand(Invocation &run)
{
    const QCommandLineParser &parser = run.parser;
    const cli::CliOptions &o = run.options;
    const QStringList &args = run.args;
    const QString &command = run.command;
    if (parser.isSet(o.deployment) && command != QLatin1String("serve"))
        return usageError(QStringLiteral("--deployment applies to serve only; other commands "
                                         "take one server, with --url."));
    if (parser.isSet(o.busy) && args.value(1) != QLatin1String("search"))
        return usageError(QStringLiteral("--busy applies to queue search only."));
    if (const QString misplaced
        = o.notApplying(parser, command, PatternRegistry::instance().section(command).has_value());
        !misplaced.isEmpty())
        return usageError(misplaced);
    // Only an action has a dry run: simulate and profile accept/reject would
    // write as if it were not there.
    if (parser.isSet(o.dryRun) && !PatternRegistry::instance().section(command)
        && command != QLatin1String("events"))
        return usageError(QStringLiteral("\"%1\" is not an action and has no dry run: it "
                                         "would run as if --dry-run were not given. --dry-run "
                                         "applies to actions (lock release, queue requeue, ..., "
                                         "events enable); leave it out.")
                              .arg(echoed(command)));
    if (command == QLatin1String("info"))
        return runInfo(run);
    if (command == QLatin1String("profile")
        && (args.value(1) == QLatin1String("accept") || args.value(1) == QLatin1String("reject")))
        return runProfileVerdict(run);
    if (parser.isSet(o.profile)) {
        QString error;
        run.profile = Profile::load(parser.value(o.profile), &error);
        if (!run.profile) {
            QTextStream(stderr) << "gatehouse-cli: " << error << Qt::endl;
            return cli::ExitUsage;
        }
    }

    if (command == QLatin1String("ping")) {
        if (args.size() > 1)
            return usageError(QStringLiteral("ping takes no arguments."));
        cli::PingCommand ping(run.endpoint, parser.isSet(o.json));
        return runSession(run.app, ping);
    }
    if (command == QLatin1String("simulate"))
        return runSimulate(run);
    QString error;
    const std::optional<HistoryFiles> history = historyFiles(run, &error);
    if (!history)
        return usageError(error);
    if (command == QLatin1String("history") || command == QLatin1String("timeline"))
        return runHistoryOrTimeline(run, history->file);
    if (command == QLatin1String("snapshot") || command == QLatin1String("watch"))
        return runMonitor(run, *history);
    if (command == QLatin1String("serve"))
        return runServe(run, *history);
    if (command == QLatin1String("profile")) {
        if (args.value(1) != QLatin1String("suggest") || args.size() != 2)
            return usageError(QStringLiteral("Use \"profile suggest\", \"profile accept "
                                             "KEY|FAMILY --profile FILE\" or \"profile reject "
                                             "KEY|FAMILY --profile FILE\"."));
        cli::SuggestCommand suggest(run.endpoint);
        return runSession(run.app, suggest);
    }
    if (args.value(1) == QLatin1String("job") && listsJobs(command)) {
        if (args.size() != 4)
            return usageError(QStringLiteral("Use \"queue job QUEUE JOB [--json]\"."));
        cli::JobCommand job(run.endpoint, args.at(2).toUtf8(), args.at(3).toUtf8(),
                            parser.isSet(o.json), run.profile);
        return runSession(run.app, job);
    }
    if (args.value(1) == QLatin1String("search") && listsJobs(command))
        return runSearch(run);
    if (PatternRegistry::instance().section(command) || command == QLatin1String("events"))
        return runAction(run);
    return usageError(QStringLiteral("Unknown command \"%1\".").arg(echoed(command)));
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("gatehouse"));
    QCoreApplication::setOrganizationName(QStringLiteral("Gatehouse"));
    QCoreApplication::setApplicationVersion(QStringLiteral(GATEHOUSE_VERSION));

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Gatehouse command line: inspect and operate Redis-based limiters, "
                       "locks, tokens and queues.\n\n")
        + QLatin1String(s_commands) + actionUsage() + QLatin1String(s_commandsAfter));
    const cli::CliOptions options(parser);

    if (!parser.parse(QCoreApplication::arguments())) {
        // Qt's sentence may end with its own full stop ("Unknown option 'x'.").
        QString said = echoed(parser.errorText());
        if (!said.endsWith(QLatin1Char('.')))
            said += QLatin1Char('.');
        return usageError(said);
    }
    if (parser.isSet(options.help)) {
        QTextStream(stdout) << parser.helpText();
        return cli::ExitOk;
    }
    if (parser.isSet(options.version)) {
        QTextStream(stdout) << "gatehouse-cli " << QCoreApplication::applicationVersion()
                            << Qt::endl;
        return cli::ExitOk;
    }

    const QStringList args = parser.positionalArguments();
    if (args.isEmpty())
        return usageError(QStringLiteral("No command given."));
    if (args.first() == QLatin1String("help"))
        return printHelp(parser, args);

    QString error;
    const auto endpoint = options.endpointOptions.endpoint(parser, &error);
    if (!endpoint)
        return usageError(error);
    Invocation run{app, parser, options, args, args.first(), *endpoint, *endpoint, std::nullopt};
    // What writes (actions, simulate) always goes to the master, whatever
    // --read-from says; it steers only the reading commands.
    run.master.readFromReplicas = false;
    return runCommand(run);
}
