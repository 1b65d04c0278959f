// SPDX-License-Identifier: MIT
#pragma once

#include "session.h"

#include <actions/actionengine.h>
#include <monitor/profile.h>
#include <patterns/patternunit.h>
#include <redis/serveridentity.h>

#include <memory>

namespace gatehouse::cli {

// "<section> <verb> KEY --input ..." (every pattern's actions, from the
// PatternRegistry) and `events enable`: build the ScriptCall with the
// pattern's action from the arguments (and the profile's key templates), run
// it through the ActionEngine (read-only, dry run, audit), print the outcome.
// An action on an existing object first reads it with its pattern's probe:
// keys that only resemble the pattern's layout are refused before any script
// is sent. Exit 0 done, 3 refused or nothing to do, 1 failed.
class ActionCommand : public Session
{
    Q_OBJECT
public:
    struct Request
    {
        QStringList words;                 // e.g. {"lock", "release", "KEY"}
        QHash<QString, QByteArray> inputs; // the action's inputs by id (--token T, --stuck)
        bool readOnly = false;
        bool dryRun = false;
        bool force = false; // --force: past the checks that the target is what it is said to be
        bool json = false;  // --json: the outcome as one JSON object on stdout
        std::optional<Profile> profile;
        QString auditLog;    // --audit-log
        QString environment; // --environment (or $GATEHOUSE_ENVIRONMENT): in its audit entries
    };

    // Checks the words and options; on a usage problem returns a sentence.
    static QString validate(const Request &request);
    // The call the request would make on its target as the first pattern
    // offering the verb lays it out, without reading it: what an audit entry
    // of a refusal made before connecting names (action id, keys, secrets).
    static ScriptCall callFor(const Request &request);

    ActionCommand(const RedisEndpoint &endpoint, Request request, QObject *parent = nullptr);

protected:
    void onReady() override;
    // After INFO server: picks the pattern whose action the request names.
    void resolve();

private:
    // The pattern action the words name: the units of the section offering
    // the verb (PatternRegistry).
    static QList<std::pair<const PatternUnit *, PatternAction>> candidates(const Request &request);
    // The request for the target as the profile says it is, or as the
    // action's pattern lays out its keys by convention; when the profile says
    // the key is of another section, mismatch gets a sentence.
    ActionRequest requestFor(const PatternUnit &unit, const QByteArray &key,
                             QString *mismatch) const;
    using Candidates = QList<std::pair<const PatternUnit *, PatternAction>>;
    // No candidate identified key: says which library's object it is when
    // one that does not offer the verb identifies it (exit 2), else acts
    // with the first candidate, whose script's type checks refuse it.
    void actOrSayWhose(const QByteArray &key, const Candidates &found);
    void act(const PatternUnit &unit, const PatternAction &action);
    // Reads the target with its pattern's own probe (bounded, read-only) and
    // refuses with the reading's reason when its keys are not a layout the
    // pattern knows, as the console shows them read-only; then runs call.
    void actAfterReading(const PatternUnit &unit, const ActionRequest &request,
                         const ScriptCall &call);
    // One read of object; when its replies name parts the object did not
    // have (a deployment's queues listed in its SET: PatternUnit::afterRead),
    // read again with them, as the monitor does on its next tick, so the
    // check judges what the console shows. passes: reads left.
    void readToCheck(const PatternUnit &unit, const ActionRequest &request, const ScriptCall &call,
                     const ProbeContext &context, int passes);
    // The reads that tell what the target is failed: nothing was sent.
    void failUnidentified(const QByteArray &target, const QString &error);
    // A forced call, or one on a key no discovery names (a token to revoke),
    // unless the key is a part of another pattern's object.
    void actUnlessOwned(const PatternUnit &unit, const ActionRequest &request,
                        const ScriptCall &call);
    void runCall(const ScriptCall &call);
    void runDry(const ScriptCall &call);
    void batchLoop(const ScriptCall &call, qint64 total);
    // A line of what the command says before its outcome (stdout; with
    // --json, kept for the outcome's object).
    void say(const QString &text);
    void report(const ActionOutcome &outcome);

    Request m_request;
    std::unique_ptr<ActionEngine> m_engine;
    QByteArray m_issuedToken;
    QStringList m_said; // --json: what a dry run said before its outcome
    // A dry run of a verb on every stuck job its script finds, where nothing
    // counts them ahead (MatchCounter): how many the check's reading found.
    QString m_stuckNow;
    ServerIdentity m_server; // INFO server; no version when refused
};

} // namespace gatehouse::cli
