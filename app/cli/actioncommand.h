// SPDX-License-Identifier: MIT
#pragma once

#include "session.h"

#include <actions/actionengine.h>
#include <monitor/profile.h>

#include <memory>

namespace gatehouse::cli {

// `lock`, `queue`, `token`, `limiter` and `events` actions: build the
// ScriptCall from the arguments (and the profile's key templates), run it
// through the ActionEngine (read-only, dry run, audit), print the outcome.
// Exit 0 done, 3 refused or nothing to do, 1 failed.
class ActionCommand : public Session
{
    Q_OBJECT
public:
    struct Request
    {
        QStringList words;       // e.g. {"lock", "release", "KEY"}
        QByteArray token;        // --token
        qint64 ttl = -1;         // --ttl (ms for locks, s for tokens)
        QByteArray job;          // --job
        bool stuck = false;      // --stuck
        qint64 olderThanMs = -1; // --older-than
        QByteArray value;        // --value
        bool valueSet = false;
        bool readOnly = false;
        bool dryRun = false;
        bool force = false; // --force: past the checks that the target is what it is said to be
        std::optional<Profile> profile;
        QString auditLog; // --audit-log
    };

    // Checks the words and options; on a usage problem returns a sentence.
    static QString validate(const Request &request);

    ActionCommand(const RedisEndpoint &endpoint, Request request, QObject *parent = nullptr);

protected:
    void onReady() override;

private:
    // The object the profile says key is, or the conventional layout; when
    // the profile says key is of another section, mismatch gets a sentence.
    PatternObject objectFor(PatternKind kind, const QByteArray &key,
                            QString *mismatch = nullptr) const;
    void resetLimiter(const QByteArray &key);
    void runCall(const ScriptCall &call);
    void requeueStuckLoop(const ScriptCall &call, qint64 total);
    void report(const ActionOutcome &outcome);

    Request m_request;
    std::unique_ptr<ActionEngine> m_engine;
    QByteArray m_issuedToken;
};

} // namespace gatehouse::cli
