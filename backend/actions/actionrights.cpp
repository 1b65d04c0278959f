// SPDX-License-Identifier: MIT
#include "actionrights.h"

#include <redis/redisclient.h>
#include <redis/redisscript.h>

#include <QCryptographicHash>
#include <QPointer>
#include <QRegularExpression>
#include <QSet>

namespace gatehouse {

namespace {

// The probes of a script call, in this order: with the call's keys (EVALSHA,
// EVAL), then without any (EVALSHA, EVAL).
enum ScriptCallProbe { ShaWithKeys, EvalWithKeys, ShaAlone, EvalAlone, ScriptCallProbes };

// Which script-call probe the verdict names, or -1: the call passes when
// EVALSHA or, failing it, EVAL (the engine falls back to it) passes.
qsizetype scriptCallDenied(const QSet<qsizetype> &refused)
{
    if (!refused.contains(ShaWithKeys) || !refused.contains(EvalWithKeys))
        return -1;
    return refused.contains(ShaAlone) && refused.contains(EvalAlone) ? ShaAlone : ShaWithKeys;
}

QByteArray upper(const QByteArray &s)
{
    return s.toUpper();
}

// One queued probe and what it stands for in the sentence.
struct Probe
{
    QList<QByteArray> args;
    QByteArray command; // what the script calls: "ZREM"; the call itself: "EVALSHA"
    QByteArray key;     // empty for a keyless command
    bool scriptCall = false;
};

QString quoted(const QByteArray &bytes)
{
    return QLatin1Char('"') + printableBytes(bytes, 120) + QLatin1Char('"');
}

QString denial(const ScriptCall &call, const QByteArray &user, const Probe &probe)
{
    const QString who = user.isEmpty() ? QStringLiteral("the connected Redis user")
                                       : QStringLiteral("the Redis user %1").arg(quoted(user));
    const QString name = user.isEmpty() ? QStringLiteral("USER") : QString::fromUtf8(user);
    if (probe.scriptCall && probe.args.value(2) == "0") {
        return QStringLiteral("Refused: %1 may run neither EVALSHA nor EVAL, which every action "
                              "script needs (%2). Nothing was sent. Grant them (ACL SETUSER %3 "
                              "+evalsha +eval), or connect as a user who may.")
            .arg(who, call.action, name);
    }
    if (probe.scriptCall) {
        // A script's keys are read and written as far as the ACL knows.
        QStringList keys;
        for (const QByteArray &k : call.keys)
            keys << quoted(k);
        return QStringLiteral("Refused: %1 may run neither EVALSHA nor EVAL with the keys of "
                              "%2 (%3): its ACL refuses the commands or write access to one of "
                              "the keys. Nothing was sent. Grant it (ACL SETUSER %4 +evalsha, and "
                              "key patterns that cover those keys for writing), or connect as a "
                              "user who may.")
            .arg(who, call.action, keys.join(QLatin1String(", ")), name);
    }
    const QString command = QString::fromLatin1(probe.command);
    QString what = command;
    QString grant = QStringLiteral("ACL SETUSER %1 +%2").arg(name, command.toLower());
    if (!probe.key.isEmpty()) {
        what += QStringLiteral(" on %1").arg(quoted(probe.key));
        grant += QStringLiteral(", and a key pattern that covers %1 (~%2)")
                     .arg(quoted(probe.key), printableBytes(probe.key, 120));
    }
    return QStringLiteral("Refused: %1 may not run %2 (which %3 calls): its ACL refuses the "
                          "command or the key. Nothing was sent. Grant it (%4), or connect as a "
                          "user who may.")
        .arg(who, what, call.action, grant);
}

// The probe a verdict names: the script call's, else the first command
// refused; a command refused whatever the key (on each of several, or on
// keys the script may be called with) is named alone (key empty). nullopt
// when none was refused.
std::optional<Probe> deniedProbe(const QList<Probe> &probes, const QSet<qsizetype> &refused,
                                 bool scripted)
{
    qsizetype denied = scripted ? scriptCallDenied(refused) : -1;
    for (qsizetype i = scripted ? ScriptCallProbes : 0; denied < 0 && i < probes.size(); ++i) {
        if (refused.contains(i))
            denied = i;
    }
    if (denied < 0)
        return std::nullopt;
    Probe named = probes.at(denied);
    // Refused with each of several keys (a script's): the command is.
    int asked = 0;
    bool everyKey = !named.scriptCall && !named.key.isEmpty();
    for (qsizetype i = 0; everyKey && i < probes.size(); ++i) {
        if (probes.at(i).command == named.command && !probes.at(i).scriptCall) {
            everyKey = refused.contains(i);
            ++asked;
        }
    }
    // Or the script may be called with its keys (EVALSHA or EVAL with them
    // passed: the keys are the user's to read and write): the command is.
    const bool keysAllowed
        = scripted && !(refused.contains(ShaWithKeys) && refused.contains(EvalWithKeys));
    if (everyKey && (asked > 1 || keysAllowed))
        named.key.clear();
    return named;
}

// The engine's own words for a request never sent (interpret): why, without
// the connection's retry noise, and what to do.
ActionRights::Verdict lostVerdict(const QString &action, const RedisValue &reply)
{
    static const QRegularExpression noise(
        QStringLiteral("^(Not sent: |Not connected to [^ ]+: )|\\s*Next attempt in \\d+ ms\\.$"));
    QString why = reply.errorMessage().remove(noise);
    if (why.contains(QLatin1String("may or may not have run")))
        why = QStringLiteral("the connection was lost while asking whether the user may run it.");
    ActionRights::Verdict verdict;
    verdict.kind = ActionRights::Verdict::Kind::Lost;
    verdict.sentence = QStringLiteral("%1 was not sent, so nothing ran: %2 Try again once the "
                                      "connection is back.")
                           .arg(action, why);
    return verdict;
}

} // namespace

ActionRights::ActionRights(RedisClient *client, QObject *parent)
    : QObject(parent)
    , m_client(client)
{}

QList<QByteArray> ActionRights::scriptCommands(const QByteArray &source)
{
    // The command, and the literal word after it: a container command's
    // subcommand (XINFO GROUPS), which the ACL checks as its own.
    static const QRegularExpression call(QStringLiteral(
        R"(redis\.p?call\(\s*['"]([A-Za-z][A-Za-z_]*)['"](?:\s*,\s*['"]([A-Za-z][A-Za-z_-]*)['"])?)"));
    static const QSet<QByteArray> containers{"XINFO",  "XGROUP", "OBJECT",  "MEMORY", "CLIENT",
                                             "CONFIG", "SCRIPT", "CLUSTER", "PUBSUB", "FUNCTION"};
    QList<QByteArray> out;
    QSet<QByteArray> seen;
    for (auto it = call.globalMatch(QString::fromUtf8(source)); it.hasNext();) {
        const QRegularExpressionMatch m = it.next();
        QByteArray command = m.captured(1).toLatin1().toUpper();
        if (command == "PUBLISH")
            continue;
        if (containers.contains(command)) {
            // A computed subcommand cannot be checked before it is known.
            if (m.captured(2).isEmpty())
                continue;
            command += '|' + m.captured(2).toLatin1().toUpper();
        }
        if (seen.contains(command))
            continue;
        seen.insert(command);
        out << command;
    }
    return out;
}

QList<QByteArray> ActionRights::probe(const QByteArray &command, const Shape &shape,
                                      const QByteArray &key)
{
    const int count = std::max(shape.arity > 0 ? shape.arity : -shape.arity,
                               shape.firstKey > 0 ? shape.firstKey + 1 : 1);
    // "XINFO|GROUPS" is the words XINFO GROUPS, counted in the arity.
    QList<QByteArray> args = command.split('|');
    const QByteArray filler = shape.firstKey > 0 && !key.isEmpty() ? key : QByteArray("0");
    while (args.size() < count)
        args << filler;
    return args;
}

void ActionRights::check(const ScriptCall &call, const QObject *context, Handler handler)
{
    QList<QByteArray> missing;
    if (call.command.isEmpty()) {
        for (const QByteArray &c :
             scriptCommands(RedisScript::fromResource(call.script).source())) {
            if (!m_shapes.contains(c))
                missing << c;
        }
    }
    if (missing.isEmpty()) {
        probeAll(call, context, handler);
        return;
    }
    QPointer<const QObject> guard(context);
    m_client->command(QList<QByteArray>{"COMMAND", "INFO"} + missing, this,
                      [this, call, guard, handler, missing](const RedisValue &reply) {
                          // A command the server does not know, or COMMAND refused:
                          // that command goes unprobed (the script finds out).
                          for (qsizetype i = 0; reply.isArray() && i < reply.size(); ++i) {
                              const RedisValue &info = reply.at(i);
                              if (!info.isArray() || info.size() < 4)
                                  continue;
                              m_shapes.insert(missing.value(i), {int(info.at(1).toInteger()),
                                                                 int(info.at(3).toInteger())});
                          }
                          if (guard)
                              probeAll(call, guard, handler);
                      });
}

void ActionRights::probeAll(const ScriptCall &call, const QObject *context, const Handler &handler)
{
    QList<Probe> probes;
    if (!call.command.isEmpty()) {
        probes.append({call.command, upper(call.command.value(0)), call.keys.value(0), false});
    } else {
        const QByteArray source = RedisScript::fromResource(call.script).source();
        const QByteArray sha = QCryptographicHash::hash(source, QCryptographicHash::Sha1).toHex();
        const QByteArray numKeys = QByteArray::number(call.keys.size());
        probes.append({QList<QByteArray>{"EVALSHA", sha, numKeys} + call.keys + call.args,
                       "EVALSHA", call.keys.value(0), true});
        probes.append({QList<QByteArray>{"EVAL", source, numKeys} + call.keys + call.args, "EVAL",
                       call.keys.value(0), true});
        // The same without keys: the command refused, or only the keys.
        probes.append({{"EVALSHA", sha, "0"}, "EVALSHA", {}, true});
        probes.append({{"EVAL", source, "0"}, "EVAL", {}, true});
        for (const QByteArray &command : scriptCommands(source)) {
            const auto shape = m_shapes.constFind(command);
            if (shape == m_shapes.cend())
                continue;
            if (shape->firstKey <= 0 || call.keys.isEmpty()) {
                probes.append({probe(command, *shape, {}), command, {}, false});
                continue;
            }
            for (const QByteArray &key : call.keys)
                probes.append({probe(command, *shape, key), command, key, false});
        }
    }
    const RedisScript check = RedisScript::fromResource(QStringLiteral("acl_check"));
    QList<QByteArray> evalRo{"EVAL_RO", check.source(), QByteArray::number(call.keys.size())};
    evalRo << call.keys;
    for (const Probe &p : std::as_const(probes))
        evalRo << QByteArray::number(p.args.size()) << p.args;
    QPointer<const QObject> guard(context);
    // The verdict from the check's reply, for the user the server named.
    auto decide
        = [this, call, probes, guard, handler](const QByteArray &user, const RedisValue &reply) {
              if (!guard)
                  return;
              if (reply.isFailed()) {
                  handler(lostVerdict(call.action, reply));
                  return;
              }
              Verdict verdict;
              if (!reply.isArray()) {
                  // Before Redis 7.0 (no EVAL_RO, no redis.acl_check_cmd), or the
                  // check refused: the script call is what can still be asked
                  // without running anything.
                  if (!call.command.isEmpty()) {
                      verdict.sentence = QStringLiteral("The server did not say whether the user "
                                                        "may run %1: %2")
                                             .arg(call.action, reply.errorMessage());
                      handler(verdict);
                      return;
                  }
                  probeScriptCall(call, user, reply.errorMessage(), guard, handler);
                  return;
              }
              QSet<qsizetype> refused;
              for (const RedisValue &index : reply.elements())
                  refused.insert(index.toInteger() - 1);
              if (const std::optional<Probe> named
                  = deniedProbe(probes, refused, call.command.isEmpty())) {
                  verdict.kind = Verdict::Kind::Denied;
                  verdict.sentence = denial(call, user, *named);
              } else {
                  verdict.kind = Verdict::Kind::Allowed;
              }
              handler(verdict);
          };
    // The reply comes only while this lives (it is the pipeline's context).
    m_client->pipeline({{"ACL", "WHOAMI"}, evalRo}, this,
                       [this, evalRo, decide, guard](const QList<RedisValue> &replies) {
                           if (!guard)
                               return;
                           const RedisValue &who = replies.value(0);
                           // A user refused ACL WHOAMI is the one the connection logged in
                           // as: the URL's, or "default" without one.
                           const QByteArray user = !who.isError() ? who.bytes()
                                                   : !m_client->endpoint().user.isEmpty()
                                                       ? m_client->endpoint().user.toUtf8()
                                                       : QByteArrayLiteral("default");
                           const RedisValue reply
                               = replies.size() == 2
                                     ? replies.at(1)
                                     : RedisValue::failed(QStringLiteral("no reply"));
                           // A user refused EVAL_RO (an ACL granting +eval but not
                           // +eval_ro) is asked with EVAL: the same script, which runs no
                           // command, only redis.acl_check_cmd.
                           if (reply.errorCode() == "NOPERM") {
                               QList<QByteArray> eval = evalRo;
                               eval[0] = "EVAL";
                               m_client->command(eval, this, [decide, user](const RedisValue &r) {
                                   decide(user, r);
                               });
                               return;
                           }
                           decide(user, reply);
                       });
}

void ActionRights::probeScriptCall(const ScriptCall &call, const QByteArray &user,
                                   const QString &why, const QPointer<const QObject> &guard,
                                   const Handler &handler)
{
    // Each probe passes the server's ACL check (command and keys) and then
    // fails before anything runs: EVALSHA of a digest that cannot exist (the
    // server answers NOSCRIPT to any digest not 40 characters long, without
    // looking it up), EVAL of a source that does not compile (nothing is run
    // or cached). A refusal is NOPERM, before either.
    static const QByteArray noDigest("gatehouse-rights-probe");
    static const QByteArray noSource("gatehouse rights probe: not a script");
    const QByteArray numKeys = QByteArray::number(call.keys.size());
    QList<Probe> probes(ScriptCallProbes);
    probes[ShaWithKeys] = {QList<QByteArray>{"EVALSHA", noDigest, numKeys} + call.keys, "EVALSHA",
                           call.keys.value(0), true};
    probes[EvalWithKeys] = {QList<QByteArray>{"EVAL", noSource, numKeys} + call.keys, "EVAL",
                            call.keys.value(0), true};
    probes[ShaAlone] = {{"EVALSHA", noDigest, "0"}, "EVALSHA", {}, true};
    probes[EvalAlone] = {{"EVAL", noSource, "0"}, "EVAL", {}, true};
    QList<QList<QByteArray>> commands;
    for (const Probe &p : std::as_const(probes))
        commands << p.args;
    m_client->pipeline(
        commands, this,
        [call, user, why, probes, guard, handler](const QList<RedisValue> &replies) {
            if (!guard)
                return;
            Verdict verdict;
            QSet<qsizetype> refused;
            for (qsizetype i = 0; i < replies.size(); ++i) {
                if (replies.at(i).isFailed()) {
                    verdict.kind = Verdict::Kind::Lost;
                    verdict.sentence = QStringLiteral("%1 was not sent, so nothing ran: the "
                                                      "connection was lost while asking whether "
                                                      "the user may run it. Try again once the "
                                                      "connection is back.")
                                           .arg(call.action);
                    handler(verdict);
                    return;
                }
                if (replies.at(i).errorCode() == "NOPERM")
                    refused.insert(i);
            }
            const qsizetype denied
                = replies.size() == ScriptCallProbes ? scriptCallDenied(refused) : -1;
            if (denied >= 0) {
                verdict.kind = Verdict::Kind::Denied;
                verdict.sentence = denial(call, user, probes.at(denied));
            } else {
                verdict.sentence
                    = QStringLiteral("The server could check only that the user may call the "
                                     "script of %1 on its keys, not each command the script "
                                     "runs (%2): its own reply will say if it refuses one.")
                          .arg(call.action, why);
            }
            handler(verdict);
        });
}

} // namespace gatehouse
