// SPDX-License-Identifier: MIT
#include "beequeueunit.h"

#include <patterns/globmatch.h>
#include <patterns/libraryqueue/jobtimes.h>
#include <patterns/libraryqueue/libraryqueue.h>

#include <QJsonDocument>
#include <QJsonObject>

#include <QSet>

#include <algorithm>

namespace gatehouse {

// "no worker seen" in the Status column: the library-queue kit's judgement.
[[maybe_unused]] static const bool s_judged
    = registerJudgement(BeeQueueUnit::Kind, LibraryQueueUnit::judgement());

namespace {

// bee-queue's names and types, in State order (lib/queue.js Queue#destroy
// lists the same keys).
constexpr const char *Suffixes[] = {"waiting",  "active",     "succeeded", "failed", "delayed",
                                    "stalling", "stallBlock", "jobs",      "id"};
constexpr const char *Types[]
    = {"list", "list", "set", "set", "zset", "set", "string", "hash", "string"};
constexpr int CountedStates = BeeQueueUnit::Delayed + 1; // waiting .. delayed: checkHealth's

const char *StalledReason = "stalled: in active and still in stalling after a whole stall "
                            "interval (its worker died or stopped renewing it); bee-queue's next "
                            "stall check moves it back to waiting";

int stateOf(const QByteArray &key, const QByteArray &type)
{
    const qsizetype colon = key.lastIndexOf(':');
    if (colon <= 0)
        return -1;
    const QByteArray last = key.mid(colon + 1);
    for (int s = 0; s < BeeQueueUnit::KeyCount; ++s) {
        if (last == Suffixes[s])
            return type.isEmpty() || type == Types[s] ? s : -1;
    }
    return -1;
}

// Keys only bee-queue writes under a base: its record of every job and its
// stall check's two keys.
bool distinctive(int s)
{
    return s == BeeQueueUnit::Jobs || s == BeeQueueUnit::Stalling || s == BeeQueueUnit::StallBlock;
}

} // namespace

QByteArray BeeQueueUnit::suffix(State s)
{
    return Suffixes[s];
}

QByteArray BeeQueueUnit::type(State s)
{
    return Types[s];
}

QByteArray BeeQueueUnit::keyOf(const PatternObject &o, State s)
{
    const QByteArray k = o.relatedKey(s);
    return k.isEmpty() ? o.key + ':' + Suffixes[s] : k;
}

QByteArray BeeQueueUnit::baseOf(const QByteArray &key)
{
    return stateOf(key, {}) < 0 ? QByteArray() : key.left(key.lastIndexOf(':'));
}

PatternObject BeeQueueUnit::objectForBase(const QByteArray &base)
{
    PatternObject o;
    o.kind = Kind;
    o.key = base;
    for (const char *s : Suffixes)
        o.related << base + ':' + s;
    return o;
}

bool BeeQueueUnit::ownsKey(const PatternObject &o, const QByteArray &key) const
{
    return (key.size() > o.key.size() + 1 && key.startsWith(o.key) && key.at(o.key.size()) == ':')
           || PatternUnit::ownsKey(o, key);
}

QList<PatternUnit::Command> BeeQueueUnit::identifyProbe(const QByteArray &target) const
{
    QList<Command> cmds;
    for (const char *s : Suffixes)
        cmds.append({"TYPE", target + ':' + s});
    return cmds;
}

bool BeeQueueUnit::identifies(const QByteArray &, const QList<RedisValue> &r) const
{
    // Two of bee-queue's names with its types, one of them only its own.
    if (r.size() != KeyCount)
        return false;
    int found = 0;
    bool own = false;
    for (int s = 0; s < KeyCount; ++s) {
        if (r.at(s).bytes() == Types[s]) {
            ++found;
            own = own || distinctive(s);
        }
    }
    return own && found >= 2;
}

QList<QByteArray> BeeQueueUnit::scanGlobs(const ProfileRule &rule) const
{
    // A rule names queues by their base ("bq:*"): every queue keeps its
    // "jobs" hash or its stall check's keys while it has jobs or workers.
    return {rule.match + ":jobs", rule.match + ":stalling", rule.match + ":stallBlock",
            rule.match + ":waiting"};
}

std::optional<PatternObject> BeeQueueUnit::objectFor(const ProfileRule &rule,
                                                     const QByteArray &key) const
{
    const QByteArray base = baseOf(key);
    if (base.isEmpty() || !globMatch(rule.match, base) || rule.excludes(base))
        return std::nullopt;
    PatternObject o = objectForBase(base);
    o.params = rule.params;
    return o;
}

PatternObject BeeQueueUnit::conventionalObject(const QByteArray &key) const
{
    const QByteArray base = baseOf(key);
    return objectForBase(base.isEmpty() ? key : base);
}

std::optional<KeyClaim> BeeQueueUnit::claimKey(const KeyShape &shape, qint64) const
{
    const int s = stateOf(shape.key, shape.type);
    if (s < 0)
        return std::nullopt;
    // Its own keys decisively; the names it shares with Bull (active,
    // delayed, failed, id) below Bull's id counter.
    const int strength = distinctive(s) ? 26 : s == Waiting || s == Succeeded ? 20 : 9;
    return KeyClaim{QString::fromLatin1(Suffixes[s]), strength};
}

QList<PatternObject> BeeQueueUnit::groupClaims(ClaimPool &pool) const
{
    // A base with one of bee-queue's own keys (the jobs hash, stalling,
    // stallBlock) and another of its names, each with its type.
    QMap<QByteArray, int> bases; // base -> bit per state found
    for (const QByteArray &key : pool.claimed(Kind, 1000)) {
        if (pool.roleOf(key, Kind).isEmpty())
            continue;
        const int s = stateOf(key, pool.find(key)->shape.type);
        if (s >= 0)
            bases[key.left(key.lastIndexOf(':'))] |= 1 << s;
    }
    QList<PatternObject> out;
    for (auto it = bases.cbegin(); it != bases.cend(); ++it) {
        const int found = it.value();
        const bool own = found & ((1 << Jobs) | (1 << Stalling) | (1 << StallBlock));
        if (!own || qPopulationCount(quint32(found)) < 2)
            continue;
        PatternObject o = objectForBase(it.key());
        o.source = QStringLiteral("autodetected");
        for (const QByteArray &key : pool.under(it.key() + ':'))
            pool.take(key);
        out.append(o);
    }
    return out;
}

QList<Evidence> BeeQueueUnit::structureEvidence(const PatternObject &o, const ClaimPool &pool) const
{
    QStringList own;
    for (State s : {Jobs, Stalling, StallBlock}) {
        const ClaimPool::Entry *e = pool.find(keyOf(o, s));
        if (e && e->shape.type == Types[s])
            own << QStringLiteral("\"%1\" %2")
                       .arg(QString::fromLatin1(Suffixes[s]), QString::fromLatin1(Types[s]));
    }
    return {{Evidence::Kind::Structure, 5,
             QStringLiteral("bee-queue's own layout: %1 beside its state names under one base "
                            "(Bull keeps no jobs hash or stall set; its jobs are hashes of their "
                            "own)")
                 .arg(own.join(QStringLiteral(", ")))}};
}

namespace {

constexpr int TypeReplies = 8;                                   // the TYPE replies' first
constexpr int ActivePage = TypeReplies + BeeQueueUnit::KeyCount; // LRANGE active
constexpr int StallingPage = ActivePage + 1;                     // SRANDMEMBER stalling
constexpr int OldestWaiting = StallingPage + 1;                  // LINDEX waiting -1
constexpr int ProbedReplies = OldestWaiting + 1;                 // then the follow-up's HGET

} // namespace

QList<PatternUnit::Command> BeeQueueUnit::probe(const PatternObject &o, const ProbeContext &) const
{
    const QByteArray page = number(std::max(1, o.params.pageSize));
    QList<Command> cmds{
        // checkHealth's counts (lib/queue.js), in its order.
        {"LLEN", keyOf(o, Waiting)},    {"LLEN", keyOf(o, Active)},
        {"SCARD", keyOf(o, Succeeded)}, {"SCARD", keyOf(o, Failed)},
        {"ZCARD", keyOf(o, Delayed)},   {"SCARD", keyOf(o, Stalling)},
        {"PTTL", keyOf(o, StallBlock)}, {"GET", keyOf(o, Id)},
    };
    for (int s = 0; s < KeyCount; ++s)
        cmds.append({"TYPE", keyOf(o, State(s))});
    // The active page and the stalling set's members (at most a page; the
    // set holds what was active at the last check: a worker's concurrency).
    cmds.append({"LRANGE", keyOf(o, Active), "0", number(std::max(1, o.params.pageSize) - 1)});
    cmds.append({"SRANDMEMBER", keyOf(o, Stalling), page});
    // The oldest waiting job (addJob.lua LPUSHes; a worker takes the right
    // end with BRPOPLPUSH).
    cmds.append({"LINDEX", keyOf(o, Waiting), "-1"});
    return cmds;
}

QList<PatternUnit::Command> BeeQueueUnit::followUp(const PatternObject &o,
                                                   const QList<RedisValue> &r,
                                                   const ProbeContext &) const
{
    if (r.size() != ProbedReplies || !r.at(OldestWaiting).isBulk())
        return {};
    return {{"HGET", keyOf(o, Jobs), r.at(OldestWaiting).bytes()}};
}

namespace {

// When a job (Job#toData's JSON) became ready to run: created
// (options.timestamp, ms), or later when it was delayed until
// options.delay; -1 when its record says neither.
qint64 readyAtMs(const RedisValue &record)
{
    if (!record.isBulk())
        return -1;
    const QJsonObject options = QJsonDocument::fromJson(record.bytes())
                                    .object()
                                    .value(QStringLiteral("options"))
                                    .toObject();
    const QJsonValue created = options.value(QStringLiteral("timestamp"));
    const qint64 createdMs = created.isDouble() ? libraryqueue::epochMs(created) : -1;
    if (createdMs <= 0)
        return -1;
    const QJsonValue delay = options.value(QStringLiteral("delay"));
    return std::max(createdMs, delay.isDouble() ? libraryqueue::epochMs(delay) : -1);
}

// The keys of bee-queue's names holding another type: "succeeded is a zset
// (bee-queue keeps a set)".
QStringList foreignParts(const PatternObject &o, const QList<RedisValue> &r)
{
    QStringList foreign;
    for (int s = 0; s < BeeQueueUnit::KeyCount; ++s) {
        const QByteArray t = r.at(TypeReplies + s).bytes();
        if (t != "none" && t != Types[s])
            foreign << QStringLiteral("%1 is a %2 (bee-queue keeps a %3)")
                           .arg(printableBytes(BeeQueueUnit::keyOf(o, BeeQueueUnit::State(s)), 80),
                                QString::fromLatin1(t), QString::fromLatin1(Types[s]));
    }
    return foreign;
}

// The active page's jobs, stalled when still in stalling once the stall
// check's block has expired (checkStalledJobs.lua).
void readActive(Reading &reading, const PatternObject &o, const QList<RedisValue> &r,
                bool blockGone)
{
    QSet<QByteArray> stalling;
    for (const RedisValue &v : r.at(StallingPage).elements())
        stalling.insert(v.bytes());
    const qint64 stallingCount = r.at(5).toInteger();
    for (const RedisValue &v : r.at(ActivePage).elements()) {
        InFlightItem item;
        item.job = v.bytes();
        item.source = AgeSource::Library;
        item.locked = !(blockGone && stalling.contains(item.job));
        if (!item.locked) {
            ++reading.editQueue().stuck;
            if (reading.editLibrary().stuckJobs.size() < o.params.pageSize)
                reading.editLibrary().stuckJobs.append(
                    {item.job, QString::fromLatin1(StalledReason), -1});
        }
        reading.editQueue().items.append(item);
    }
    reading.editQueue().truncated = reading.queue().inFlight > reading.queue().items.size();
    // Beyond the page (more active jobs, or a stalling set larger than the
    // sample) a stalled job may not have been seen.
    reading.editQueue().stuckIsLowerBound
        = blockGone && (reading.queue().truncated || stallingCount > stalling.size());
}

} // namespace

Reading BeeQueueUnit::read(const PatternObject &o, const QList<RedisValue> &r,
                           const ProbeContext &c) const
{
    QList<QByteArray> replyKeys;
    for (State s : {Waiting, Active, Succeeded, Failed, Delayed, Stalling, StallBlock, Id})
        replyKeys << keyOf(o, s);
    for (int s = 0; s < KeyCount; ++s)
        replyKeys << keyOf(o, State(s));
    replyKeys << keyOf(o, Active) << keyOf(o, Stalling) << keyOf(o, Waiting);
    Reading reading;
    reading.atMs = c.nowMs;
    if (r.size() < replyKeys.size()) {
        if (auto f = failure(o, r, replyKeys, c.nowMs))
            return *f;
        reading.status = Reading::Status::Error;
        reading.message
            = QStringLiteral("Unexpected reply reading \"%1\".").arg(printableBytes(o.key));
        return reading;
    }
    // A name of bee-queue's with another type is not its layout: shown with
    // what could be read, read-only (its WRONGTYPE replies count 0); any
    // other failure is the reading's.
    if (auto f
        = failure(o, r.mid(TypeReplies, KeyCount), replyKeys.mid(TypeReplies, KeyCount), c.nowMs))
        return *f;
    const QStringList foreign = foreignParts(o, r);
    QList<RedisValue> checked;
    QList<QByteArray> checkedKeys;
    for (qsizetype i = 0; i < replyKeys.size(); ++i) {
        if (foreign.isEmpty() || !r.at(i).errorMessage().startsWith(QLatin1String("WRONGTYPE"))) {
            checked << r.at(i);
            checkedKeys << replyKeys.at(i);
        }
    }
    if (auto f = failure(o, checked, checkedKeys, c.nowMs))
        return *f;
    auto count = [&](int i) {
        return r.at(i).isError() ? 0 : r.at(i).toInteger();
    };
    qint64 total = 0;
    for (int s = 0; s < CountedStates; ++s) {
        reading.editLibrary().counts.append({QString::fromLatin1(Suffixes[s]), count(s)});
        total = saturatingAdd(total, count(s)); // sizes from replies (fuzz_patternread)
    }
    const QByteArray jobsType = r.at(TypeReplies + Jobs).bytes();
    const qint64 blockPttl = r.at(6).isError() ? -2 : r.at(6).toInteger();
    bool idOk = false;
    const qint64 newest = r.at(7).isError() ? 0 : r.at(7).bytes().toLongLong(&idOk);
    if (total == 0 && jobsType == "none" && count(5) == 0 && blockPttl == -2 && !idOk) {
        reading.status = Reading::Status::Missing;
        reading.message
            = QStringLiteral("No bee-queue keys under \"%1\".").arg(printableBytes(o.key));
        return reading;
    }
    reading.editQueue().length = reading.library().countOf(u"waiting");
    reading.editQueue().inFlight = reading.library().countOf(u"active");
    reading.editQueue().deadLength = reading.library().countOf(u"failed");
    reading.editLibrary().parts.append({QStringLiteral("counter"), "id", idOk ? newest : 0});
    LibraryPart check{QStringLiteral("stall-check"), "stallBlock", count(5)};
    check.expiresInMs = blockPttl;
    reading.editLibrary().parts.append(check);

    // Jobs listed with no record of them, or a name of another type.
    QStringList unknown = foreign;
    if (jobsType == "none" && total > 0)
        unknown << QStringLiteral("%1 jobs are listed but there is no jobs hash (%2)")
                       .arg(total)
                       .arg(printableBytes(keyOf(o, Jobs), 80));
    reading.editLibrary().layoutKnown = unknown.isEmpty();
    if (!reading.editLibrary().layoutKnown) {
        reading.message = QStringLiteral("Not bee-queue's layout: %1. Shown read-only as an "
                                         "unknown layout.")
                              .arg(unknown.join(QStringLiteral("; ")));
        return reading;
    }
    readActive(reading, o, r, blockPttl == -2);
    // bee-queue records no time a worker took a job: only the oldest
    // waiting job's age (the follow-up's reply, none when it was not sent).
    libraryqueue::setOldestWaiting(reading,
                                   r.size() > ProbedReplies ? readyAtMs(r.at(ProbedReplies)) : -1,
                                   c.nowMs, reading.queue().length == 0);
    if (reading.queue().truncated)
        reading.message = QStringLiteral("%1 jobs active; %2 were read.")
                              .arg(reading.queue().inFlight)
                              .arg(reading.queue().items.size());
    return reading;
}

QList<Figure> BeeQueueUnit::figures() const
{
    return {
        countFigure(QStringLiteral("waiting"), QStringLiteral("Waiting"),
                    QStringLiteral("waiting")),
        countFigure(QStringLiteral("inFlight"), QStringLiteral("Active"), QStringLiteral("active")),
        countFigure(QStringLiteral("failed"), QStringLiteral("Failed"), QStringLiteral("failed")),
        countFigure(QStringLiteral("succeeded"), QStringLiteral("Succeeded"),
                    QStringLiteral("succeeded")),
        countFigure(QStringLiteral("delayed"), QStringLiteral("Delayed"),
                    QStringLiteral("delayed")),
        stuckFigure(QStringLiteral("Stalled")),
        libraryqueue::oldestWaitingFigure(),
    };
}

QList<Chart> BeeQueueUnit::charts() const
{
    return {{QStringLiteral("Jobs by state"),
             QStringLiteral("jobs"),
             {{QStringLiteral("waiting"), QStringLiteral("waiting")},
              {QStringLiteral("inFlight"), QStringLiteral("active")},
              {QStringLiteral("delayed"), QStringLiteral("delayed")},
              {QStringLiteral("failed"), QStringLiteral("failed")},
              {QStringLiteral("stuck"), QStringLiteral("stalled")}}},
            libraryqueue::throughputChart(QStringLiteral("succeeded"), QStringLiteral("failed")),
            libraryqueue::oldestWaitingChart()};
}

QList<LibraryQueueUnit::JobState> BeeQueueUnit::states() const
{
    // checkHealth's names, in its order.
    return {{QStringLiteral("waiting")},
            {QStringLiteral("active"), JobStage::InFlight},
            {QStringLiteral("succeeded"), JobStage::Finished},
            {QStringLiteral("failed"), JobStage::Dead},
            {QStringLiteral("delayed")}};
}

LibraryQueueUnit::StuckRule BeeQueueUnit::stuckRule() const
{
    // bee-queue records no start time: no oldest age to say.
    return {QStringLiteral("stuck"),
            QStringLiteral("stalled (active, not renewed for a stall interval)"), QString()};
}

libraryqueue::JsonOptions BeeQueueUnit::jsonOptions() const
{
    return {true, libraryqueue::LowerBound::FromReading};
}

void BeeQueueUnit::writeLibraryJson(const ObjectState &, const Reading &r, qint64,
                                    QJsonObject &j) const
{
    for (const LibraryPart &p : r.library().parts) {
        if (p.kind == QLatin1String("counter")) {
            j.insert(QStringLiteral("newestJob"), double(p.count));
        } else {
            j.insert(QStringLiteral("stalling"), double(p.count));
            j.insert(QStringLiteral("stallBlockPttlMs"), double(p.expiresInMs));
        }
    }
}

QStringList BeeQueueUnit::itemHeaders() const
{
    return {QStringLiteral("Active job"), QStringLiteral("Stall check")};
}

QList<QStringList> BeeQueueUnit::items(const ObjectState &s, qint64) const
{
    QList<QStringList> rows;
    for (const InFlightItem &item : s.reading.queue().items) {
        rows.append({printableBytes(item.job, 120),
                     item.locked ? QStringLiteral("renewed or not yet checked")
                                 : QStringLiteral("not renewed: stalled")});
    }
    return rows;
}

} // namespace gatehouse
