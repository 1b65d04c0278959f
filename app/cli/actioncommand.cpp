// SPDX-License-Identifier: MIT
#include "actioncommand.h"

#include "exitcodes.h"

#include <patterns/limiterreset.h>
#include <patterns/lockunit.h>
#include <patterns/reliablequeueunit.h>
#include <patterns/tokenfamilyunit.h>

#include <QTextStream>

namespace gatehouse::cli {

namespace {
constexpr int s_stuckBatch = 100; // jobs per queue_requeue_stuck call

QString w(const ActionCommand::Request &r, int i)
{
    return r.words.value(i);
}
} // namespace

QString ActionCommand::validate(const Request &r)
{
    const QString noun = w(r, 0);
    const QString verb = w(r, 1);
    const QString what = noun + QLatin1Char(' ') + verb;
    const int args = int(r.words.size()) - 2;
    auto needs = [&](int n, const char *argName) -> QString {
        if (args != n)
            return QStringLiteral("%1 takes %2.").arg(what, QLatin1String(argName));
        return {};
    };
    if (what == QLatin1String("lock release")) {
        if (QString e = needs(1, "one KEY"); !e.isEmpty())
            return e;
        return r.token.isEmpty() ? QStringLiteral("lock release needs --token T: the token you "
                                                  "saw holding the lock.")
                                 : QString();
    }
    if (what == QLatin1String("lock extend")) {
        if (QString e = needs(1, "one KEY"); !e.isEmpty())
            return e;
        if (r.token.isEmpty() || r.ttl <= 0)
            return QStringLiteral("lock extend needs --token T and --ttl MS (> 0).");
        if (r.ttl > LockUnit::MaxExtendMs)
            return QStringLiteral("lock extend --ttl is at most %1 ms (7 days); got %2.")
                .arg(LockUnit::MaxExtendMs)
                .arg(r.ttl);
        return {};
    }
    if (what == QLatin1String("queue requeue")) {
        if (QString e = needs(1, "one QUEUE"); !e.isEmpty())
            return e;
        if (r.job.isEmpty() == !r.stuck)
            return QStringLiteral("queue requeue needs either --job VALUE or --stuck.");
        return {};
    }
    if (what == QLatin1String("queue dead-letter")) {
        if (QString e = needs(1, "one QUEUE"); !e.isEmpty())
            return e;
        return r.job.isEmpty() ? QStringLiteral("queue dead-letter needs --job VALUE.") : QString();
    }
    if (what == QLatin1String("token issue")) {
        if (QString e = needs(1, "one FAMILY prefix"); !e.isEmpty())
            return e;
        if (QString e = TokenFamilyUnit::familyProblem(w(r, 2).toUtf8()); !e.isEmpty())
            return e;
        if (QString e = TokenFamilyUnit::ttlProblem(r.ttl); !e.isEmpty())
            return QStringLiteral("token issue --ttl: ") + e;
        if (r.valueSet) {
            if (QString e = TokenFamilyUnit::payloadProblem(r.value); !e.isEmpty())
                return QStringLiteral("--value: ") + e;
        }
        return {};
    }
    if (what == QLatin1String("token revoke"))
        return needs(1, "one KEY");
    if (what == QLatin1String("limiter reset"))
        return needs(1, "one KEY");
    if (what == QLatin1String("events enable"))
        return needs(0, "no arguments");
    return QStringLiteral("Unknown action \"%1\".").arg(r.words.join(QLatin1Char(' ')));
}

ActionCommand::ActionCommand(const RedisEndpoint &endpoint, Request request, QObject *parent)
    : Session(endpoint, parent)
    , m_request(std::move(request))
{}

PatternObject ActionCommand::objectFor(PatternKind kind, const QByteArray &key,
                                       QString *mismatch) const
{
    if (m_request.profile) {
        if (std::optional<PatternObject> o = m_request.profile->objectFor(key)) {
            if (patternSection(o->kind) == patternSection(kind))
                return *o;
            if (mismatch)
                *mismatch = QStringLiteral("profile \"%1\" says \"%2\" is a %3, not a %4.")
                                .arg(m_request.profile->name, printableBytes(key, 80),
                                     patternId(o->kind), patternSection(kind));
        }
    }
    // Without a profile rule: the conventional key names (README, "Profiles").
    PatternObject o;
    o.kind = kind;
    o.key = key;
    if (kind == PatternKind::SlidingWindow)
        o.related = {key + ":retry"};
    if (kind == PatternKind::ReliableQueue)
        o.related = {key + ":processing", key + ":claims", key + ":dead"};
    return o;
}

void ActionCommand::onReady()
{
    m_engine = std::make_unique<ActionEngine>(&client());
    m_engine->setReadOnly(m_request.readOnly);
    if (!m_request.auditLog.isEmpty())
        m_engine->setAuditLogPath(m_request.auditLog);

    const QString what = w(m_request, 0) + QLatin1Char(' ') + w(m_request, 1);
    const QByteArray arg = w(m_request, 2).toUtf8();
    QString mismatch;
    if (what == QLatin1String("lock release")) {
        ScriptCall call
            = LockUnit::forceRelease(objectFor(PatternKind::Lock, arg, &mismatch), m_request.token);
        call.refusal = mismatch;
        runCall(call);
    } else if (what == QLatin1String("lock extend")) {
        runCall(
            LockUnit::extend(objectFor(PatternKind::Lock, arg), m_request.token, m_request.ttl));
    } else if (what == QLatin1String("queue requeue")) {
        const PatternObject queue = objectFor(PatternKind::ReliableQueue, arg);
        if (!m_request.stuck) {
            runCall(ReliableQueueUnit::requeue(queue, m_request.job));
            return;
        }
        const qint64 olderThan
            = m_request.olderThanMs >= 0 ? m_request.olderThanMs : queue.params.stuckAfterMs;
        const ScriptCall call = ReliableQueueUnit::requeueStuck(queue, olderThan, s_stuckBatch);
        if (!call.isValid()) {
            fail(QStringLiteral("Queue \"%1\" has no claims set in the profile, so a single "
                                "command cannot tell how long its jobs have been in flight; "
                                "requeue them with --job, or from the console, which ages them "
                                "from first sight.")
                     .arg(QString::fromUtf8(arg)));
            return;
        }
        requeueStuckLoop(call, 0);
    } else if (what == QLatin1String("queue dead-letter")) {
        ScriptCall call = ReliableQueueUnit::deadLetter(
            objectFor(PatternKind::ReliableQueue, arg, &mismatch), m_request.job);
        call.refusal = mismatch;
        runCall(call);
    } else if (what == QLatin1String("token issue")) {
        PatternObject family;
        family.kind = PatternKind::TokenFamily;
        family.key = arg;
        m_issuedToken = TokenFamilyUnit::newToken();
        runCall(TokenFamilyUnit::issue(family, m_issuedToken, m_request.value, m_request.ttl));
    } else if (what == QLatin1String("token revoke")) {
        QList<QByteArray> families;
        if (m_request.profile) {
            for (const ProfileRule &rule : m_request.profile->rules) {
                if (rule.kind == PatternKind::TokenFamily)
                    families << rule.prefix;
            }
        }
        runCall(TokenFamilyUnit::revoke(arg, families));
    } else if (what == QLatin1String("limiter reset")) {
        resetLimiter(arg);
    } else if (what == QLatin1String("events enable")) {
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
    }
}

void ActionCommand::resetLimiter(const QByteArray &key)
{
    QString mismatch;
    if (m_request.profile && m_request.profile->objectFor(key)) {
        ScriptCall call = limiterReset(objectFor(PatternKind::SlidingWindow, key, &mismatch));
        if (!mismatch.isEmpty())
            call.refusal = mismatch;
        runCall(call);
        return;
    }
    // No rule for it: the conventional layouts, told apart by the key's type
    // (a counter is a STRING, a window a ZSET); the script checks it again.
    client().command({"TYPE", key}, this, [this, key](const RedisValue &type) {
        if (type.isError()) {
            fail(QStringLiteral("Cannot read the type of \"%1\": %2")
                     .arg(printableBytes(key, 80), type.errorMessage()));
            return;
        }
        runCall(limiterReset(objectFor(type.bytes() == "string" ? PatternKind::FixedWindow
                                                                : PatternKind::SlidingWindow,
                                       key)));
    });
}

void ActionCommand::runCall(const ScriptCall &plain)
{
    const ScriptCall call = m_request.force ? plain.forced() : plain;
    if (m_request.force && !plain.isForceable()) {
        fail(QStringLiteral("%1 cannot be forced: its checks keep jobs, tokens and locks from "
                            "being lost.")
                 .arg(w(m_request, 0) + QLatin1Char(' ') + w(m_request, 1)),
             ExitUsage);
        return;
    }
    if (m_request.dryRun)
        QTextStream(stdout) << ActionEngine::describe(call) << Qt::endl;
    m_engine->run(call, m_request.dryRun, this, [this](const ActionOutcome &o) { report(o); });
}

void ActionCommand::requeueStuckLoop(const ScriptCall &call, qint64 total)
{
    // Bounded batches, repeated until a batch finds nothing: the server is
    // never blocked by one long script.
    if (m_request.dryRun || m_request.readOnly) {
        runCall(call);
        return;
    }
    m_engine->run(call, false, this, [this, call, total](const ActionOutcome &o) {
        // A full batch may have left more; a short one means all were found.
        // Reply: {claims examined, jobs requeued, jobs}. A full batch of claims
        // may have left more; a short one means all were found.
        const qint64 requeued = o.reply.size() == 3 ? o.reply.at(1).toInteger() : 0;
        const bool more = o.reply.size() == 3 && o.reply.at(0).toInteger() >= s_stuckBatch;
        if (more
            && (o.result == ActionOutcome::Result::Done
                || o.result == ActionOutcome::Result::NothingDone)) {
            requeueStuckLoop(call, total + requeued);
            return;
        }
        if (o.result == ActionOutcome::Result::Done) {
            ActionOutcome sum = o;
            sum.message = QStringLiteral("Requeued %1 stuck jobs.").arg(total + requeued);
            report(sum);
            return;
        }
        if (o.result == ActionOutcome::Result::NothingDone && total > 0) {
            ActionOutcome sum = o;
            sum.result = ActionOutcome::Result::Done;
            sum.message = QStringLiteral("Requeued %1 stuck jobs.").arg(total);
            report(sum);
            return;
        }
        report(o);
    });
}

void ActionCommand::report(const ActionOutcome &o)
{
    using R = ActionOutcome::Result;
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
