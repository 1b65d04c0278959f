// SPDX-License-Identifier: MIT
#pragma once

#include <actions/auditlog.h>
#include <patterns/scriptcall.h>
#include <redis/redisvalue.h>

#include <QJsonObject>
#include <QObject>

#include <functional>

namespace gatehouse {

class RedisClient;

class ActionRights;

struct ActionOutcome
{
    enum class Result {
        Done,        // the script did what was asked
        NothingDone, // it ran and found nothing to do (token changed, job gone)
        Refused,     // read-only mode: not run
        Failed,      // not run or errored: connection, NOPERM, bad input
        DryRun,      // described, not run
        // Sent, and the connection was lost or no reply came in time: it
        // may or may not have run (Redis scripts run whole or not at all).
        Unknown,
    };
    Result result = Result::Failed;
    QString message; // one sentence for the operator
    RedisValue reply;
    // Refused because the target is not what the console says it is; the same
    // call forced (ScriptCall::forced) would act on it.
    bool forceable = false;
    // A dry run: what running it now would do, from the script's own checks
    // run read-only (EVAL_RO): Done when they pass, Refused or NothingDone.
    Result wouldBe = Result::Done;
};

QString resultId(ActionOutcome::Result result); // "done", "nothing-done", ...

// Every operator action goes through here: refused in read-only mode,
// described exactly before it runs (script, KEYS, ARGV), run atomically as
// one of Gatehouse's scripts, its reply turned into a sentence, and every
// attempt handed to its AuditLog (which owns the file and the stream).
class ActionEngine : public QObject
{
    Q_OBJECT
public:
    explicit ActionEngine(RedisClient *client, QObject *parent = nullptr);

    void setReadOnly(bool readOnly) { m_readOnly = readOnly; }
    // The connection's environment as the operator named it ("production"):
    // recorded in every audit entry.
    void setEnvironment(const QString &label) { m_environment = label.trimmed(); }
    bool isReadOnly() const { return m_readOnly; }
    // Default: <AppDataLocation>/audit.jsonl, or $GATEHOUSE_AUDIT_LOG.
    void setAuditLogPath(const QString &path) { m_audit->setPath(path); }
    QString auditLogPath() const { return m_audit->path(); }
    void setAuditStream(const QByteArray &key, int maxLength)
    {
        m_audit->setStream(key, maxLength);
    }
    AuditLog *auditLog() const { return m_audit; }
    // How long a sent action waits for its reply before it is reported as
    // Unknown ("may or may not have run"); the server may still run it.
    void setReplyTimeoutMs(int ms) { m_replyTimeoutMs = ms; }

    // What will run, for the confirmation: script, KEYS, ARGV, and the summary.
    // A dry run runs the script's checks read-only (EVAL_RO, which the server
    // refuses to let write) and says what they found.
    static QString describe(const ScriptCall &call);
    // Who acts, for the audit log: $USER, $USERNAME, else the account of the
    // process's effective uid (getpwuid), else "uid N".
    static QString osUser();
    static ActionOutcome interpret(const ScriptCall &call, const RedisValue &reply);
    // The reply of the script run read-only (EVAL_RO) for a dry run.
    static ActionOutcome interpretDryRun(const ScriptCall &call, const RedisValue &reply);
    // CONFIG SET notify-keyspace-events: the current flags plus K and A.
    static ScriptCall enableKeyspaceEvents(const QByteArray &currentFlags);
    // The audit log's entry for an attempt on connection (its display URL)
    // of environment (its label; none when empty), secrets masked: also for
    // a refusal made before connecting.
    static QJsonObject auditEntry(const ScriptCall &call, const ActionOutcome &outcome,
                                  const QString &connection, const QString &environment = {});

    using Handler = std::function<void(const ActionOutcome &)>;
    void run(const ScriptCall &call, bool dryRun, const QObject *context, Handler handler);
    // Whether the connected user may run call (ActionRights), asked before
    // any click: answered false when the connection failed first; denied
    // says which command or key the ACL refuses and what to grant; empty
    // when it may or when the server cannot say.
    using RightsHandler = std::function<void(bool answered, const QString &denied)>;
    void checkRights(const ScriptCall &call, const QObject *context, RightsHandler handler);

    // The last maxEntries audit entries, newest last (AuditLog::readTail: bounded).
    static QList<QJsonObject> readAudit(const QString &path, int maxEntries = 1000)
    {
        return AuditLog::readTail(path, maxEntries);
    }

Q_SIGNALS:
    void audited(const QJsonObject &entry);

private:
    // Sends the call once everything before it passed (ActionRights included).
    void send(const ScriptCall &call, bool dryRun, const QObject *context, const Handler &handler);
    void finish(const ScriptCall &call, const ActionOutcome &outcome, const QObject *context,
                const Handler &handler);
    QJsonObject auditEntry(const ScriptCall &call, const ActionOutcome &outcome) const;

    RedisClient *m_client;
    bool m_readOnly = false;
    QString m_environment;
    AuditLog *m_audit;      // owned (child)
    ActionRights *m_rights; // owned (child)
    int m_replyTimeoutMs = 10000;
};

} // namespace gatehouse
