// SPDX-License-Identifier: MIT
#include "actionengine.h"
#include "actionrights.h"

#include <patterns/patternregistry.h>
#include <redis/redisclient.h>
#include <redis/redisscript.h>

#include <QDateTime>
#include <QJsonArray>
#include <QPointer>
#include <QRegularExpression>
#include <QTimer>

#include <utility>

#ifdef Q_OS_UNIX
#include <pwd.h>
#include <unistd.h>
#endif

namespace gatehouse {

QString ActionEngine::osUser()
{
    QString user = qEnvironmentVariable("USER");
    if (user.isEmpty())
        user = qEnvironmentVariable("USERNAME");
#ifdef Q_OS_UNIX
    // Services, cron and `env -i` run without USER: the account database
    // still knows who this process runs as.
    if (user.isEmpty()) {
        if (const passwd *pw = getpwuid(geteuid()); pw && pw->pw_name)
            user = QString::fromLocal8Bit(pw->pw_name);
        else
            user = QStringLiteral("uid %1").arg(geteuid());
    }
#endif
    return user.isEmpty() ? QStringLiteral("unknown") : user;
}

namespace {

// What the operator calls the call: its title (the console's button), else
// the label of the pattern action that builds it ("Force release"), else
// its id.
QString operatorWords(const ScriptCall &call)
{
    if (!call.title.isEmpty())
        return call.title;
    for (const PatternUnit *unit : PatternRegistry::instance().units()) {
        for (const PatternAction &a : unit->actions()) {
            if (a.id == call.action && !a.label.isEmpty())
                return a.label.endsWith(QStringLiteral("…")) ? a.label.chopped(1) : a.label;
        }
    }
    return call.action;
}

// One KEY or ARGV as the operator confirms it: whole up to ShownWholeBytes
// (a key's tail tells apart ":wait" from ":active"); a longer one by its head
// and its tail, and how many bytes are not shown between them.
constexpr qsizetype ShownWholeBytes = 1024;
constexpr qsizetype ShownEndBytes = 480;

QString shown(const QByteArray &item)
{
    if (item.size() <= ShownWholeBytes)
        return printableBytes(item, ShownWholeBytes);
    return printableBytes(item.left(ShownEndBytes), ShownEndBytes)
           + QStringLiteral("\u2026 (%1 bytes in all; %2 not shown) \u2026")
                 .arg(item.size())
                 .arg(item.size() - 2 * ShownEndBytes)
           + printableBytes(item.right(ShownEndBytes), ShownEndBytes);
}

// A freshly issued token (or token field) is a secret: wherever it appears,
// the confirmation and the audit log show a recognisable stub of it, its
// first four bytes.
QByteArray redacted(QByteArray bytes, const QByteArray &secret)
{
    // Four bytes stand for a long secret; a short code (a 6-digit OTP) is
    // not given away in part.
    if (!secret.isEmpty())
        bytes.replace(secret, QByteArray(secret.left(secret.size() >= 16 ? 4 : 0) + "..."));
    return bytes;
}

// text with a secret's printable form masked as redacted() masks it.
QString maskedText(QString text, const QByteArray &secret)
{
    if (secret.isEmpty())
        return text;
    return text.replace(printableBytes(secret), printableBytes(redacted(secret, secret)));
}

// secret: a token the call creates, shown to the operator once after it
// ran and never before (its first four bytes stand for it here).
QString list(const QList<QByteArray> &items, const QByteArray &secret = {})
{
    QStringList out;
    for (const QByteArray &i : items)
        out << QLatin1Char('"') + shown(redacted(i, secret)) + QLatin1Char('"');
    return out.join(QLatin1String(", "));
}

} // namespace

namespace {

QString typeName(const QByteArray &type)
{
    if (type == "zset")
        return QStringLiteral("sorted set");
    QString name = QString::fromLatin1(type);
    return name.replace(QLatin1Char('|'), QLatin1String(" or "));
}

// Redis 7.0 answers a refused redis.call() inside a script with ERR.
bool scriptStoppedByAcl(const RedisValue &reply)
{
    // Redis 7.0: "... can't run this command or subcommand" / "can't access
    // at least one of the keys mentioned"; 7.2 and later: "ACL failure in
    // script: ...".
    if (!reply.isError())
        return false;
    const QString m = reply.errorMessage();
    return m.contains(QLatin1String("can't run this command or subcommand"))
           || m.contains(QLatin1String("can't access at least one of the keys"))
           || m.contains(QLatin1String("ACL failure in script"));
}

// An ACL refusal, naming what was refused: the script command (EVAL when
// EVALSHA was refused too, see RedisConnection::sendScript), the keys, or a
// command inside the script. Empty when the reply is no ACL refusal.
QString aclRefusal(const QString &action, const QList<QByteArray> &keys, const RedisValue &reply)
{
    const QByteArray command = reply.refusedCommand();
    if (!command.isEmpty()) {
        const QString name = QString::fromLatin1(command);
        const QString scripts = command.startsWith("EVAL") ? QStringLiteral(
                                    " (Gatehouse runs actions as scripts: EVALSHA, "
                                    "or EVAL where EVALSHA is refused)")
                                                           : QString();
        // EVAL refused: EVALSHA was refused too, or did not have the script.
        const QString grant = command == "EVAL" ? QStringLiteral("+evalsha +eval")
                                                : QLatin1Char('+') + name.toLower();
        return QStringLiteral("%1 was refused by the server (NOPERM): this Redis user may not run "
                              "%2%3; grant it (ACL SETUSER <user> %4).")
            .arg(action, name, scripts, grant);
    }
    if (reply.isKeyRefusal())
        return QStringLiteral("%1 was refused by the server (NOPERM): this Redis user may not "
                              "access the keys it names (%2); grant key patterns (ACL SETUSER "
                              "<user> ~<pattern>).")
            .arg(action, list(keys));
    // Redis 7.0 answers a refused redis.call() inside a script with ERR.
    // A script is not undone: what it wrote before that command stays.
    if (scriptStoppedByAcl(reply))
        return QStringLiteral("%1 stopped part-way: this Redis user may run the script but not "
                              "a command inside it (%2). What the script wrote before that "
                              "command stays (a script is not undone): re-read the object to "
                              "see where things are now. Grant the script's commands (see "
                              "--dry-run, which asks the server before anything is sent).")
            .arg(action, reply.errorMessage().section(QLatin1String(" script: "), 0, 0));
    if (reply.errorCode() == "NOPERM")
        return QStringLiteral("%1 was refused by the server: %2").arg(action, reply.errorMessage());
    return {};
}

QString checkRefusal(const ScriptCall &call, const RedisValue &reply)
{
    // "GHTYPE <i> <type> <expected>" / "GHSHAPE <i> <what>": the script's
    // checks found KEYS[i] is not what the action writes; nothing was written.
    const QByteArray code = reply.isError() ? reply.errorCode() : QByteArray();
    if (code != "GHTYPE" && code != "GHSHAPE")
        return {};
    const QList<QByteArray> words = reply.bytes().split(' ');
    const int i = words.value(1).toInt() - 1;
    const QString key = printableBytes(call.keys.value(i), 120);
    const QString role = call.keyRoles.value(i, QStringLiteral("key"));
    const QString force = call.forceArg >= 0 && !call.force
                              ? QStringLiteral(" Only a forced run (--force, confirmed and "
                                               "audited) acts on it anyway.")
                              : QString();
    if (code == "GHTYPE")
        return QStringLiteral("Refused: \"%1\" (the %2) is a %3, not a %4; nothing was "
                              "written.%5")
            .arg(key, role, typeName(words.value(2)), typeName(words.value(3)), force);
    return QStringLiteral("Refused: \"%1\" (the %2) does not look like one: %3; nothing was "
                          "written.%4")
        .arg(key, role, QString::fromUtf8(reply.bytes().split(' ').mid(2).join(' ')), force);
}

} // namespace

QString resultId(ActionOutcome::Result result)
{
    switch (result) {
    case ActionOutcome::Result::Done:
        return QStringLiteral("done");
    case ActionOutcome::Result::NothingDone:
        return QStringLiteral("nothing-done");
    case ActionOutcome::Result::Refused:
        return QStringLiteral("refused");
    case ActionOutcome::Result::Failed:
        return QStringLiteral("failed");
    case ActionOutcome::Result::DryRun:
        return QStringLiteral("dry-run");
    case ActionOutcome::Result::Unknown:
        return QStringLiteral("unknown");
    }
    return {};
}

ActionEngine::ActionEngine(RedisClient *client, QObject *parent)
    : QObject(parent)
    , m_client(client)
    , m_audit(new AuditLog(client, this))
    , m_rights(new ActionRights(client, this))
{}

QString ActionEngine::describe(const ScriptCall &call)
{
    if (!call.command.isEmpty())
        return QStringLiteral("%1\n  command: %2").arg(call.summary, list(call.command));
    // What each key is to the script ("wait list", ...), when the call says.
    const QString roles
        = call.keyRoles.size() == call.keys.size() && !call.keys.isEmpty()
              ? QStringLiteral("\n  KEYS are: %1").arg(call.keyRoles.join(QStringLiteral("; ")))
              : QString();
    return QStringLiteral("%1\n  script: %2 (EVALSHA %3)\n  KEYS: [%4]%6\n  ARGV: [%5]")
        .arg(call.summary,
             RedisScript::resourcePath(call.script).mid(2), // ":/lua/..." -> "lua/..."
             QString::fromLatin1(RedisScript::fromResource(call.script).sha1()),
             list(call.keys, call.issued), list(call.args, call.issued), roles);
}

ActionOutcome ActionEngine::interpret(const ScriptCall &call, const RedisValue &reply)
{
    using R = ActionOutcome::Result;
    ActionOutcome out;
    out.reply = reply;
    const QString key = call.keys.isEmpty() ? QString() : printableBytes(call.keys.first());
    if (reply.isFailed()) {
        // No reply at all. RedisConnection says which side of the write the
        // loss was on: requests written before it "may or may not have run";
        // held or refused ones were never sent.
        static const QLatin1String unknown("The command may or may not have run");
        QString why = reply.errorMessage();
        if (why.contains(unknown)) {
            why.truncate(why.indexOf(unknown));
            why = why.trimmed();
            if (why.endsWith(QLatin1Char('.')))
                why.chop(1);
            out.result = R::Unknown;
            out.message = QStringLiteral("%1 may or may not have run: the connection was lost "
                                         "after it was sent and before its reply (%2); check "
                                         "\"%3\" before trying again.")
                              .arg(call.action, why, key);
        } else {
            // "Not connected to X: <why>. Next attempt in 87 ms." is the
            // connection's sentence; the operator needs why, and that nothing ran.
            static const QRegularExpression noise(QStringLiteral(
                "^(Not sent: |Not connected to [^ ]+: )|\\s*Next attempt in \\d+ ms\\.$"));
            why.remove(noise);
            out.result = R::Failed;
            out.message = QStringLiteral("%1 was not sent, so nothing ran: %2 Try again once the "
                                         "connection is back.")
                              .arg(call.action, why);
        }
        return out;
    }
    if (const QString refused = checkRefusal(call, reply); !refused.isEmpty()) {
        out.result = R::Refused;
        out.forceable = call.forceArg >= 0 && !call.force;
        out.message = refused;
        return out;
    }
    if (reply.isError() && reply.errorCode() == "CROSSSLOT") {
        // Refused by the Cluster router before anything was sent
        // (RedisRouter::crossSlotProblem), or by the server itself.
        out.result = R::Refused;
        QString why = reply.errorMessage();
        if (why.startsWith(QLatin1String("CROSSSLOT ")))
            why.remove(0, 10);
        out.message
            = QStringLiteral("Refused: %1 was not sent, so nothing ran: %2").arg(call.action, why);
        return out;
    }
    if (reply.isError()) {
        // Stopped part-way by the ACL: what it did is not known.
        out.result = scriptStoppedByAcl(reply) ? R::Unknown : R::Failed;
        if (const QString acl = aclRefusal(call.action, call.keys, reply); !acl.isEmpty()) {
            out.message = acl;
        } else {
            QString error = reply.errorMessage();
            if (!error.endsWith(QLatin1Char('.')))
                error += QLatin1Char('.');
            out.message
                = key.isEmpty()
                      ? QStringLiteral("%1 failed: %2").arg(call.action, error)
                      : QStringLiteral("%1 on \"%2\" failed: %3").arg(call.action, key, error);
        }
        return out;
    }
    if (call.meaning) {
        const ReplyMeaning meaning = call.meaning(reply);
        out.result = meaning.done ? R::Done : R::NothingDone;
        out.message = meaning.message;
    } else if (call.action == QLatin1String("events.enable")) {
        out.result = R::Done;
        out.message = QStringLiteral("Keyspace notifications are on (%1).")
                          .arg(QString::fromLatin1(call.command.value(3)));
    } else {
        out.result = R::Done;
        out.message = QStringLiteral("%1: %2").arg(call.action, reply.toDebugString());
    }
    return out;
}

ActionOutcome ActionEngine::interpretDryRun(const ScriptCall &call, const RedisValue &reply)
{
    using R = ActionOutcome::Result;
    ActionOutcome out;
    out.result = R::DryRun;
    out.reply = reply;
    if (reply.isError() && reply.bytes().contains("not allowed from read-only scripts")) {
        out.wouldBe = R::Done;
        out.message = QStringLiteral("Dry run: nothing was written; the checks pass, so it "
                                     "would run as described.");
        return out;
    }
    const ActionOutcome real = interpret(call, reply);
    if (real.result == R::Failed) {
        out.wouldBe = R::Done;
        out.message = QStringLiteral("Dry run: nothing was written; the server could not run the "
                                     "checks read-only (%1), so only the description above is "
                                     "known.")
                          .arg(printableBytes(reply.bytes(), 160));
        return out;
    }
    out.wouldBe = real.result;
    out.forceable = real.forceable;
    out.message = (real.result == R::Done ? QStringLiteral("Dry run: nothing was written; it "
                                                           "would do: ")
                                          : QStringLiteral("Dry run: nothing was written; it "
                                                           "would not act: "))
                  + real.message;
    return out;
}

ScriptCall ActionEngine::enableKeyspaceEvents(const QByteArray &currentFlags)
{
    QByteArray flags = currentFlags;
    for (char c : {'K', 'A'}) {
        if (!flags.contains(c))
            flags.append(c);
    }
    ScriptCall call;
    call.action = QStringLiteral("events.enable");
    call.command = {"CONFIG", "SET", "notify-keyspace-events", flags};
    call.summary = QStringLiteral("Turn on keyspace notifications (notify-keyspace-events \"%1\"): "
                                  "the server then publishes an event per change, which every "
                                  "subscriber receives.")
                       .arg(QString::fromLatin1(flags));
    return call;
}

void ActionEngine::run(const ScriptCall &call, bool dryRun, const QObject *context, Handler handler)
{
    ActionOutcome out;
    if (!call.isValid()) {
        // The pattern says why in refusal (a queue without a claims set, a
        // layout shown read-only): refused, nothing sent; without a reason
        // the action cannot be made at all.
        out.result = call.refusal.isEmpty() ? ActionOutcome::Result::Failed
                                            : ActionOutcome::Result::Refused;
        out.message = !call.refusal.isEmpty()
                          ? call.refusal
                          : QStringLiteral("%1 is not possible for this object.").arg(call.action);
        finish(call, out, context, handler);
        return;
    }
    if (m_readOnly) {
        out.result = ActionOutcome::Result::Refused;
        // In the operator's words ("Force release of lock:a"), not the id.
        const QString what = operatorWords(call);
        out.message
            = QStringLiteral("Read-only mode: %1%2 was not run; nothing was sent. "
                             "Connect again without read-only (--read-only) to act.")
                  .arg(what, call.keys.isEmpty() ? QString()
                                                 : QStringLiteral(" of %1").arg(
                                                     printableBytes(call.keys.first(), 80)));
        finish(call, out, context, handler);
        return;
    }
    if (!call.refusal.isEmpty() && !call.force) {
        out.result = ActionOutcome::Result::Refused;
        out.forceable = call.isForceable();
        out.message = QStringLiteral("Refused: %1 Nothing was sent.%2")
                          .arg(call.refusal,
                               out.forceable ? QStringLiteral(" Only a forced run (--force, "
                                                              "confirmed and audited) acts on it.")
                                             : QString());
        if (dryRun) {
            out.wouldBe = out.result;
            out.result = ActionOutcome::Result::DryRun;
            out.message = QStringLiteral("Dry run: it would be refused. ") + out.message;
        }
        finish(call, out, context, handler);
        return;
    }
    // Every attempt is audited: nothing is sent that could not be.
    if (!dryRun) {
        if (const QString why = m_audit->unwritable(); !why.isEmpty()) {
            out.result = ActionOutcome::Result::Failed;
            out.message = QStringLiteral("%1 was not sent: %2 Every action is written to the "
                                         "audit log first; name a file that can be written "
                                         "(--audit-log FILE, or GATEHOUSE_AUDIT_LOG).")
                              .arg(call.title.isEmpty() ? call.action : call.title, why);
            if (handler && context)
                handler(out);
            return;
        }
    }
    // Nothing is sent that the user may not run: a script stopped half-way by
    // NOPERM would keep what it wrote before the refused command.
    QPointer<const QObject> guard(context);
    // One outcome: the verdict, or no answer in time (nothing sent either way).
    auto answered = std::make_shared<bool>(false);
    if (m_replyTimeoutMs > 0)
        QTimer::singleShot(m_replyTimeoutMs, this, [this, call, guard, handler, answered] {
            if (std::exchange(*answered, true))
                return;
            ActionOutcome silent;
            silent.result = ActionOutcome::Result::Failed;
            silent.message = QStringLiteral("%1 was not sent: %2 did not answer within %3 ms "
                                            "whether the user may run it. Nothing was sent.")
                                 .arg(call.action, m_client->endpoint().address())
                                 .arg(m_replyTimeoutMs);
            finish(call, silent, guard, handler);
        });
    m_rights->check(
        call, this, [this, call, dryRun, guard, handler, answered](const ActionRights::Verdict &v) {
            if (std::exchange(*answered, true))
                return;
            if (v.kind == ActionRights::Verdict::Kind::Allowed
                || v.kind == ActionRights::Verdict::Kind::Unknown) {
                send(call, dryRun, guard, handler);
                return;
            }
            ActionOutcome refused;
            refused.result = ActionOutcome::Result::Failed; // as a NOPERM reply would be
            refused.message = v.sentence;
            if (dryRun && v.kind == ActionRights::Verdict::Kind::Denied) {
                refused.wouldBe = refused.result;
                refused.result = ActionOutcome::Result::DryRun;
                refused.message
                    = QStringLiteral("Dry run: it would be refused. ") + refused.message;
            }
            finish(call, refused, guard, handler);
        });
}

void ActionEngine::checkRights(const ScriptCall &call, const QObject *context,
                               RightsHandler handler)
{
    m_rights->check(call, context, [handler](const ActionRights::Verdict &v) {
        using Kind = ActionRights::Verdict::Kind;
        handler(v.kind != Kind::Lost, v.kind == Kind::Denied ? v.sentence : QString());
    });
}

void ActionEngine::send(const ScriptCall &call, bool dryRun, const QObject *context,
                        const Handler &handler)
{
    ActionOutcome out;
    QPointer<const QObject> guard(context);
    if (dryRun) {
        if (call.script.isEmpty()) {
            out.result = ActionOutcome::Result::DryRun;
            out.message = QStringLiteral("Dry run: nothing was sent.");
            finish(call, out, context, handler);
            return;
        }
        // The script's own checks, run where the server lets nothing be
        // written: the first write command fails the script instead.
        QList<QByteArray> evalRo{"EVAL_RO", RedisScript::fromResource(call.script).source(),
                                 QByteArray::number(call.keys.size())};
        evalRo << call.keys << call.args;
        m_client->command(evalRo, this, [this, call, guard, handler](const RedisValue &reply) {
            finish(call, interpretDryRun(call, reply), guard, handler);
        });
        return;
    }
    // Exactly one outcome: the reply, or the timeout, whichever comes first.
    auto answered = std::make_shared<bool>(false);
    auto done = [this, call, guard, handler, answered](const RedisValue &reply) {
        if (std::exchange(*answered, true))
            return;
        finish(call, interpret(call, reply), guard, handler);
    };
    RequestHandle request = !call.command.isEmpty()
                                ? m_client->command(call.command, this, done)
                                : m_client->script(RedisScript::fromResource(call.script),
                                                   call.keys, call.args, this, done);
    if (m_replyTimeoutMs <= 0)
        return;
    QTimer::singleShot(
        m_replyTimeoutMs, this, [this, call, guard, handler, answered, request]() mutable {
            if (std::exchange(*answered, true))
                return;
            request.cancel();
            ActionOutcome unknown;
            unknown.result = ActionOutcome::Result::Unknown;
            unknown.message
                = QStringLiteral("%1 may or may not have run: %2 did not reply within %3 ms; "
                                 "check \"%4\" before trying again.")
                      .arg(call.action, m_client->endpoint().address())
                      .arg(m_replyTimeoutMs)
                      .arg(call.keys.isEmpty() ? QString() : printableBytes(call.keys.first()));
            finish(call, unknown, guard, handler);
        });
}

QJsonObject ActionEngine::auditEntry(const ScriptCall &call, const ActionOutcome &outcome) const
{
    return auditEntry(call, outcome, m_client->endpoint().displayUrl(), m_environment);
}

QJsonObject ActionEngine::auditEntry(const ScriptCall &call, const ActionOutcome &outcome,
                                     const QString &connection, const QString &environment)
{
    QJsonArray keys, args;
    const auto masked = [&call](const QByteArray &bytes) {
        return redacted(redacted(bytes, call.issued), call.secret);
    };
    for (const QByteArray &k : call.keys)
        keys.append(keyToJson(masked(k)));
    for (const QByteArray &arg : call.args) {
        const QByteArray a = masked(arg);
        args.append(keyToJson(a.size() > 512 ? a.left(512) + "..." : a));
    }
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    QJsonObject entry{
        {QStringLiteral("time"),
         QDateTime::fromMSecsSinceEpoch(now).toUTC().toString(Qt::ISODateWithMs)},
        {QStringLiteral("timeMs"), double(now)},
        {QStringLiteral("connection"), connection},
        {QStringLiteral("user"), osUser()},
        {QStringLiteral("action"), call.action},
        {QStringLiteral("script"), call.script},
        {QStringLiteral("keys"), keys},
        {QStringLiteral("args"), args},
        {QStringLiteral("force"), call.force},
        {QStringLiteral("outcome"), resultId(outcome.result)},
        {QStringLiteral("message"),
         maskedText(maskedText(outcome.message, call.issued), call.secret)},
    };
    if (!environment.trimmed().isEmpty())
        entry.insert(QStringLiteral("environment"), environment.trimmed());
    return entry;
}

void ActionEngine::finish(const ScriptCall &call, const ActionOutcome &outcome,
                          const QObject *context, const Handler &handler)
{
    const QJsonObject entry = auditEntry(call, outcome);
    ActionOutcome out = outcome;
    const QString error = m_audit->append(entry, outcome.result == ActionOutcome::Result::DryRun);
    if (!error.isEmpty())
        out.message += QStringLiteral(" (%1)").arg(error);
    Q_EMIT audited(entry);
    if (handler && context) // a destroyed context drops the outcome
        handler(out);
}

} // namespace gatehouse
