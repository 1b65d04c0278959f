// SPDX-License-Identifier: MIT
#include "actioncommand.h"

#include "exitcodes.h"
#include "targetidentity.h"

#include <actions/matchcount.h>

#include <patterns/article.h>
#include <patterns/countedsentence.h>
#include <patterns/matchcounter.h>
#include <patterns/objectread.h>
#include <patterns/patternregistry.h>
#include <redis/serverinfo.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTextStream>

namespace gatehouse::cli {

namespace {
QString what(const ActionCommand::Request &r)
{
    return r.words.value(0) + QLatin1Char(' ') + r.words.value(1);
}
} // namespace

QList<std::pair<const PatternUnit *, PatternAction>>
ActionCommand::candidates(const Request &request)
{
    QList<std::pair<const PatternUnit *, PatternAction>> found;
    for (const PatternUnit *unit : PatternRegistry::instance().unitsIn(request.words.value(0))) {
        for (const PatternAction &a : unit->actions()) {
            if (!a.consoleOnly && a.verb == request.words.value(1))
                found.append({unit, a});
        }
    }
    return found;
}

ScriptCall ActionCommand::callFor(const Request &request)
{
    ScriptCall call;
    const auto found = candidates(request);
    if (!found.isEmpty() && found.first().second.build) {
        ActionRequest r;
        r.target = request.words.value(2).toUtf8();
        r.inputs = request.inputs;
        r.object = found.first().first->conventionalObject(r.target);
        call = found.first().second.build(r);
    }
    if (call.action.isEmpty())
        call.action = request.words.mid(0, 2).join(QLatin1Char('.')); // events.enable
    if (call.title.isEmpty())
        call.title = what(request);
    return call;
}

QString ActionCommand::validate(const Request &r)
{
    if (what(r) == QLatin1String("events enable"))
        return r.words.size() == 2 ? QString()
                                   : QStringLiteral("events enable takes no arguments.");
    const auto found = candidates(r);
    if (found.isEmpty()) {
        // A section named without a verb, or with one it does not have: its verbs.
        QStringList verbs;
        for (const PatternUnit *unit : PatternRegistry::instance().unitsIn(r.words.value(0))) {
            for (const PatternAction &a : unit->actions()) {
                if (!a.consoleOnly && !verbs.contains(a.verb))
                    verbs << a.verb;
            }
        }
        if (verbs.isEmpty())
            return QStringLiteral("Unknown action \"%1\".").arg(r.words.join(QLatin1Char(' ')));
        verbs.sort();
        return r.words.size() < 2
                   ? QStringLiteral("%1 needs a verb: %2.")
                         .arg(r.words.value(0), verbs.join(QStringLiteral(", ")))
                   : QStringLiteral("%1 has no verb \"%2\"; its verbs: %3.")
                         .arg(r.words.value(0), r.words.value(1), verbs.join(QStringLiteral(", ")));
    }
    const PatternAction &action = found.first().second;
    if (r.words.size() != 3)
        return QStringLiteral("%1 takes one %2.")
            .arg(what(r), action.usage.section(QLatin1Char(' '), 2, 2));
    // An input any pattern offering the verb takes (a BullMQ queue's --all
    // beside a reliable queue's --older-than); the chosen pattern's check
    // refuses the ones it does not.
    for (auto it = r.inputs.cbegin(); it != r.inputs.cend(); ++it) {
        const bool known = std::any_of(found.cbegin(), found.cend(), [&](const auto &candidate) {
            const QList<ActionInput> &inputs = candidate.second.inputs;
            return std::any_of(inputs.cbegin(), inputs.cend(),
                               [&](const ActionInput &in) { return in.id == it.key(); });
        });
        if (!known)
            return QStringLiteral("%1 takes no --%2 (usage: %3).")
                .arg(what(r), it.key(), action.usage);
    }
    // The inputs (the target's layout is checked by the call, once it is known).
    ActionRequest request;
    request.target = r.words.value(2).toUtf8();
    request.object.edit().key = request.target;
    request.inputs = r.inputs;
    // A usage problem for every pattern offering the verb is one now; one
    // for some only is told once the target's pattern is known (act()).
    QString first;
    for (const auto &[unit, candidate] : found) {
        const QString problem = candidate.check ? candidate.check(request) : QString();
        if (problem.isEmpty())
            return {};
        if (first.isEmpty())
            first = problem;
    }
    return first;
}

ActionCommand::ActionCommand(const RedisEndpoint &endpoint, Request request, QObject *parent)
    : Session(endpoint, parent)
    , m_request(std::move(request))
{}

ActionRequest ActionCommand::requestFor(const PatternUnit &unit, const QByteArray &key,
                                        QString *mismatch) const
{
    ActionRequest request;
    request.target = key;
    request.inputs = m_request.inputs;
    request.server = m_server;
    if (m_request.profile) {
        for (const ProfileRule &rule : m_request.profile->rules) {
            if (PatternUnit::of(rule.kind).keyField() == QLatin1String("prefix"))
                request.families << rule.prefix;
        }
        if (std::optional<PatternObject> o = m_request.profile->objectFor(key)) {
            const PatternUnit &said = PatternUnit::of(o->kind);
            if (said.section().id == unit.section().id) {
                request.object = *o;
                return request;
            }
            if (mismatch)
                *mismatch = QStringLiteral("profile \"%1\" says \"%2\" is a %3, not a %4.")
                                .arg(m_request.profile->name, printableBytes(key, 80),
                                     patternId(o->kind), unit.section().singular);
        }
    }
    // Without a profile rule: the conventional key names (README, "Profiles").
    request.object = unit.conventionalObject(key);
    return request;
}

void ActionCommand::onReady()
{
    m_engine = std::make_unique<ActionEngine>(&client());
    m_engine->setReadOnly(m_request.readOnly);
    if (!m_request.auditLog.isEmpty())
        m_engine->setAuditLogPath(m_request.auditLog);
    m_engine->setEnvironment(m_request.environment);

    if (what(m_request) == QLatin1String("events enable")) {
        client().command({"CONFIG", "GET", "notify-keyspace-events"}, this,
                         [this](const RedisValue &v) {
                             if (v.isError()) {
                                 fail(QStringLiteral("Cannot read notify-keyspace-events: %1")
                                          .arg(v.errorMessage()));
                                 return;
                             }
                             runCall(ActionEngine::enableKeyspaceEvents(
                                 v.size() == 2 ? v.at(1).bytes() : QByteArray()));
                         });
        return;
    }
    // Which server it is decides the commands some actions use (HSETEX).
    client().command({"INFO", "server"}, this, [this](const RedisValue &info) {
        if (!info.isError())
            m_server = ServerIdentity::fromInfo(parseInfo(info.bytes()));
        resolve();
    });
}

void ActionCommand::resolve()
{
    const auto found = candidates(m_request);
    const QByteArray key = m_request.words.value(2).toUtf8();
    // The profile's rule says which pattern the key is.
    if (m_request.profile) {
        if (std::optional<PatternObject> o = m_request.profile->objectFor(key)) {
            for (const auto &[unit, action] : found) {
                if (unit->kind() == o->kind) {
                    act(*unit, action);
                    return;
                }
            }
        }
    }
    // The action does not act on an existing key, or one pattern that is no
    // library's offers it. One library offering it still asks whether the
    // target is its own (below): another library's queue is said to be.
    if (found.first().second.targetIsPrefix
        || (found.size() == 1 && found.first().first->library().isEmpty())) {
        act(*found.first().first, found.first().second);
        return;
    }
    // No rule for it, and several patterns offer it (a counter is a STRING, a
    // window a ZSET; a BullMQ queue is named by its keys' base): each says
    // whether the target is one of its own (PatternUnit::identifies); the
    // script checks it again.
    // A library's queue asks first: its identification looks at the
    // library's own key names, more specific than a key's type (an RQ
    // queue's "rq:queue:<name>" is also a LIST, as a reliable queue is).
    QList<qsizetype> order;
    for (qsizetype i = 0; i < found.size(); ++i) {
        if (!found.at(i).first->library().isEmpty())
            order.append(i);
    }
    for (qsizetype i = 0; i < found.size(); ++i) {
        if (found.at(i).first->library().isEmpty())
            order.append(i);
    }
    QList<RedisClient::Command> probes;
    QList<int> counts;
    for (qsizetype i : std::as_const(order)) {
        const QList<RedisClient::Command> mine = found.at(i).first->identifyProbe(key);
        probes.append(mine);
        counts.append(int(mine.size()));
    }
    client().pipeline(probes, this, [this, key, found, order, counts](const QList<RedisValue> &r) {
        qsizetype at = 0;
        for (qsizetype k = 0; k < order.size(); ++k) {
            const qsizetype i = order.at(k);
            const QList<RedisValue> mine = r.mid(at, counts.at(k));
            at += counts.at(k);
            if (const auto bad = std::find_if(mine.cbegin(), mine.cend(),
                                              [](const RedisValue &v) { return v.isError(); });
                bad != mine.cend()) {
                fail(QStringLiteral("Cannot tell what \"%1\" is: %2")
                         .arg(printableBytes(key, 80), bad->errorMessage()));
                return;
            }
            if (found.at(i).first->identifies(key, mine)) {
                act(*found.at(i).first, found.at(i).second);
                return;
            }
        }
        actOrSayWhose(key, found);
    });
}

void ActionCommand::actOrSayWhose(const QByteArray &key, const Candidates &found)
{
    // No pattern offering the verb says the target is its own. A library's
    // queue that does not offer it may (a bee-queue queue named with RQ's
    // "delete"): that is said, with the verbs it has; otherwise the first
    // candidate's script refuses it by its type checks.
    QList<const PatternUnit *> others;
    QList<RedisClient::Command> probes;
    QList<int> counts;
    for (const PatternUnit *unit : PatternRegistry::instance().unitsIn(m_request.words.value(0))) {
        const bool offers = std::any_of(found.cbegin(), found.cend(),
                                        [unit](const auto &c) { return c.first == unit; });
        if (offers || unit->library().isEmpty())
            continue;
        const QList<RedisClient::Command> mine = unit->identifyProbe(key);
        others.append(unit);
        counts.append(int(mine.size()));
        probes += mine;
    }
    if (others.isEmpty()) {
        act(*found.first().first, found.first().second);
        return;
    }
    client().pipeline(probes, this, [this, key, found, others, counts](const QList<RedisValue> &r) {
        qsizetype at = 0;
        for (qsizetype i = 0; i < others.size(); ++i) {
            const QList<RedisValue> mine = r.mid(at, counts.at(i));
            at += counts.at(i);
            const bool answered = std::none_of(mine.cbegin(), mine.cend(),
                                               [](const RedisValue &v) { return v.isError(); });
            if (!answered || !others.at(i)->identifies(key, mine))
                continue;
            QStringList verbs;
            for (const PatternAction &a : others.at(i)->actions()) {
                if (!a.consoleOnly && !verbs.contains(a.verb))
                    verbs << a.verb;
            }
            fail(QStringLiteral("\"%1\" is %2, which has no \"%3\"; its verbs: %4. Nothing "
                                "was sent.")
                     .arg(printableBytes(key, 80), withArticle(others.at(i)->title()),
                          m_request.words.value(1),
                          verbs.isEmpty() ? QStringLiteral("none")
                                          : verbs.join(QStringLiteral(", "))),
                 ExitUsage);
            return;
        }
        act(*found.first().first, found.first().second);
    });
}

void ActionCommand::act(const PatternUnit &unit, const PatternAction &action)
{
    const QByteArray key = m_request.words.value(2).toUtf8();
    QString mismatch;
    const ActionRequest request = requestFor(unit, key, &mismatch);
    // An option another library's verb takes (Sidekiq's --from) is not
    // silently dropped by this one.
    for (auto it = m_request.inputs.cbegin(); it != m_request.inputs.cend(); ++it) {
        const auto takes = [&](const ActionInput &in) {
            return in.id == it.key();
        };
        if (std::none_of(action.inputs.cbegin(), action.inputs.cend(), takes)) {
            fail(QStringLiteral("\"%1\" is taken for %2 here, whose %3 takes no --%4 (usage: "
                                "%5). Nothing was sent.")
                     .arg(printableBytes(key, 80), withArticle(unit.title()), what(m_request),
                          it.key(), action.usage),
                 ExitUsage);
            return;
        }
    }
    if (action.check) {
        if (const QString problem = action.check(request); !problem.isEmpty()) {
            fail(problem, ExitUsage); // a usage problem for this target's pattern
            return;
        }
    }
    ScriptCall call = action.build(request);
    if (call.title.isEmpty())
        call.title = what(m_request); // the operator's words: "lock release"
    if (!call.isValid()) {
        // The target's layout does not allow it (no claims set; a layout
        // shown read-only): refused, and the refusal audited.
        m_engine->run(call, m_request.dryRun, this, [this](const ActionOutcome &o) { report(o); });
        return;
    }
    if (!mismatch.isEmpty() && call.refusal.isEmpty())
        call.refusal = mismatch;
    // An action that creates its target (a prefix) has nothing to read; one
    // forced past its checks is told by the operator what the key is. A
    // refusal by design (a Redisson limiter is read-only) is said of a key
    // that is what it names: read it first, as for any other action.
    const bool designRefusal = !call.refusal.isEmpty() && mismatch.isEmpty();
    if (!call.refusal.isEmpty() && !designRefusal && !m_request.force) {
        runCall(call);
        return;
    }
    // Forced, or a key named that is not a discovered object (a token to
    // revoke): never a part of another structure.
    if (action.targetIsPrefix || m_request.force) {
        actUnlessOwned(unit, request, call);
        return;
    }
    actAfterReading(unit, request, call);
}

void ActionCommand::failUnidentified(const QByteArray &target, const QString &error)
{
    fail(QStringLiteral("Cannot tell what \"%1\" is before acting on it: %2 Nothing was sent.")
             .arg(printableBytes(target, 80), error),
         ExitFailure);
}

void ActionCommand::actUnlessOwned(const PatternUnit &unit, const ActionRequest &request,
                                   const ScriptCall &call)
{
    // --force skips the checks that the key is what the action expects, not
    // the one that it is no other object's part (a BullMQ queue's meta hash
    // is never a lock to delete, a job's hash never a token to revoke).
    checkTargetIdentity(
        client(), this, unit, request.target, 0,
        [this, request, call](const QString &refusal, const QString &error) {
            if (!error.isEmpty()) {
                failUnidentified(request.target, error);
                return;
            }
            if (refusal.isEmpty()) {
                if (call.batch > 0 && !m_request.dryRun && !m_request.readOnly
                    && !m_request.force) {
                    batchLoop(call, 0);
                    return;
                }
                runCall(call);
                return;
            }
            ScriptCall refused = call;
            refused.refusal = refusal;
            if (m_request.force)
                refused.refusal += QStringLiteral(" --force does not reach a key another object "
                                                  "owns.");
            refused.forceable = false;
            m_engine->run(refused, m_request.dryRun, this,
                          [this](const ActionOutcome &o) { report(o); });
        },
        true);
}

void ActionCommand::actAfterReading(const PatternUnit &unit, const ActionRequest &request,
                                    const ScriptCall &call)
{
    // The server's clock first (ages and deadlines are read against it),
    // then the pattern's own bounded probe of the object.
    client().pipeline(
        {{QByteArrayLiteral("TIME")}}, this,
        [this, &unit, request, call](const QList<RedisValue> &t) {
            ProbeContext context;
            context.nowMs = serverTimeMs(t.value(0));
            if (context.nowMs < 0) {
                QString why = t.value(0).errorMessage().trimmed();
                if (!why.endsWith(QLatin1Char('.')))
                    why += QLatin1Char('.');
                // Refused by an ACL: what the user needs for an action.
                if (t.value(0).errorCode() == "NOPERM") {
                    const QString user = client().endpoint().user.isEmpty()
                                             ? QStringLiteral("default")
                                             : client().endpoint().user;
                    why += QStringLiteral(" Actions need TIME, EVAL and EVALSHA: ACL SETUSER %1 "
                                          "+time +eval +evalsha (docs/safety.md, \"ACL users\").")
                               .arg(user);
                }
                fail(QStringLiteral("Cannot read the server's clock before acting on \"%1\": %2 "
                                    "Nothing was sent.")
                         .arg(printableBytes(request.target, 80), why),
                     ExitFailure);
                return;
            }
            // Named by a profile rule, the key is what the rule says;
            // otherwise what discovery would say it is, first.
            if (m_request.profile && m_request.profile->objectFor(request.target)) {
                readToCheck(unit, request, call, context, 2);
                return;
            }
            checkTargetIdentity(client(), this, unit, request.target, context.nowMs,
                                [this, &unit, request, call, context](const QString &refusal,
                                                                      const QString &error) {
                                    if (!error.isEmpty()) {
                                        failUnidentified(request.target, error);
                                        return;
                                    }
                                    if (!refusal.isEmpty()) {
                                        ScriptCall refused = call;
                                        refused.refusal = refusal;
                                        runCall(refused);
                                        return;
                                    }
                                    readToCheck(unit, request, call, context, 2);
                                });
        });
}

void ActionCommand::readToCheck(const PatternUnit &unit, const ActionRequest &request,
                                const ScriptCall &call, const ProbeContext &context, int passes)
{
    readObjects(
        client(), this, {{&unit, request.object, context}},
        [this, &unit, request, call, context, passes](const ObjectReplies &read) {
            const QList<RedisValue> &replies = read.at(0);
            if (const auto bad = std::find_if(replies.cbegin(), replies.cend(),
                                              [](const RedisValue &v) { return v.isFailed(); });
                bad != replies.cend()) {
                fail(QStringLiteral("Cannot read \"%1\" before acting on it: %2 "
                                    "Nothing was sent.")
                         .arg(printableBytes(request.target, 80), bad->errorMessage()),
                     ExitFailure);
                return;
            }
            if (passes > 1) {
                if (std::optional<PatternObject> more
                    = unit.afterRead(request.object, request.object, replies)) {
                    ActionRequest again = request;
                    again.object = *more;
                    readToCheck(unit, again, call, context, passes - 1);
                    return;
                }
            }
            const Reading reading = unit.read(request.object, replies, context);
            if (!call.refusal.isEmpty()
                && (reading.status == Reading::Status::WrongType
                    || reading.status == Reading::Status::Missing)) {
                ScriptCall refused = call;
                refused.refusal = QStringLiteral("\"%1\" is not %2: %3")
                                      .arg(printableBytes(request.target, 80),
                                           withArticle(unit.title()), reading.message);
                runCall(refused);
                return;
            }
            // A library's object, or a queue asked for its stuck jobs, with
            // none of its keys: a name mistyped, or one gone or idle; its
            // scripts would only find "nothing to do".
            if (call.refusal.isEmpty() && reading.status == Reading::Status::Missing
                && (!unit.library().isEmpty() || request.has(QStringLiteral("stuck")))) {
                QString why = reading.message;
                while (why.endsWith(QLatin1Char('.')))
                    why.chop(1);
                ScriptCall refused = call;
                refused.refusal = QStringLiteral("\"%1\" has none of its keys (%2): its name is "
                                                 "wrong, or it is gone or idle. Check the name "
                                                 "(gatehouse-cli snapshot lists what there is).")
                                      .arg(printableBytes(request.target, 80), why);
                runCall(refused);
                return;
            }
            if (reading.status != Reading::Status::Missing && !reading.library().layoutKnown) {
                ScriptCall refused = call;
                refused.refusal = QStringLiteral("\"%1\" is not %2 layout Gatehouse knows "
                                                 "(the console shows it read-only). %3")
                                      .arg(printableBytes(request.target, 80),
                                           withArticle(unit.title()), reading.message)
                                      .trimmed();
                runCall(refused);
                return;
            }
            if (m_request.dryRun && request.has(QStringLiteral("stuck")) && !MatchCounter::of(call))
                m_stuckNow
                    = reading.queue().stuckIsLowerBound && reading.queue().stuck == 0
                          ? QStringLiteral("How many are stuck is not known from the reading "
                                           "(%1); the run's script finds them.")
                                .arg(reading.message)
                          : QStringLiteral("%1%2 stuck as just read; the run moves those its "
                                           "script finds stuck when it runs.")
                                .arg(reading.queue().stuckIsLowerBound ? QStringLiteral("At least ")
                                                                       : QString())
                                .arg(reading.queue().stuck);
            if (call.batch > 0 && !m_request.dryRun && !m_request.readOnly
                && call.refusal.isEmpty()) {
                batchLoop(call, 0);
                return;
            }
            runCall(call);
        });
}

void ActionCommand::runCall(const ScriptCall &plain)
{
    const ScriptCall call = m_request.force ? plain.forced() : plain;
    if (m_request.force && !plain.isForceable()) {
        fail(QStringLiteral("%1 cannot be forced: its checks keep jobs, tokens and locks from "
                            "being lost.")
                 .arg(what(m_request)),
             ExitUsage);
        return;
    }
    if (!call.issued.isEmpty())
        m_issuedToken = call.issued;
    if (m_request.dryRun)
        say(ActionEngine::describe(call));
    if (m_request.dryRun && !m_stuckNow.isEmpty())
        say(m_stuckNow);
    if (m_request.dryRun && MatchCount::counts({call})) {
        // A batch verb's dry run says how many match now, as the console's
        // confirmation does: counted at the server's clock (TIME), bounded.
        client().pipeline(
            {{QByteArrayLiteral("TIME")}}, this, [this, call](const QList<RedisValue> &r) {
                const QList<RedisValue> t = r.value(0).elements();
                const qint64 nowMs = t.value(0).bytes().toLongLong() * 1000
                                     + t.value(1).bytes().toLongLong() / 1000;
                MatchCount::read(
                    &client(), {call}, nowMs, this, [this, call](const MatchCount::Result &m) {
                        if (const QString said = MatchCount::sentence(m, {call}); !said.isEmpty())
                            say(said);
                        runDry(call);
                    });
            });
        return;
    }
    m_engine->run(call, m_request.dryRun, this, [this](const ActionOutcome &o) { report(o); });
}

void ActionCommand::runDry(const ScriptCall &call)
{
    m_engine->run(call, true, this, [this](const ActionOutcome &o) { report(o); });
}

void ActionCommand::batchLoop(const ScriptCall &call, qint64 total)
{
    // Bounded batches, repeated until a batch finds less than a full one: the
    // server is never blocked by one long script. Reply: {examined, done, ...}.
    m_engine->run(call, false, this, [this, call, total](const ActionOutcome &o) {
        const qint64 done = o.reply.size() >= 2 ? o.reply.at(1).toInteger() : 0;
        const bool more = o.reply.size() >= 2 && o.reply.at(0).toInteger() >= call.batch;
        if (more
            && (o.result == ActionOutcome::Result::Done
                || o.result == ActionOutcome::Result::NothingDone)) {
            batchLoop(call, total + done);
            return;
        }
        if (o.result == ActionOutcome::Result::Done
            || (o.result == ActionOutcome::Result::NothingDone && total > 0)) {
            ActionOutcome sum = o;
            sum.result = ActionOutcome::Result::Done;
            sum.message = countedSentence(call.batchSummary, total + done);
            report(sum);
            return;
        }
        report(o);
    });
}

void ActionCommand::say(const QString &text)
{
    if (m_request.json)
        m_said << text; // in the outcome's object
    else
        QTextStream(stdout) << text << Qt::endl;
}

void ActionCommand::report(const ActionOutcome &o)
{
    using R = ActionOutcome::Result;
    if (m_request.json) {
        // One object, whatever the outcome (scripts read it; the exit code
        // is the same as in text).
        QJsonObject out{{QStringLiteral("command"), what(m_request)},
                        {QStringLiteral("target"), m_request.words.value(2)},
                        {QStringLiteral("outcome"), resultId(o.result)},
                        {QStringLiteral("message"), o.message}};
        if (o.result == R::DryRun)
            out.insert(QStringLiteral("wouldBe"), resultId(o.wouldBe));
        if (!m_issuedToken.isEmpty() && o.result == R::Done)
            out.insert(QStringLiteral("token"), QString::fromUtf8(m_issuedToken));
        if (!m_said.isEmpty()) // a dry run's description and counts
            out.insert(QStringLiteral("said"), QJsonArray::fromStringList(m_said));
        QTextStream(stdout) << QJsonDocument(out).toJson(QJsonDocument::Compact) << Qt::endl;
        const bool ok = o.result == R::Done || (o.result == R::DryRun && o.wouldBe == R::Done);
        done(ok                                                ? ExitOk
             : o.result == R::Failed || o.result == R::Unknown ? ExitFailure
                                                               : ExitNothingDone);
        return;
    }
    switch (o.result) {
    case R::Done:
        if (!m_issuedToken.isEmpty()) {
            QTextStream(stdout) << m_issuedToken << Qt::endl; // shown once; not in the audit log
            QTextStream(stderr) << o.message << Qt::endl;
        } else {
            QTextStream(stdout) << o.message << Qt::endl;
        }
        done(ExitOk);
        break;
    case R::DryRun:
        QTextStream(stdout) << o.message << Qt::endl;
        done(o.wouldBe == R::Done ? ExitOk : ExitNothingDone);
        break;
    case R::NothingDone:
    case R::Refused:
        fail(o.message, ExitNothingDone);
        break;
    case R::Failed:
    case R::Unknown:
        fail(o.message, ExitFailure);
        break;
    }
}

} // namespace gatehouse::cli
