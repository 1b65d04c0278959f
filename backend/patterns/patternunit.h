// SPDX-License-Identifier: MIT
#pragma once

#include "alertfigure.h"
#include "behaviour.h"
#include "demotraffic.h"
#include "jobs.h"
#include "keyclassifier.h"
#include "objectstate.h"
#include "patternaction.h"
#include "patternobject.h"
#include "presentation.h"
#include "profilerule.h"
#include "reading.h"
#include "scriptcall.h"

#include <redis/redisvalue.h>

#include <QHash>
#include <QJsonObject>

#include <functional>
#include <memory>

namespace gatehouse {

// What a unit keeps for one object across its readings beyond TrackState's
// common part (a lock's holder token, the items a queue's processing list
// held): derived, made, read and written only by the pattern's own unit
// (PatternUnit::track), which reaches it as TrackState::own<T>().
struct PatternTrack
{
    virtual ~PatternTrack();
};

// What a probe needs besides the object: the server's time (never the
// desktop's), whether the object is shown in detail (the window strip, the
// in-flight items), and what the unit tracked of the object so far (null
// before its first reading, and for a reader without a history: an action's
// check, a candidate watched).
struct ProbeContext
{
    qint64 nowMs = 0;
    bool detail = false;
    std::shared_ptr<const PatternTrack> track;
    // The unit's track as T, or null.
    template<class T>
    const T *trackAs() const
    {
        return dynamic_cast<const T *>(track.get());
    }
};

// What the monitor keeps for one object across its readings; the pattern's
// unit updates it (PatternUnit::track) and the published ObjectState shows
// its common part.
struct TrackState
{
    bool everRead = false;
    qint64 heldSinceMs = -1; // locks: since when the current holder holds it; -1 unknown
    qint64 completions = 0;  // items finished (keyspace events, PatternUnit::isCompletion)
    // Without keyspace events: items in flight at one reading and gone at
    // the next (finished, requeued or dead-lettered), as the unit counts them.
    qint64 leftInFlight = 0;
    // The unit's own part, made on first use. A probe in flight holds it
    // (ProbeContext::track) and reads it as it is when its replies arrive.
    template<class T>
    T &own()
    {
        auto *mine = dynamic_cast<T *>(m_own.get());
        if (!mine) {
            auto made = std::make_shared<T>();
            mine = made.get();
            m_own = std::move(made);
        }
        return *mine;
    }
    std::shared_ptr<const PatternTrack> ownPart() const { return m_own; }

private:
    std::shared_ptr<PatternTrack> m_own;
};

// Why an object needs an operator now (the Overview's list, highest score
// first). Scores compare across patterns: >= 2 for work at risk (2 + jobs
// stuck), 1-2 for something held too long (1 + held ms / 1e9, longest
// first), 0.8-1.x for a limit nearly or fully used (its occupancy).
struct Attention
{
    double score = 0;
    QString figure; // the history figure its sparkline draws
    // Routine: listed for the operator to see (a lock held for a while, an
    // expired legacy lock) but no reason to read the object more often than
    // others: nothing about it is expected to change soon.
    bool routine = false;
};

// The job or lock library whose layout a pattern reads (BullMQ, Sidekiq, ...):
// its name and the major versions whose layout the pattern knows.
struct LibraryInfo
{
    QString name;     // "bullmq"
    QString versions; // "5-6"
    bool isEmpty() const { return name.isEmpty(); }
};

// Everything Gatehouse knows about one coordination pattern, in one place
// (backend/patterns/<pattern>/, its scripts in lua/<pattern>/): its id and
// section; its profile rule (parsed, validated, written back) and the objects
// a rule makes of keys; its bounded probes, how the replies become a Reading
// and how long that reading stays exact; what the monitor tracks across
// readings; its history figures, table columns and JSON fields; and its
// actions. Units register with the PatternRegistry; the monitor, snapshot,
// actions engine, profiles, models, pages and CLI are generic over it.
// Stateless; one instance per kind.
class PatternUnit
{
public:
    using Command = QList<QByteArray>;

    virtual ~PatternUnit() = default;
    virtual PatternKind kind() const = 0;
    virtual Section section() const = 0;
    // "sliding-window limiter": in sentences and tooltips.
    virtual QString title() const { return kind().id(); }
    // The object's name for people: the key column of pages, the Ctrl+K
    // palette and attention lines (a Sidekiq deployment is named by its
    // namespace, not its "queues" set). The key itself by default.
    virtual QString displayName(const PatternObject &object) const;
    // Whether key belongs to object, shown: its own keys (PatternObject::keys)
    // by default; a library queue owns its job hashes and bookkeeping keys
    // too. Autodetection never lists such a key among the other keys. A key
    // owned beyond the object's own keys starts with the object's key and a
    // ':' ("bull:q" owns "bull:q:17"): autodetection asks only such objects.
    virtual bool ownsKey(const PatternObject &object, const QByteArray &key) const;
    // The Redis type of the object's own key ("zset", "string"); empty when
    // the key is not a Redis key (a token family's prefix). The CLI tells
    // apart the patterns of a section offering the same action by it.
    virtual QByteArray keyType() const = 0;

    // The library whose layout it reads; empty for the hand-written patterns.
    // Its objects' readings carry counts by the library's own state names and
    // its stuck jobs (Reading::counts, stuckJobs), in the snapshot JSON as
    // "library", "counts" and "stuck".
    virtual LibraryInfo library() const { return {}; }

    // --- Job browsing (library queues) --------------------------------------
    // The states whose jobs the console lists, by the library's names; empty
    // when the pattern has no job list.
    virtual QStringList jobStates() const { return {}; }
    // A page of count jobs of state from offset, and one job's detail, as
    // bounded steps (JobRead); invalid when the pattern has none.
    virtual JobRead jobPage(const PatternObject &object, const QString &state, qint64 offset,
                            int count) const
    {
        Q_UNUSED(object)
        Q_UNUSED(state)
        Q_UNUSED(offset)
        Q_UNUSED(count)
        return {};
    }
    virtual JobRead jobDetail(const PatternObject &object, const QByteArray &job) const
    {
        Q_UNUSED(object)
        Q_UNUSED(job)
        return {};
    }
    // A job whose whole record its page read (JobRow::record): its detail
    // from that record, with no second read; invalid when the pattern has
    // none to give.
    virtual JobRead recordDetail(const JobRow &row) const
    {
        Q_UNUSED(row)
        return {};
    }
    // Which tab of the job browser a state of jobStates() is in.
    virtual JobStage jobStage(const QString &state) const
    {
        Q_UNUSED(state)
        return JobStage::Waiting;
    }
    // The library's verbs on the jobs of a state (requeue from dead, kill,
    // purge), as its own actions do them; none by default.
    virtual QList<JobVerb> jobVerbs(const QString &state) const
    {
        Q_UNUSED(state)
        return {};
    }

    // --- Which pattern a named target is (the CLI without a profile rule) --
    // When several patterns of a section offer the same verb, the CLI sends
    // every candidate's identifyProbe(target) and acts with the first whose
    // identifies() holds: by default the target's TYPE is keyType(); a
    // library queue named by its base ("bull:emails") looks at its keys.
    virtual QList<Command> identifyProbe(const QByteArray &target) const
    {
        return {{"TYPE", target}};
    }
    virtual bool identifies(const QByteArray &target, const QList<RedisValue> &replies) const
    {
        Q_UNUSED(target)
        return !replies.isEmpty() && replies.first().bytes() == keyType();
    }
    // Without a profile rule naming it, an action acts on a key only when
    // discovery would show it as one of this section's: the strongest claim
    // on its shape (claimKey) is a pattern of this section. For patterns
    // whose keys are single values any application writes (a lock's string,
    // a window's counter).
    virtual bool actsOnlyOnClaimedKeys() const { return false; }
    // The objects of this pattern a key may be a part of, by its name alone
    // (a Bull job's lock "<base>:<id>:lock": "<base>"). The CLI asks
    // identifies() of each and refuses another pattern's action on a key
    // that belongs to one, as the console never shows it as anything else.
    virtual QList<QByteArray> ownerCandidates(const QByteArray &key) const
    {
        Q_UNUSED(key)
        return {};
    }

    // --- Profile rules ---------------------------------------------------
    // The rule's pattern-specific fields, read into rule (the registry and
    // Profile read "pattern", "match", "exclude" and "pageSize").
    virtual bool parseRule(RuleReader &reader, const QJsonObject &json, ProfileRule &rule) const;
    virtual void writeRule(const ProfileRule &rule, QJsonObject &json) const;
    // The field naming the rule's keys: "match" (a glob), or "prefix".
    virtual QString keyField() const { return QStringLiteral("match"); }
    // What SCAN and keyspace notifications must cover for the rule's keys.
    virtual QList<QByteArray> scanGlobs(const ProfileRule &rule) const { return {rule.match}; }
    // The instance key is part of (with its related keys filled in), when the
    // rule claims it; nullopt when not (or when it is another instance's
    // related key, such as a window's retry set).
    virtual std::optional<PatternObject> objectFor(const ProfileRule &rule,
                                                   const QByteArray &key) const;
    // The instance key is under the pattern's conventional key names (README,
    // "Profiles"), for actions on a key no profile rule describes.
    virtual PatternObject conventionalObject(const QByteArray &key) const;

    // --- Autodetection: the pattern's evidence -----------------------------
    // Whether key, by its shape alone, is one of this pattern's keys (its
    // instance's own key or a partner such as a window's ":retry" set), and
    // how strongly; nullopt when not.
    virtual std::optional<KeyClaim> claimKey(const KeyShape &shape, qint64 serverNowMs) const
    {
        Q_UNUSED(shape)
        Q_UNUSED(serverNowMs)
        return std::nullopt;
    }
    // The hash fields whose presence and value (its first 64 bytes) this
    // pattern's claimKey() reads in KeyShape::hashFields: discovery samples
    // every pattern's with one HMGET per hash and names none itself.
    virtual QList<QByteArray> shapeHashFields() const { return {}; }
    // Patterns group in this order (lower first): one that takes keys
    // another would win (a resource whose consumers show it is one) goes
    // before it.
    virtual int groupOrder() const { return 100; }
    // The instances the keys this pattern claimed make, taking every key an
    // instance uses from the pool (partners looked up there).
    virtual QList<PatternObject> groupClaims(ClaimPool &pool) const
    {
        Q_UNUSED(pool)
        return {};
    }
    // --- Autodetection: judging an instance (README, "Autodetection") -------
    // An instance grouped from claims is shown when its evidence sums to at
    // least AutoDetector::Threshold; below, it is only a candidate.
    // Words in a family's names that argue for this pattern ("lock", "mutex").
    virtual QList<QByteArray> wordsFor() const { return {}; }
    // Words that argue against it: ordinaryWords() (caches, sessions, stats,
    // feeds, ...), none for a library's layout (its queue may be "cache-refresh").
    virtual QList<QByteArray> wordsAgainst() const;
    // What the shapes of its keys say: by default the own key's claim, its
    // weight from the claim's strength; a library's layout is decisive.
    virtual QList<Evidence> structureEvidence(const PatternObject &object,
                                              const ClaimPool &pool) const;
    // What its siblings (keys of its name's shape) say: by default, against
    // an instance most of whose family does not look like it, or one of a
    // large family with no word of the pattern in its name.
    virtual QList<Evidence> familyEvidence(const PatternObject &object,
                                           const ClaimPool &pool) const;
    // All of it: structure, names (wordsFor, wordsAgainst, a date in the
    // name) and family.
    QList<Evidence> judge(const PatternObject &object, const ClaimPool &pool) const;
    // The family of an instance's key as the pool counted it.
    static QByteArray familyOfObject(const PatternObject &object, const ClaimPool &pool);
    // --- Autodetection: behaviour over the first ticks of watching ---------
    // Two consecutive readings of an autodetected instance (after's replies
    // answer probe(object)): what its keys did in between, noted in track
    // (BehaviourTrack::confirm, argue), which the monitor weighs into its
    // evidence. Nothing by default.
    virtual void observeBehaviour(BehaviourTrack &track, const PatternObject &object,
                                  const Reading &before, const Reading &after,
                                  const QList<RedisValue> &replies) const
    {
        Q_UNUSED(track)
        Q_UNUSED(object)
        Q_UNUSED(before)
        Q_UNUSED(after)
        Q_UNUSED(replies)
    }

    // The profile rule that finds an instance it grouped (the suggested
    // profile): by default a glob of its key (its parent's, for a part) and
    // its window; and how a second instance of the same rule widens it.
    virtual ProfileRule suggestRule(const PatternObject &object) const;
    virtual void mergeSuggestedRule(ProfileRule &into, const ProfileRule &other) const;

    // --- Reading ---------------------------------------------------------
    // Only bounded commands: counts, single members, pages of pageSize.
    virtual QList<Command> probe(const PatternObject &object,
                                 const ProbeContext &context) const = 0;
    // A second round trip for this object, once the probe's replies are in
    // (none by default): what only they name, as the fields of each member of
    // a sorted set's page (libraryqueue::pageProbe). read() then gets the
    // probe's replies followed by these; a reader that sends none (an action's
    // check) gets a reading without what they would have said.
    virtual QList<Command> followUp(const PatternObject &object, const QList<RedisValue> &replies,
                                    const ProbeContext &context) const;
    // replies answer probe(object, context), in order, then followUp's.
    virtual Reading read(const PatternObject &object, const QList<RedisValue> &replies,
                         const ProbeContext &context) const = 0;
    // Until when (server time) reading.at(t) is exact, if no write touches
    // the object's keys (keyspace events tell): TTLs count down and ages grow,
    // but an entry leaving a window, a job turning stuck or a key expiring
    // changes what only Redis knows. Reading::Forever when nothing but a write
    // can change it; reading.atMs to be read every tick (the default, for
    // patterns not modelled).
    virtual qint64 validUntilMs(const PatternObject &object, const Reading &reading) const;

    // --- Tracking across readings ------------------------------------------
    // Called with every reading of the object, before it is published.
    virtual void track(TrackState &state, const Reading &reading, qint64 nowMs) const;
    // An object found again (a rescan, a keyspace event) merged into the one
    // tracked: true when current changed (a token family's new members).
    virtual bool merge(PatternObject &current, const PatternObject &found) const;
    // After a read: the object as the replies show it (a family without its
    // used, revoked and expired members), or nullopt when unchanged. current
    // may have gained members since probed was sent.
    virtual std::optional<PatternObject> afterRead(const PatternObject &probed,
                                                   const PatternObject &current,
                                                   const QList<RedisValue> &replies) const;
    // A keyspace event on one of the object's keys: re-read the object soon
    // (true), or leave it to the next tick (a busy token family).
    virtual bool rereadOnEvent() const { return true; }
    // The event finished one item (a job LREM'd from a processing list): the
    // object's throughput counts it.
    virtual bool isCompletion(const PatternObject &object, const QByteArray &key,
                              const QByteArray &event) const;
    virtual bool hasThroughput() const { return false; }

    // --- Presentation ----------------------------------------------------
    // The figures kept per tick in its history (charts, sparklines).
    virtual QList<Figure> figures() const = 0;
    // The figures an alert rule may watch (backend/alerts): by default its
    // history figures, a duration's in ms and a NaN unknown.
    virtual QList<AlertFigure> alertFigures() const;
    // The rules on them an operator has without configuring any (a
    // profile's own "alerts" list replaces them).
    virtual QList<BuiltInAlert> builtInAlerts() const { return {}; }
    // Its charts; by default its figures over time, counts on one chart and
    // durations (in s) on another.
    virtual QList<Chart> charts() const;
    // Its table columns (the key's first, the status last).
    virtual QList<Column> columns() const = 0;
    // Its fields in the snapshot JSON (README, "snapshot --json"), besides
    // the common ones; r is the reading projected to nowMs.
    virtual void writeJson(const ObjectState &state, const Reading &r, qint64 nowMs,
                           QJsonObject &json) const = 0;
    // The items of a detailed reading the console lists under the table (a
    // queue's jobs in flight, a semaphore's holders): text per item.
    virtual QStringList itemHeaders() const { return {}; }
    virtual QList<QStringList> items(const ObjectState &state, qint64 nowMs) const;
    // Item i of items() is about to be lost for good (a dead Sidekiq
    // process's job, once its work hash expires): the console shows its row
    // in the critical colour.
    virtual bool itemUrgent(const ObjectState &state, int i, qint64 nowMs) const
    {
        Q_UNUSED(state);
        Q_UNUSED(i);
        Q_UNUSED(nowMs);
        return false;
    }
    // The inputs an action takes from what the console shows of the object
    // (ActionInput::Source::Shown): a lock's {"token": ...}.
    virtual QHash<QString, QByteArray> shownInputs(const ObjectState &state) const;
    // The token of whoever holds the object now (a lock's holder), as read;
    // empty when it has none or the pattern has no holders. The console's
    // "Copy token" and the "held for" metric.
    virtual QByteArray holderToken(const ObjectState &state) const;
    // The inputs an action on item i takes from it (ActionInput::Source::Item):
    // {"job": ...}, {"holder": ..., "score": ...}.
    virtual QHash<QString, QByteArray> itemInputs(const ObjectState &state, int i) const;

    // Whether the object needs an operator at nowMs (the snapshot's server
    // time; state.reading as read, to be projected with Reading::at); nullopt
    // when not.
    // Cheap: every object is asked, twice a second; only the ones shown get
    // their sentence (attentionText: "Lock job:7 held for 3.2 s").
    virtual std::optional<Attention> attention(const ObjectState &state, qint64 nowMs) const;
    virtual QString attentionText(const ObjectState &state, qint64 nowMs) const;

    // --- Actions ---------------------------------------------------------
    virtual QList<PatternAction> actions() const { return {}; }

    // --- Demo ------------------------------------------------------------
    // Its traffic in the demo and `gatehouse-cli simulate` (the simulator
    // drives it), or nullptr when the simulator's own traffic covers it.
    virtual std::unique_ptr<DemoTraffic> demoTraffic(quint32 seed) const
    {
        Q_UNUSED(seed)
        return nullptr;
    }

    // The unit registered for kind (PatternRegistry); a unit that reads
    // nothing when no pattern has that kind.
    static const PatternUnit &of(PatternKind kind);

protected:
    // A Reading for the first failed reply, if any: WRONGTYPE becomes
    // WrongType naming the key, anything else Error.
    static std::optional<Reading> failure(const PatternObject &object,
                                          const QList<RedisValue> &replies,
                                          const QList<QByteArray> &replyKeys, qint64 nowMs);
    static QByteArray number(qint64 v) { return QByteArray::number(v); }
    // Score bound for "newer than t" in the object's score unit: "(t".
    static QByteArray after(qint64 tMs, qint64 unitMs);
    // Scores of a WITHSCORES reply, converted to ms.
    static QList<qint64> scoresMs(const RedisValue &withScores, qint64 unitMs);
    // The common object for a rule and a key (kind, key, params, source).
    static PatternObject baseObject(const ProfileRule &rule, const QByteArray &key);
    // groupClaims for a pattern whose instances are one key each: every key
    // it won, taken, as an instance (fill adds what the shape tells).
    QList<PatternObject>
    eachWonKey(ClaimPool &pool,
               const std::function<void(PatternObject &, const KeyShape &)> &fill = {}) const;
};

} // namespace gatehouse
