// SPDX-License-Identifier: MIT
#include "clioptions.h"

#include <patterns/patternregistry.h>
#include <patterns/patternunit.h>

#include <QCommandLineParser>
#include <QMap>
#include <QStringList>

#include <algorithm>

namespace gatehouse::cli {

namespace {

// Adds the option to the parser and returns it.
QCommandLineOption option(QCommandLineParser &parser, const char *name, const char *description,
                          const char *value = nullptr)
{
    QCommandLineOption o{QString::fromLatin1(name), QString::fromLatin1(description)};
    if (value)
        o.setValueName(QLatin1String(value));
    parser.addOption(o);
    return o;
}

// The connection's options, added to the parser.
EndpointOptions addEndpointOptions(QCommandLineParser &parser)
{
    const EndpointOptions options;
    options.addTo(parser);
    return options;
}

// The actions' inputs (PatternRegistry): --token, --ttl, --job, ... Each
// option says what it is for every verb taking it, grouped by its meaning
// ("lock extend: Time to live (ms); token issue: Time to live (s)").
ActionInputOptions actionInputOptions(QCommandLineParser &parser)
{
    // Per option: its labels in order of first use, each with its verbs.
    QMap<QString, QList<std::pair<QString, QStringList>>> inputUse;
    QHash<QString, ActionInput> inputs;
    for (const PatternUnit *unit : PatternRegistry::instance().units()) {
        for (const PatternAction &a : unit->actions()) {
            if (a.consoleOnly)
                continue;
            for (const ActionInput &in : a.inputs) {
                inputs.insert(in.id, in);
                const QString use = unit->section().id + QLatin1Char(' ') + a.verb;
                auto &labels = inputUse[in.id];
                auto same = std::find_if(labels.begin(), labels.end(),
                                         [&in](const auto &l) { return l.first == in.label; });
                if (same == labels.end())
                    labels.append({in.label, {use}});
                else if (!same->second.contains(use))
                    same->second << use;
            }
        }
    }
    QHash<QString, QCommandLineOption> inputOptions;
    for (auto it = inputUse.cbegin(); it != inputUse.cend(); ++it) {
        const ActionInput &in = inputs.value(it.key());
        QStringList meanings;
        for (const auto &[label, uses] : it.value())
            meanings << QStringLiteral("%1: %2").arg(uses.join(QLatin1String(", ")), label);
        QCommandLineOption o{it.key(), meanings.join(QLatin1String("; ")) + QLatin1Char('.')};
        if (in.source != ActionInput::Source::Flag)
            o.setValueName(in.integer ? QStringLiteral("N") : QStringLiteral("VALUE"));
        parser.addOption(o);
        inputOptions.insert(it.key(), o);
    }
    return {inputs, inputOptions};
}

} // namespace

CliOptions::CliOptions(QCommandLineParser &parser)
    : help(parser.addHelpOption())
    , version(parser.addVersionOption())
    , endpointOptions(addEndpointOptions(parser))
    , profile(option(parser, "profile", "A profile file, or a built-in name (demo, seeds).",
                     "FILE|NAME"))
    , readOnly(option(parser, "read-only", "Refuse every action (and simulate)."))
    , allowNonEmpty(option(parser, "allow-nonempty",
                           "simulate: write sim:* keys into a database that holds other keys "
                           "too."))
    , dryRun(option(parser, "dry-run",
                    "Print what an action would run and what its checks find now; change "
                    "nothing."))
    , force(option(parser, "force",
                   "limiter reset, token revoke, lock release: act even on a key that is not "
                   "what it is said to be (audited)."))
    , environment(option(parser, "environment",
                         "The connection's environment (production, staging, ...; default "
                         "$GATEHOUSE_ENVIRONMENT). On production (a NAME starting with "
                         "\"prod\") an action runs only with --confirm-environment NAME.",
                         "NAME"))
    , confirmEnvironment(option(parser, "confirm-environment",
                                "Run an action on a production connection: its environment's "
                                "NAME typed back (any case).",
                                "NAME"))
    , json(option(parser, "json", "Print JSON."))
    , interval(option(parser, "interval", "watch: ms between readings (default 1000).", "MS"))
    , count(option(parser, "count", "watch: stop after N readings.", "N"))
    , budget(option(parser, "refresh-budget",
                    "watch, serve: without keyspace events, refresh within PCT % of one "
                    "server core (default 2; 0 reads every object every interval).",
                    "PCT"))
    , alerts(option(parser, "alerts",
                    "watch: print alert firings and resolutions (profile \"alerts\")."))
    , alert(
          option(parser, "alert", "watch: an alert rule, repeatable (see watch --alerts).", "EXPR"))
    , noDefaultAlerts(option(parser, "no-default-alerts",
                             "watch --alerts: without the built-in rules (a dead Sidekiq "
                             "process's work about to be lost)."))
    , failOnAlert(
          option(parser, "fail-on-alert", "watch --alerts: exit 4 at the end if any alert fired."))
    , limit(option(parser, "limit",
                   "snapshot --json: at most N elements per section (\"totals\" counts them "
                   "all).",
                   "N"))
    , busy(option(parser, "busy",
                  "queue search: at most PERCENT of its time waiting on the server (1-100, "
                  "default 10); more is faster and weighs on other clients.",
                  "PERCENT"))
    , history(option(parser, "history",
                     "watch, serve: write every figure to the connection's history file."))
    , historyDir(option(parser, "history-dir",
                        "history, watch --history: the directory of history files (default: "
                        "the user's data directory, or $GATEHOUSE_HISTORY_DIR).",
                        "DIR"))
    , historyFull(option(parser, "history-full",
                         "watch --history, serve --history: keep every sample for this long "
                         "(default 24h).",
                         "DURATION"))
    , historyKeep(option(parser, "history-keep",
                         "watch --history, serve --history: keep one-minute buckets for this "
                         "long (default 30d).",
                         "DURATION"))
    , historyCap(option(parser, "history-cap",
                        "watch --history, serve --history: the most the history file may "
                        "take, oldest dropped first (default 1GiB).",
                        "SIZE"))
    , since(option(parser, "since", "history: from T (default 1h).", "T"))
    , until(option(parser, "until", "history: to T (default now).", "T"))
    , figure(option(parser, "figure", "history: only this figure (inWindow, ...).", "NAME"))
    , csv(option(parser, "csv", "history: print CSV."))
    , actionInputs(actionInputOptions(parser))
    , auditLog(option(parser, "audit-log", "Append audit entries to FILE.", "FILE"))
    , seconds(option(parser, "seconds",
                     "simulate: run for N seconds (default 10); serve: stop after N seconds "
                     "(default: at SIGINT or SIGTERM).",
                     "N"))
    , metrics(option(parser, "metrics",
                     "serve: the address of the metrics endpoint (loopback unless "
                     "--metrics-remote).",
                     "HOST:PORT"))
    , metricsRemote(
          option(parser, "metrics-remote", "serve: allow a --metrics address other than loopback."))
    , metricsMax(option(parser, "metrics-max-objects",
                        "serve: objects per pattern exposed one by one (default 500); the rest "
                        "as key=\"<other>\".",
                        "N"))
    , deployment(option(parser, "deployment",
                        "serve: watch this deployment, as NAME=URL (its samples carry "
                        "deployment=\"NAME\"); repeat for each, in place of --url. The other "
                        "connection flags apply to every one.",
                        "NAME=URL"))
    , seed(option(parser, "seed", "simulate: random seed (default 1).", "S"))
    , scale(option(parser, "scale", "simulate: multiply the instances by K (default 1).", "K"))
    , rate(option(parser, "rate", "simulate: multiply every client's rate by R (default 1).", "R"))
{
    parser.addPositionalArgument(QStringLiteral("command"),
                                 QStringLiteral("What to do (see Commands)."));
}

QString CliOptions::notApplying(const QCommandLineParser &parser, const QString &command,
                                bool section) const
{
    static const QStringList commands{QStringLiteral("info"),     QStringLiteral("profile"),
                                      QStringLiteral("ping"),     QStringLiteral("simulate"),
                                      QStringLiteral("history"),  QStringLiteral("timeline"),
                                      QStringLiteral("snapshot"), QStringLiteral("watch"),
                                      QStringLiteral("serve"),    QStringLiteral("events")};
    if (!section && !commands.contains(command))
        return {};
    // The options one command or a few read; any other command would run
    // as if they were not there.
    struct Scope
    {
        const QCommandLineOption *option;
        QStringList commands;
    };
    const QStringList historyCommands{QStringLiteral("history"), QStringLiteral("timeline")};
    const QStringList watching{QStringLiteral("watch"), QStringLiteral("serve")};
    const QList<Scope> scopes{
        {&interval, watching},
        {&history, watching},
        {&budget, watching},
        {&since, historyCommands},
        {&until, historyCommands},
        {&figure, {QStringLiteral("history")}},
        {&csv, {QStringLiteral("history")}},
        {&count, {QStringLiteral("watch")}},
        {&seed, {QStringLiteral("simulate")}},
        {&scale, {QStringLiteral("simulate")}},
        {&rate, {QStringLiteral("simulate")}},
        {&seconds, {QStringLiteral("simulate"), QStringLiteral("serve")}},
        {&metrics, {QStringLiteral("serve")}},
        {&metricsRemote, {QStringLiteral("serve")}},
        {&metricsMax, {QStringLiteral("serve")}},
    };
    for (const Scope &s : scopes) {
        if (!parser.isSet(*s.option) || s.commands.contains(command))
            continue;
        QString which = s.commands.constLast(); // "snapshot, watch and serve"
        if (s.commands.size() > 1)
            which = s.commands.mid(0, s.commands.size() - 1).join(QStringLiteral(", "))
                    + QStringLiteral(" and ") + which;
        return QStringLiteral("--%1 applies to %2 only: \"%3\" would run as if it were not "
                              "given; leave it out.")
            .arg(s.option->names().constFirst(), which, command.left(40));
    }
    // An action's inputs (--token, --job, ...) and --force belong to actions.
    if (!section && command != QLatin1String("events")) {
        QList<const QCommandLineOption *> inputs{&force};
        for (const QCommandLineOption &o : actionInputs.options)
            inputs << &o;
        for (const QCommandLineOption *o : std::as_const(inputs)) {
            if (parser.isSet(*o))
                return QStringLiteral("--%1 applies to actions (lock release, queue requeue, "
                                      "...) only: \"%2\" would run as if it were not given; "
                                      "leave it out.")
                    .arg(o->names().constFirst(), command.left(40));
        }
    }
    return {};
}

} // namespace gatehouse::cli
