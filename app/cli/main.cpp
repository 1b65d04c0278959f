// SPDX-License-Identifier: MIT
// gatehouse-cli: the headless front of Gatehouse's backend.

#include "actioncommand.h"
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
#include <QMap>
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
    const QCommandLineOption help = parser.addHelpOption();
    const QCommandLineOption version = parser.addVersionOption();
    const EndpointOptions endpointOptions;
    endpointOptions.addTo(parser);
    auto option = [&](const char *name, const char *description, const char *value = nullptr) {
        QCommandLineOption o{QString::fromLatin1(name), QString::fromLatin1(description)};
        if (value)
            o.setValueName(QLatin1String(value));
        parser.addOption(o);
        return o;
    };
    const auto profile
        = option("profile", "A profile file, or a built-in name (demo, seeds).", "FILE|NAME");
    const auto readOnly = option("read-only", "Refuse every action (and simulate).");
    const auto allowNonEmpty
        = option("allow-nonempty", "simulate: write sim:* keys into a database "
                                   "that holds other keys too.");
    const auto dryRun = option("dry-run", "Print what an action would run and what its checks "
                                          "find now; change nothing.");
    const auto force = option("force", "limiter reset, token revoke, lock release: act even on a "
                                       "key that is not what it is said to be (audited).");
    const auto json = option("json", "Print JSON.");
    const auto interval = option("interval", "watch: ms between readings (default 1000).", "MS");
    const auto count = option("count", "watch: stop after N readings.", "N");
    const auto budget = option("refresh-budget",
                               "snapshot, watch: without keyspace events, refresh within PCT "
                               "% of one server core (default 2; 0 reads every object "
                               "every interval).",
                               "PCT");
    const auto alerts
        = option("alerts", "watch: print alert firings and resolutions (profile \"alerts\").");
    const auto alert
        = option("alert", "watch: an alert rule, repeatable (see watch --alerts).", "EXPR");
    const auto noDefaultAlerts
        = option("no-default-alerts", "watch --alerts: without the built-in rules (a dead "
                                      "Sidekiq process's work about to be lost).");
    const auto failOnAlert
        = option("fail-on-alert", "watch --alerts: exit 4 at the end if any alert fired.");
    const auto limit = option("limit",
                              "snapshot --json: at most N elements per section "
                              "(\"totals\" counts them all).",
                              "N");
    const auto busy = option("busy",
                             "queue search: at most PERCENT of its time waiting on the server "
                             "(1-100, default 10); more is faster and weighs on other clients.",
                             "PERCENT");
    const auto history = option("history", "watch, serve: write every figure to the "
                                           "connection's history file.");
    const auto historyDir = option("history-dir",
                                   "history, watch --history: the directory of history files "
                                   "(default: the user's data directory, or "
                                   "$GATEHOUSE_HISTORY_DIR).",
                                   "DIR");
    const auto historyFull = option("history-full",
                                    "watch --history, serve --history: keep every sample for "
                                    "this long (default 24h).",
                                    "DURATION");
    const auto historyKeep = option("history-keep",
                                    "watch --history, serve --history: keep one-minute buckets "
                                    "for this long (default 30d).",
                                    "DURATION");
    const auto historyCap = option("history-cap",
                                   "watch --history, serve --history: the most the history file "
                                   "may take, oldest dropped first (default 1GiB).",
                                   "SIZE");
    const auto since = option("since", "history: from T (default 1h).", "T");
    const auto until = option("until", "history: to T (default now).", "T");
    const auto figure = option("figure", "history: only this figure (inWindow, ...).", "NAME");
    const auto csv = option("csv", "history: print CSV.");
    // The actions' inputs (PatternRegistry): --token, --ttl, --job, ...
    QMap<QString, QStringList> inputUse;
    QHash<QString, ActionInput> inputs;
    for (const PatternUnit *unit : PatternRegistry::instance().units()) {
        for (const PatternAction &a : unit->actions()) {
            if (a.consoleOnly)
                continue;
            for (const ActionInput &in : a.inputs) {
                inputs.insert(in.id, in);
                const QString use = unit->section().id + QLatin1Char(' ') + a.verb;
                if (!inputUse[in.id].contains(use))
                    inputUse[in.id] << use;
            }
        }
    }
    QHash<QString, QCommandLineOption> inputOptions;
    for (auto it = inputUse.cbegin(); it != inputUse.cend(); ++it) {
        const ActionInput &in = inputs.value(it.key());
        QCommandLineOption o{it.key(), QStringLiteral("%1: %2.").arg(
                                           it.value().join(QLatin1String(", ")), in.label)};
        if (in.source != ActionInput::Source::Flag)
            o.setValueName(in.integer ? QStringLiteral("N") : QStringLiteral("VALUE"));
        parser.addOption(o);
        inputOptions.insert(it.key(), o);
    }
    const auto auditLog = option("audit-log", "Append audit entries to FILE.", "FILE");
    const auto seconds = option("seconds",
                                "simulate: run for N seconds (default 10); serve: stop after N "
                                "seconds (default: at SIGINT or SIGTERM).",
                                "N");
    const auto metrics = option("metrics",
                                "serve: the address of the metrics endpoint (loopback unless "
                                "--metrics-remote).",
                                "HOST:PORT");
    const auto metricsRemote
        = option("metrics-remote", "serve: allow a --metrics address other than loopback.");
    const auto metricsMax = option("metrics-max-objects",
                                   "serve: objects per pattern exposed one by one (default 500); "
                                   "the rest as key=\"<other>\".",
                                   "N");
    const auto deployment
        = option("deployment",
                 "serve: watch this deployment, as NAME=URL (its samples carry "
                 "deployment=\"NAME\"); repeat for each, in place of --url. The other connection "
                 "flags apply to every one.",
                 "NAME=URL");
    const auto seed = option("seed", "simulate: random seed (default 1).", "S");
    const auto scale = option("scale", "simulate: multiply the instances by K (default 1).", "K");
    const auto rate
        = option("rate", "simulate: multiply every client's rate by R (default 1).", "R");
    parser.addPositionalArgument(QStringLiteral("command"),
                                 QStringLiteral("What to do (see Commands)."));

    if (!parser.parse(QCoreApplication::arguments()))
        return usageError(echoed(parser.errorText()) + QLatin1Char('.'));
    if (parser.isSet(help)) {
        QTextStream(stdout) << parser.helpText();
        return cli::ExitOk;
    }
    if (parser.isSet(version)) {
        QTextStream(stdout) << "gatehouse-cli " << QCoreApplication::applicationVersion()
                            << Qt::endl;
        return cli::ExitOk;
    }

    const QStringList args = parser.positionalArguments();
    if (args.isEmpty())
        return usageError(QStringLiteral("No command given."));
    if (args.first() == QLatin1String("help")) {
        const QString text = cli::subjectHelp(args.value(1), parser.helpText());
        if (!text.isEmpty() || args.size() == 1) {
            QTextStream(stdout) << (args.size() == 1 ? parser.helpText() : text);
            return cli::ExitOk;
        }
        return usageError(QStringLiteral("No help on \"%1\"; subjects: %2.")
                              .arg(echoed(args.value(1)),
                                   cli::helpSubjects(parser.helpText()).join(QLatin1String(", "))));
    }

    QString error;
    const auto endpoint = endpointOptions.endpoint(parser, &error);
    if (!endpoint)
        return usageError(error);
    // What writes (actions, simulate) always goes to the master, whatever
    // --read-from says; it steers only the reading commands.
    RedisEndpoint master = *endpoint;
    master.readFromReplicas = false;

    const QString command = args.first();
    if (parser.isSet(deployment) && command != QLatin1String("serve"))
        return usageError(QStringLiteral("--deployment applies to serve only; other commands "
                                         "take one server, with --url."));
    if (parser.isSet(busy) && args.value(1) != QLatin1String("search"))
        return usageError(QStringLiteral("--busy applies to queue search only."));
    if (command == QLatin1String("info")) {
        cli::printLocalInfo(
            *endpoint, {parser.value(profile), parser.value(auditLog), parser.value(historyDir)});
        const QStringList where{QStringLiteral("url"), QStringLiteral("host"),
                                QStringLiteral("port"), QStringLiteral("socket")};
        if (std::none_of(where.cbegin(), where.cend(),
                         [&](const QString &o) { return parser.isSet(o); }))
            return cli::ExitOk;
        cli::InfoCommand info(*endpoint);
        return runSession(app, info);
    }
    const bool verdict
        = command == QLatin1String("profile")
          && (args.value(1) == QLatin1String("accept") || args.value(1) == QLatin1String("reject"));
    std::optional<Profile> loadedProfile;
    if (verdict) {
        // The file the verdict goes to: loaded when it exists, made when not.
        if (args.size() != 3)
            return usageError(
                QStringLiteral("Use \"profile %1 KEY|FAMILY --profile FILE\".").arg(args.value(1)));
        if (!parser.isSet(profile))
            return usageError(QStringLiteral("profile %1 needs --profile FILE: the file the "
                                             "verdict is written to.")
                                  .arg(args.value(1)));
        const QString file = parser.value(profile);
        Profile verdicts;
        verdicts.alerts = builtInAlertRules(); // a new file: no list, so the built-in rules
        if (QFileInfo::exists(file)) {
            const std::optional<Profile> p = Profile::load(file, &error);
            if (!p) {
                QTextStream(stderr) << "gatehouse-cli: " << error << Qt::endl;
                return cli::ExitUsage;
            }
            verdicts = *p;
        }
        cli::ProfileVerdictCommand run(*endpoint, args.value(1) == QLatin1String("accept"),
                                       args.value(2).toUtf8(), file, verdicts);
        return runSession(app, run);
    }
    if (parser.isSet(profile)) {
        loadedProfile = Profile::load(parser.value(profile), &error);
        if (!loadedProfile) {
            QTextStream(stderr) << "gatehouse-cli: " << error << Qt::endl;
            return cli::ExitUsage;
        }
    }

    if (command == QLatin1String("ping")) {
        if (args.size() > 1)
            return usageError(QStringLiteral("ping takes no arguments."));
        cli::PingCommand ping(*endpoint, parser.isSet(json));
        return runSession(app, ping);
    }
    if (command == QLatin1String("simulate")) {
        if (args.size() > 1)
            return usageError(QStringLiteral("simulate takes no arguments."));
        if (parser.isSet(readOnly)) {
            QTextStream(stderr) << "gatehouse-cli: simulate writes traffic (sim:* keys) and "
                                   "--read-only refuses every write; nothing was sent. Run it "
                                   "without --read-only against a private server."
                                << Qt::endl;
            return cli::ExitNothingDone;
        }
        Simulator::Options options;
        const auto secs = intOption(parser, seconds, 1, 7 * 24 * 3600, 10, &error);
        const auto seedValue = intOption(parser, seed, 0, 0xffffffffLL, 1, &error);
        const auto scaleValue = intOption(parser, scale, 1, 100000, 1, &error);
        if (!secs || !seedValue || !scaleValue)
            return usageError(error);
        options.seconds = *secs;
        options.seed = quint32(*seedValue);
        options.scale = int(*scaleValue);
        if (parser.isSet(rate)) {
            bool ok = false;
            options.rate = parser.value(rate).toDouble(&ok);
            if (!ok || options.rate < 0.01 || options.rate > 100)
                return usageError(QStringLiteral("--rate must be a number from 0.01 to 100, not "
                                                 "\"%1\".")
                                      .arg(echoed(parser.value(rate))));
        }
        cli::SimulateCommand simulate(master, options, parser.isSet(json),
                                      parser.isSet(allowNonEmpty));
        return runSession(app, simulate);
    }
    const QString historyDirectory
        = parser.isSet(historyDir) ? parser.value(historyDir) : HistoryStore::defaultDirectory();
    const QString historyFile = HistoryStore::fileFor(*endpoint, historyDirectory);
    const std::optional<HistoryStore::Options> historyOptions = HistoryStore::Options::fromText(
        parser.value(historyFull), parser.value(historyKeep), parser.value(historyCap), &error);
    if (!historyOptions)
        return usageError(error);
    if ((parser.isSet(historyFull) || parser.isSet(historyKeep) || parser.isSet(historyCap))
        && !parser.isSet(history))
        return usageError(QStringLiteral("--history-full, --history-keep and --history-cap "
                                         "apply with --history (watch, serve)."));
    const bool timeline = command == QLatin1String("timeline");
    if (command == QLatin1String("history") || timeline) {
        if (timeline && (args.size() != 1 || parser.isSet(csv) || parser.isSet(figure)))
            return usageError(QStringLiteral("Use \"timeline [--since T] [--until T] "
                                             "[--json]\"."));
        if (!timeline && args.size() != 2)
            return usageError(QStringLiteral("Use \"history KEY [--since T] [--until T] "
                                             "[--figure NAME] [--csv|--json]\"."));
        if (parser.isSet(csv) && parser.isSet(json))
            return usageError(QStringLiteral("history prints --csv or --json, not both."));
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        cli::HistoryRequest request;
        request.path = historyFile;
        request.connection = endpoint->displayUrl();
        request.key = timeline ? QByteArray() : args.at(1).toUtf8();
        const auto from = cli::parseHistoryTime(
            parser.isSet(since) ? parser.value(since) : QStringLiteral("1h"), now, &error);
        if (!from)
            return usageError(QStringLiteral("--since: ") + error);
        const auto to = cli::parseHistoryTime(
            parser.isSet(until) ? parser.value(until) : QStringLiteral("now"), now, &error);
        if (!to)
            return usageError(QStringLiteral("--until: ") + error);
        if (*to < *from)
            return usageError(QStringLiteral("--until is before --since."));
        request.sinceMs = *from;
        request.untilMs = *to;
        request.figure = parser.value(figure);
        request.csv = parser.isSet(csv);
        request.json = parser.isSet(json);
        return timeline ? cli::runTimeline(request) : cli::runHistory(request);
    }
    // --refresh-budget PCT, for every command that watches.
    const auto readBudget = [&](Monitor::Options *options) {
        if (!parser.isSet(budget))
            return true;
        bool ok = false;
        const double pct = parser.value(budget).toDouble(&ok);
        if (!ok || pct < 0 || pct > 100) {
            error = QStringLiteral("--refresh-budget must be a percentage from 0 to 100 (of one "
                                   "server core), not \"%1\".")
                        .arg(echoed(parser.value(budget)));
            return false;
        }
        options->budgetPercent = pct;
        return true;
    };
    if (command == QLatin1String("snapshot") || command == QLatin1String("watch")) {
        const bool watch = command == QLatin1String("watch");
        if (args.size() > 1)
            return usageError(QStringLiteral("%1 takes no arguments.").arg(command));
        const auto ms = intOption(parser, interval, 50, 3600 * 1000, 1000, &error);
        const auto n = intOption(parser, count, 0, 1000000000, 0, &error);
        if (!ms || !n)
            return usageError(error);
        Monitor::Options options;
        options.profile = loadedProfile;
        options.intervalMs = int(*ms);
        if (!readBudget(&options))
            return usageError(error);
        const auto most = intOption(parser, limit, 0, 1000000000, -1, &error);
        if (!most)
            return usageError(error);
        if (parser.isSet(limit) && (watch || !parser.isSet(json)))
            return usageError(QStringLiteral("--limit applies to snapshot --json only."));
        const bool alerting = parser.isSet(alerts) || parser.isSet(alert)
                              || parser.isSet(failOnAlert) || parser.isSet(noDefaultAlerts);
        QList<AlertRule> rules = loadedProfile ? loadedProfile->alerts : builtInAlertRules();
        if (parser.isSet(noDefaultAlerts)) {
            const QList<AlertRule> builtIn = builtInAlertRules();
            rules.removeIf([&](const AlertRule &r) { return builtIn.contains(r); });
        }
        if (alerting) {
            if (!watch)
                return usageError(QStringLiteral("--alerts, --alert and --fail-on-alert apply to "
                                                 "watch only."));
            for (const QString &expression : parser.values(alert)) {
                std::optional<AlertRule> rule = AlertRule::parseExpression(expression, &error);
                if (!rule)
                    return usageError(error);
                for (const AlertRule &r : std::as_const(rules)) {
                    if (r.name == rule->name)
                        return usageError(QStringLiteral("--alert \"%1\": another rule is named "
                                                         "\"%2\"; give it another with \"as "
                                                         "NAME\".")
                                              .arg(echoed(expression), echoed(rule->name)));
                }
                rules.append(*rule);
            }
            if (rules.isEmpty())
                return usageError(QStringLiteral(
                    "watch --alerts has no rules to watch: give --alert 'occupancy >= 80% for "
                    "5s on limiter', or a --profile with an \"alerts\" list."));
        }
        if (parser.isSet(history) && !watch)
            return usageError(QStringLiteral("--history applies to watch and serve only."));
        if (!watch) {
            cli::SnapshotCommand snapshot(*endpoint, options, parser.isSet(json));
            snapshot.setLimit(qsizetype(*most));
            return runSession(app, snapshot);
        }
        cli::WatchCommand watchCommand(*endpoint, options, parser.isSet(json), int(*n));
        if (parser.isSet(history))
            watchCommand.setHistoryFile(historyFile, *historyOptions);
        if (alerting)
            watchCommand.setAlerts(rules, parser.isSet(failOnAlert));
        return runSession(app, watchCommand);
    }
    if (command == QLatin1String("serve")) {
        if (args.size() > 1)
            return usageError(QStringLiteral("serve takes no arguments."));
        if (!parser.isSet(metrics))
            return usageError(QStringLiteral("serve needs --metrics HOST:PORT, e.g. --metrics "
                                             "127.0.0.1:9187."));
        const auto address = MetricsServer::parseAddress(parser.value(metrics), &error);
        if (!address)
            return usageError(error);
        const auto ms = intOption(parser, interval, 50, 3600 * 1000, 1000, &error);
        const auto secs = intOption(parser, seconds, 1, 365 * 24 * 3600, 0, &error);
        const auto most = intOption(parser, metricsMax, 0, 1000000, 500, &error);
        if (!ms || !secs || !most)
            return usageError(error);
        Monitor::Options options;
        options.profile = loadedProfile;
        options.intervalMs = int(*ms);
        if (!readBudget(&options))
            return usageError(error);
        cli::ServeCommand::Options serveOptions;
        serveOptions.address = *address;
        serveOptions.allowRemote = parser.isSet(metricsRemote);
        serveOptions.seconds = int(*secs);
        serveOptions.maxObjectsPerPattern = int(*most);
        // One deployment (--url and its flags), or each --deployment NAME=URL.
        QList<Deployment::Options> deployments;
        const std::optional<QList<EndpointOptions::Named>> named
            = endpointOptions.namedEndpoints(parser, parser.values(deployment), &error);
        if (!named)
            return usageError(error);
        for (qsizetype i = 0; i < std::max<qsizetype>(1, named->size()); ++i) {
            Deployment::Options d;
            d.monitor = options;
            d.name = named->isEmpty() ? QString() : named->at(i).name;
            d.endpoint = named->isEmpty() ? *endpoint : named->at(i).endpoint;
            if (parser.isSet(history)) {
                d.historyFile = HistoryStore::fileFor(d.endpoint, historyDirectory);
                d.historyOptions = *historyOptions;
            }
            deployments.append(d);
        }
        cli::ServeCommand serve(deployments, serveOptions);
        if (!serve.listen())
            return cli::ExitFailure;
        return runSession(app, serve);
    }
    if (command == QLatin1String("profile")) {
        if (args.value(1) != QLatin1String("suggest") || args.size() != 2)
            return usageError(QStringLiteral("Use \"profile suggest\", \"profile accept "
                                             "KEY|FAMILY --profile FILE\" or \"profile reject "
                                             "KEY|FAMILY --profile FILE\"."));
        cli::SuggestCommand suggest(*endpoint);
        return runSession(app, suggest);
    }
    if (args.value(1) == QLatin1String("job") && listsJobs(command)) {
        if (args.size() != 4)
            return usageError(QStringLiteral("Use \"queue job QUEUE JOB [--json]\"."));
        cli::JobCommand job(*endpoint, args.at(2).toUtf8(), args.at(3).toUtf8(), parser.isSet(json),
                            loadedProfile);
        return runSession(app, job);
    }
    if (args.value(1) == QLatin1String("search") && listsJobs(command)) {
        if (args.size() != 4)
            return usageError(QStringLiteral("Use \"queue search QUEUE EXPR [--state S] [--limit "
                                             "N] [--busy PERCENT] [--json]\" (quote EXPR: "
                                             "'error~timeout age>1h')."));
        cli::SearchCommand::Request request;
        request.queue = args.at(2).toUtf8();
        request.expression = args.at(3);
        if (const auto state = inputOptions.constFind(QStringLiteral("state"));
            state != inputOptions.cend() && parser.isSet(*state))
            request.states = parser.value(*state).split(QLatin1Char(','), Qt::SkipEmptyParts);
        if (parser.isSet(limit)) {
            const auto n = intOption(parser, limit, 1, 100000, 50, &error);
            if (!n)
                return usageError(error);
            request.limit = int(*n);
        }
        if (parser.isSet(busy)) {
            const auto percent = intOption(parser, busy, 1, 100, 10, &error);
            if (!percent)
                return usageError(error);
            request.busyPercent = double(*percent);
        }
        request.json = parser.isSet(json);
        request.profile = loadedProfile;
        cli::SearchCommand search(*endpoint, std::move(request));
        return runSession(app, search);
    }
    if (PatternRegistry::instance().section(command) || command == QLatin1String("events")) {
        cli::ActionCommand::Request request;
        request.words = args;
        for (auto it = inputOptions.cbegin(); it != inputOptions.cend(); ++it) {
            if (!parser.isSet(it.value()))
                continue;
            const ActionInput &in = inputs.value(it.key());
            if (in.integer) {
                const auto v = intOption(parser, it.value(), 0, qint64(1) << 53, 0, &error);
                if (!v)
                    return usageError(error);
            }
            request.inputs.insert(it.key(), parser.value(it.value()).toUtf8());
        }
        request.readOnly = parser.isSet(readOnly);
        request.dryRun = parser.isSet(dryRun);
        request.force = parser.isSet(force);
        request.profile = loadedProfile;
        request.auditLog = parser.value(auditLog);
        if (const QString problem = cli::ActionCommand::validate(request); !problem.isEmpty())
            return usageError(problem);
        cli::ActionCommand action(master, request);
        return runSession(app, action);
    }
    return usageError(QStringLiteral("Unknown command \"%1\".").arg(echoed(command)));
}
