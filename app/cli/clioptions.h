// SPDX-License-Identifier: MIT
#pragma once

#include <patterns/patternaction.h>
#include <redis/endpointoptions.h>

#include <QCommandLineOption>
#include <QHash>
#include <QString>

class QCommandLineParser;

namespace gatehouse::cli {

// The options of the actions' inputs (PatternRegistry): --token, --ttl,
// --job, ..., each by its input's id.
struct ActionInputOptions
{
    QHash<QString, ActionInput> inputs;
    QHash<QString, QCommandLineOption> options;
};

// Every option of gatehouse-cli. The constructor adds each to the parser as
// it initialises it, and members are initialised in the order they are
// declared: that order is the order --help lists them in (and the
// completions made from it), so keep it.
struct CliOptions
{
    explicit CliOptions(QCommandLineParser &parser);

    // A sentence naming an option given that command does not take (it would
    // be ignored: "--csv applies to history only"), or empty; empty too for
    // a command that is not one (its own sentence says so). section: the
    // command is a section's (lock, queue, ...).
    QString notApplying(const QCommandLineParser &parser, const QString &command,
                        bool section) const;

    QCommandLineOption help;
    QCommandLineOption version;
    EndpointOptions endpointOptions; // --url, --host, ... (the connection)
    QCommandLineOption profile;
    QCommandLineOption readOnly;
    QCommandLineOption allowNonEmpty;
    QCommandLineOption dryRun;
    QCommandLineOption force;
    QCommandLineOption environment;
    QCommandLineOption confirmEnvironment;
    QCommandLineOption json;
    QCommandLineOption interval;
    QCommandLineOption count;
    QCommandLineOption budget;
    QCommandLineOption alerts;
    QCommandLineOption alert;
    QCommandLineOption noDefaultAlerts;
    QCommandLineOption failOnAlert;
    QCommandLineOption limit;
    QCommandLineOption busy;
    QCommandLineOption history;
    QCommandLineOption historyDir;
    QCommandLineOption historyFull;
    QCommandLineOption historyKeep;
    QCommandLineOption historyCap;
    QCommandLineOption since;
    QCommandLineOption until;
    QCommandLineOption figure;
    QCommandLineOption csv;
    ActionInputOptions actionInputs;
    QCommandLineOption auditLog;
    QCommandLineOption seconds;
    QCommandLineOption metrics;
    QCommandLineOption metricsRemote;
    QCommandLineOption metricsMax;
    QCommandLineOption deployment;
    QCommandLineOption seed;
    QCommandLineOption scale;
    QCommandLineOption rate;
};

} // namespace gatehouse::cli
