// SPDX-License-Identifier: MIT
#include "symfonydelayedunit.h"

#include <patterns/globmatch.h>
#include <patterns/libraryqueue/libraryqueue.h>
#include <patterns/matchcounter.h>

#include <QJsonDocument>
#include <QJsonObject>

namespace gatehouse {

// "no worker seen" in the Status column: the library-queue kit's judgement.
[[maybe_unused]] static const bool s_judged
    = registerJudgement(SymfonyDelayedUnit::Kind, LibraryQueueUnit::judgement());

namespace {

const QByteArray Suffix = "__queue";

const char *StuckReason = "due but not yet in the stream: the transport moves it on a "
                          "consumer's next get()";

// The transport's delayed message: JSON with a string "body" and "headers".
bool isMessage(const QByteArray &member)
{
    const QJsonDocument doc = QJsonDocument::fromJson(member);
    return doc.isObject() && doc.object().value(QStringLiteral("body")).isString()
           && doc.object().contains(QStringLiteral("headers"));
}

// release with no message: every delayed message, counted by ZCARD.
[[maybe_unused]] const bool s_releaseCounted
    = MatchCounter::add(QStringLiteral("symfony_release_delayed"),
                        {[](const ScriptCall &call, qint64) {
                             if (!call.args.value(0).isEmpty())
                                 return QList<QList<QByteArray>>();
                             return QList<QList<QByteArray>>{{"ZCARD", call.keys.value(0)}};
                         },
                         [](const QList<RedisValue> &r) { return r.value(0).toInteger(); },
                         [](const ScriptCall &call) {
                             return QStringLiteral("they are moved %1 per run until none is left")
                                 .arg(QString::fromLatin1(call.args.value(1)));
                         }});

} // namespace

QByteArray SymfonyDelayedUnit::streamOf(const QByteArray &key)
{
    return key.endsWith(Suffix) && key.size() > Suffix.size() ? key.chopped(Suffix.size())
                                                              : QByteArray();
}

PatternObject SymfonyDelayedUnit::objectForSet(const QByteArray &key)
{
    PatternObject o;
    o.kind = Kind;
    o.key = key;
    o.related = {streamOf(key)};
    return o;
}

QList<PatternUnit::Command> SymfonyDelayedUnit::identifyProbe(const QByteArray &target) const
{
    return {{"TYPE", target}, {"TYPE", streamOf(target).isEmpty() ? target : streamOf(target)}};
}

bool SymfonyDelayedUnit::identifies(const QByteArray &target, const QList<RedisValue> &r) const
{
    // "<stream>__queue", a ZSET (or gone), beside its stream.
    return !streamOf(target).isEmpty() && r.size() == 2
           && (r.at(0).bytes() == "zset" || r.at(0).bytes() == "none")
           && r.at(1).bytes() == "stream";
}

std::optional<PatternObject> SymfonyDelayedUnit::objectFor(const ProfileRule &rule,
                                                           const QByteArray &key) const
{
    // The set, or its stream (the object's related key).
    const QByteArray set = streamOf(key).isEmpty() ? key + Suffix : key;
    if (!globMatch(rule.match, set) || rule.excludes(set))
        return std::nullopt;
    PatternObject o = objectForSet(set);
    o.params = rule.params;
    o.source = QString();
    return o;
}

PatternObject SymfonyDelayedUnit::conventionalObject(const QByteArray &key) const
{
    return objectForSet(key);
}

std::optional<KeyClaim> SymfonyDelayedUnit::claimKey(const KeyShape &shape, qint64) const
{
    // The transport never expires its delayed set (Connection::add ZADDs,
    // get ZPOPMINs, cleanup DELs): one with a TTL is another's (a
    // redis-semaphore named "<x>__queue" is PEXPIREd on every acquire).
    if (shape.type != "zset" || streamOf(shape.key).isEmpty() || shape.pttlMs > 0)
        return std::nullopt;
    return KeyClaim{QStringLiteral("delayed"), 30};
}

QList<PatternObject> SymfonyDelayedUnit::groupClaims(ClaimPool &pool) const
{
    // "<stream>__queue" beside its stream (which stays the stream pattern's),
    // or scored in epoch ms as the transport scores it.
    QList<PatternObject> out;
    for (const QByteArray &key : pool.claimed(Kind, 1000)) {
        const ClaimPool::Entry *stream = pool.find(streamOf(key));
        const ClaimPool::Entry *set = pool.find(key);
        const bool beside = stream && stream->shape.type == "stream";
        const bool epochMs = set && set->shape.firstScore >= 1e12 && set->shape.lastScore < 1e14;
        if (pool.roleOf(key, Kind).isEmpty() || !(beside || epochMs))
            continue;
        PatternObject o = objectForSet(key);
        o.source = QStringLiteral("autodetected");
        out.append(o);
        pool.take(key);
    }
    return out;
}

QList<PatternUnit::Command> SymfonyDelayedUnit::probe(const PatternObject &o,
                                                      const ProbeContext &c) const
{
    return {{"TYPE", o.key},
            {"TYPE", o.related.value(0)},
            {"ZCARD", o.key},
            // Symfony compares due times in epoch ms (Connection::get).
            {"ZCOUNT", o.key, "-inf", number(c.nowMs)},
            {"ZRANGE", o.key, "0", "0", "WITHSCORES"}};
}

Reading SymfonyDelayedUnit::read(const PatternObject &o, const QList<RedisValue> &r,
                                 const ProbeContext &c) const
{
    const QList<QByteArray> replyKeys{o.key, o.related.value(0), o.key, o.key, o.key};
    if (r.size() < replyKeys.size())
        return *failure(o, r, replyKeys, c.nowMs);
    Reading reading;
    reading.atMs = c.nowMs;
    const QByteArray setType = r.at(0).bytes();
    const QByteArray streamType = r.at(1).bytes();
    if (setType == "none") {
        reading.status = Reading::Status::Missing;
        reading.message = QStringLiteral("No delayed set \"%1\".").arg(printableBytes(o.key));
        return reading;
    }
    if (setType != "zset" || (streamType != "stream" && streamType != "none")) {
        reading.editLibrary().layoutKnown = false;
        reading.message
            = QStringLiteral("Not Symfony Messenger's layout (\"%1\" is a %2, \"%3\" "
                             "a %4): shown read-only.")
                  .arg(printableBytes(o.key), QString::fromLatin1(setType),
                       printableBytes(o.related.value(0)), QString::fromLatin1(streamType));
        return reading;
    }
    if (auto f = failure(o, r, replyKeys, c.nowMs))
        return *f;
    reading.editQueue().length = r.at(2).toInteger();
    reading.editLibrary().counts = {{QStringLiteral("delayed"), reading.queue().length}};
    reading.editQueue().stuck = r.at(3).toInteger();
    reading.editQueue().inFlight = 0;
    const auto &first = r.at(4).elements();
    if (first.size() >= 2) {
        const QByteArray member = first.at(0).bytes();
        reading.editLibrary().layoutKnown = isMessage(member);
        const qint64 due = qint64(first.at(1).bytes().toDouble());
        if (due <= c.nowMs && reading.editLibrary().layoutKnown)
            reading.editLibrary().stuckJobs.append(
                {QJsonDocument::fromJson(member)[QStringLiteral("uniqid")].toString().toUtf8(),
                 QString::fromLatin1(StuckReason), due});
    }
    if (!reading.editLibrary().layoutKnown)
        reading.message = QStringLiteral("Members of \"%1\" are not Symfony Messenger messages "
                                         "(JSON with body and headers): shown read-only.")
                              .arg(printableBytes(o.key));
    return reading;
}

QList<Figure> SymfonyDelayedUnit::figures() const
{
    return {countFigure(QStringLiteral("delayed"), QStringLiteral("Delayed"),
                        QStringLiteral("delayed")),
            stuckFigure(QStringLiteral("Due, not moved"))};
}

QList<LibraryQueueUnit::JobState> SymfonyDelayedUnit::states() const
{
    return {{QStringLiteral("delayed")}};
}

LibraryQueueUnit::StuckRule SymfonyDelayedUnit::stuckRule() const
{
    return {QStringLiteral("stuck"), QStringLiteral("due and not yet moved into the stream"),
            QString()};
}

libraryqueue::ColumnOptions SymfonyDelayedUnit::columnOptions() const
{
    libraryqueue::ColumnOptions options;
    options.dead = false;
    options.noThroughput = QStringLiteral("The delayed set keeps no count of moved messages.");
    return options;
}

libraryqueue::JsonOptions SymfonyDelayedUnit::jsonOptions() const
{
    return {false, libraryqueue::LowerBound::Exact};
}

void SymfonyDelayedUnit::writeLibraryJson(const ObjectState &state, const Reading &r, qint64,
                                          QJsonObject &j) const
{
    j.insert(QStringLiteral("stream"), QString::fromUtf8(state.object->related.value(0)));
    j.insert(QStringLiteral("dueCount"), double(r.queue().stuck));
}

QList<PatternAction> SymfonyDelayedUnit::actions() const
{
    const QByteArray cut = QByteArray::number(ScriptCall::ReplyCutBytes);
    return {libraryqueue::jobOrAllAction(
        QStringLiteral("release"), QStringLiteral("Release delayed now…"), QStringLiteral("all"),
        QStringLiteral("Every delayed message"), [cut](const ActionRequest &r) {
            ScriptCall call;
            call.action = QStringLiteral("queue.release");
            call.script = QStringLiteral("symfony_release_delayed");
            call.keys = {r.object->key, r.object->related.value(0)};
            call.keyRoles = {QStringLiteral("delayed zset"), QStringLiteral("stream stream")};
            const QByteArray message = messageIdOf(r.input(QStringLiteral("job")));
            call.args = {message, QByteArray::number(Batch), cut, "php"};
            if (!message.isEmpty()) {
                call.summary = QStringLiteral("Move delayed Symfony Messenger message %1 of \"%2\" "
                                              "into its stream now, as the transport's get() "
                                              "moves a due one.")
                                   .arg(printableBytes(message, 80), printableBytes(r.object->key));
                call.meaning = [message](const RedisValue &v) {
                    return libraryqueue::jobMeaning(
                        v.toInteger(), message, QStringLiteral("was moved into the stream"),
                        {{0, QStringLiteral("There is no delayed message %1; nothing "
                                            "changed.")}});
                };
            } else {
                call.summary = QStringLiteral("Move every delayed Symfony Messenger message of "
                                              "\"%1\" into its stream now, up to %2 per run, as "
                                              "the transport's get() moves the due ones.")
                                   .arg(printableBytes(r.object->key))
                                   .arg(Batch);
                libraryqueue::batchRun(call, Batch,
                                       QStringLiteral("Moved %1 delayed messages into the "
                                                      "stream."));
            }
            return call;
        })};
}

} // namespace gatehouse
