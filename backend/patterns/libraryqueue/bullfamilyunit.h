// SPDX-License-Identifier: MIT
#pragma once

#include "libraryqueueunit.h"

namespace gatehouse {

// What BullMQ and Bull share: a queue is the keys under "<prefix>:<queue>:"
// (its base, the object's key), each state a LIST or a ZSET of job ids, each
// job a hash "<base>:<id>" of the same shape with a lock "<base>:<id>:lock"
// while a worker runs it; a job in "active" without its lock has stalled.
// From the library's Layout (its key names and types, in related's order)
// the family gives the objects a rule or a name makes, the keys a queue owns,
// the claims of its key names, the active jobs' read and their rows, the job
// browser's pages and details, and the failed set's verbs.
class BullFamilyUnit : public LibraryQueueUnit
{
public:
    // LibraryQueueUnit's judgement, and "stalled-unknown": jobs are active but
    // their locks could not be read (SORT ... GET, refused in a Cluster), so
    // whether any is stalled is not known: never shown as "ok".
    static Judgement judgement();
    // One of the library's keys: "<base>:<suffix>", of a Redis type.
    struct Key
    {
        const char *suffix;
        const char *type;
    };
    class Layout
    {
    public:
        Layout(PatternKind kind, QList<Key> keys)
            : m_kind(kind)
            , m_keys(std::move(keys))
        {}
        PatternKind kind() const { return m_kind; }
        int size() const { return int(m_keys.size()); }
        QByteArray suffix(int s) const { return m_keys.at(s).suffix; }
        QByteArray type(int s) const { return m_keys.at(s).type; }
        // The index of key's suffix (of type, unless type is empty); -1 none.
        int stateOf(const QByteArray &key, const QByteArray &type) const;
        // "bull:emails:meta" -> "bull:emails"; empty when key has no such suffix.
        QByteArray baseOf(const QByteArray &key) const;
        QByteArray keyOf(const PatternObject &o, int s) const;
        PatternObject objectForBase(const QByteArray &base) const;
        // A script call on the keys of states, each with its role
        // ("<suffix> <type>").
        ScriptCall call(const PatternObject &o, const QString &action, const QString &script,
                        const QList<int> &states) const;

    private:
        PatternKind m_kind;
        QList<Key> m_keys;
    };

    explicit BullFamilyUnit(const Layout &layout)
        : m_layout(layout)
    {}

    PatternKind kind() const override { return m_layout.kind(); }
    std::optional<PatternObject> objectFor(const ProfileRule &rule,
                                           const QByteArray &key) const override;
    PatternObject conventionalObject(const QByteArray &key) const override;
    // Every "<prefix>:<queue>:…" key: its job hashes, logs, locks, meta.
    bool ownsKey(const PatternObject &object, const QByteArray &key) const override;
    // Only the queue's own names; the jobs' hashes, locks and logs under its
    // base are taken when the queue groups (pool.under), whoever claimed them.
    std::optional<KeyClaim> claimKey(const KeyShape &shape, qint64 serverNowMs) const override;
    // A job's hash "<base>:<id>" and its keys "<base>:<id>:lock", ":logs", …
    QList<QByteArray> ownerCandidates(const QByteArray &key) const override;

    QStringList itemHeaders() const override;
    QList<QStringList> items(const ObjectState &state, qint64 nowMs) const override;
    // The failed set's verbs: Job.retry back from it, Queue.clean(grace,
    // limit, "failed") to purge it by age. Neither library fails a job from
    // outside a worker (moveToFailed needs its lock token): no dead-letter verb.
    QList<JobVerb> jobVerbs(const QString &state) const override;
    // A page of a state's jobs (lists the newest first, completed and failed
    // the most recent first, other sets the next first) with each job's
    // name, time, attempts and short failed reason; and one job's small
    // fields (detailFields()) and its large ones cut to JobFieldCutBytes.
    JobRead jobPage(const PatternObject &object, const QString &state, qint64 offset,
                    int count) const override;
    JobRead jobDetail(const PatternObject &object, const QByteArray &job) const override;

    // What a one-job reply of lua/bullmq and lua/bull means: 1 did, 0 not in
    // state, -1 locked, -2 no such job, -4 part of a flow.
    static ReplyMeaning jobMeaning(qint64 reply, const QByteArray &job, const QString &did,
                                   const QString &state);
    // That meaning as a call's, for job.
    static std::function<ReplyMeaning(const RedisValue &)>
    jobReply(const QByteArray &job, const QString &did, const QString &state);

protected:
    // How strongly a key of state s says "this library" (KeyClaim::strength).
    virtual int claimStrength(int s) const = 0;
    // The job hash's field counting attempts ("atm", "attemptsMade").
    virtual QByteArray attemptsField() const = 0;
    // The job hash's small fields a job's detail shows.
    virtual QList<QByteArray> detailFields() const = 0;

    const Layout &layout() const { return m_layout; }
    // Every active job with its lock, processedOn, name and attempts, in one
    // bounded read (SORT_RO BY nosort, a page); nullopt when the base holds
    // '*' or "->", which SORT's GET patterns would read as theirs. Read by
    // id (readsById) it is the page's ids (LRANGE), and the follow-up reads
    // each job's lock and fields.
    std::optional<Command> activeJobsProbe(const PatternObject &object, int activeState,
                                           const ProbeContext &context) const;
    // Whether this queue's active and oldest waiting jobs are read by id, in
    // the follow-up: when its base has a hash tag ("{bull}:emails", both
    // libraries' rule on a Cluster, where Redis 7.0 refuses SORT ... GET
    // whatever the slots), and once a server refused SORT ... GET for it (a
    // server without SORT_RO), every later reading (bullbyid.cpp).
    static bool readsById(const PatternObject &object, const ProbeContext &context);
    // A reading's replies read by id, as SORT would have given them: the
    // follow-up's reads of each job folded into the active page and the
    // oldest waiting job (the probe's fourth-last and last replies), so the
    // follow-up of the job times starts at probedReplies(). Read by SORT, the
    // replies as they are.
    QList<RedisValue> asSorted(const PatternObject &object, const QList<RedisValue> &replies,
                               const ProbeContext &context) const;
    // The SORT of the active page was refused (reply): the reading says so,
    // and track() reads by id from then on.
    static void noteSortRefused(Reading &reading, const RedisValue &reply);
    void track(TrackState &state, const Reading &reading, qint64 nowMs) const override;
    // That read's reply into the reading's items, oldest first, and its
    // stalled jobs (active without a lock); truncated when active held more.
    static void readActiveJobs(Reading &reading, const RedisValue &reply,
                               const PatternObject &object, qint64 active, qint64 nowMs);

    // The job times (Reading::jobTimes): a page of the newest completed
    // and failed jobs (their ids, ZRANGE), and the oldest waiting job's
    // timestamp and delay (SORT_RO of a list's page), appended to the probe;
    // none when the base holds '*' or "->". The follow-up reads the paged
    // jobs' timestamp, delay, processedOn and finishedOn.
    QList<Command> jobTimesProbe(const PatternObject &object, int completed, int failed, int wait,
                                 const ProbeContext &context) const;
    // Both libraries' probes end with jobTimesProbe's commands; the probe's
    // reply count then is probedReplies().
    virtual qsizetype probedReplies() const = 0;
    QList<Command> followUp(const PatternObject &object, const QList<RedisValue> &replies,
                            const ProbeContext &context) const override;
    // The replies from at (jobTimesProbe's three) and the follow-up's (from
    // probed, the probe's reply count) into reading's job times.
    static void readJobTimes(Reading &reading, const QList<RedisValue> &replies, qsizetype at,
                             qsizetype probed, qint64 waiting, qint64 nowMs);

private:
    // Read by id: each active job's lock and fields, and the oldest waiting
    // job's times (replies: the probe's).
    QList<Command> idFollowUp(const PatternObject &object, const QList<RedisValue> &replies) const;

    const Layout &m_layout; // static storage: the unit's own layout()
};

} // namespace gatehouse
