// SPDX-License-Identifier: MIT
#pragma once

#include <QByteArray>
#include <QList>
#include <QSharedData>
#include <QSharedDataPointer>
#include <QString>
#include <QtNumeric>

#include <algorithm>
#include <limits>
#include <optional>

namespace gatehouse {

// a + b and a - b clamped to qint64's range: figures built from replies (a
// PTTL, a score, a timestamp in a value) are not trusted to be sane.
inline qint64 saturatingAdd(qint64 a, qint64 b)
{
    qint64 r = 0;
    if (qAddOverflow(a, b, &r))
        return b > 0 ? std::numeric_limits<qint64>::max() : std::numeric_limits<qint64>::min();
    return r;
}
inline qint64 saturatingSub(qint64 a, qint64 b)
{
    qint64 r = 0;
    if (qSubOverflow(a, b, &r))
        return b < 0 ? std::numeric_limits<qint64>::max() : std::numeric_limits<qint64>::min();
    return r;
}

// Where the age of an item in flight came from. Processing lists carry no
// time, so Gatehouse says which source it used.
enum class AgeSource {
    ClaimsSet, // the queue's claim script recorded the claim time
    FirstSeen, // the first time Gatehouse saw the item in the processing list
    Library,   // the library's own record of when a worker took it (BullMQ processedOn)
};
QString ageSourceId(AgeSource source); // "claims" | "first-seen" | "library"

// One state of a library's job or lock, by the library's own name ("wait",
// "active", "delayed" for BullMQ; "enqueued", "retry", "dead" for Sidekiq).
struct StateCount
{
    QString state;
    qint64 count = 0;
};

// A job of a library that no worker will finish without an operator: active
// without its lock (BullMQ), in flight of a dead process (Sidekiq), past its
// timeout (RQ), unacked past the visibility timeout (Celery).
struct StuckJob
{
    QByteArray job;      // the library's job id
    QString reason;      // one sentence: "active without a lock"
    qint64 sinceMs = -1; // server time it was taken (or last seen alive); -1 unknown
};

// A part of a library object that holds its jobs or runs them: a Sidekiq
// deployment's queues (size, age of the oldest job) and worker processes
// (busy of concurrency, age of the last heartbeat, alive or dead).
struct LibraryPart
{
    QString kind;       // "queue" | "process"
    QByteArray name;    // the queue's name, the process's identity
    qint64 count = 0;   // queue: its size; process: jobs busy
    qint64 limit = -1;  // process: its concurrency; -1 unknown
    qint64 ageMs = -1;  // queue: its latency; process: since its last heartbeat; -1 unknown
    bool alive = true;  // process: its heartbeat is fresh
    bool quiet = false; // process: told to take no new work
    // Process: ms until its record expires (PTTL at atMs) and what it holds in
    // flight is gone with it (Sidekiq's work hash); -1 none or unknown.
    qint64 expiresInMs = -1;
};

struct InFlightItem
{
    QByteArray job;
    qint64 ageMs = 0;
    AgeSource source = AgeSource::ClaimsSet;
    // Library jobs: its name, attempts made, and whether its worker's lock is
    // held (false: stalled).
    QByteArray name;
    qint64 attempts = -1;
    bool locked = true;
    // Library jobs run by a process (Sidekiq): its queue and the process.
    QByteArray queue;
    QByteArray holder;
};

// How long a library's jobs waited for a worker and how long they ran, as
// far as the library records it (Reading::jobTimes): quantiles of the newest
// jobs finished within the window before the reading (or, where the library
// keeps no finished jobs, of the jobs running now), and the age of the
// oldest job waiting. Every time is in ms; -1 unknown.
struct JobTimes
{
    static constexpr qint64 WindowMs = 5 * 60 * 1000;
    qint64 oldestWaitingAgeMs = -1; // at Reading::atMs; -1 none waiting or not recorded
    qint64 waitSamples = 0;
    qint64 runSamples = 0;
    qint64 wait[3] = {-1, -1, -1}; // p50, p95, p99
    qint64 run[3] = {-1, -1, -1};
    bool waitOfRunning = false; // the waits are of the jobs running now (Sidekiq)
};

struct Reading;

// What one pattern reads beyond the figures every reading shares (a lock's
// holder token, a token family's TTL spread): declared, written and read
// only by the pattern's own folder (its unit, its panels, its JSON), held
// out of line and shared between copies of a reading. A pattern derives its
// data from this and reaches it through Reading::data<T>() and edit<T>().
struct PatternData : QSharedData
{
    virtual ~PatternData();
    virtual PatternData *clone() const = 0;
    // A copy projected to server time nowMs from the reading's atMs
    // (Reading::at: countdowns down, ages up), or null when nothing in the
    // data moves with time (most data: the reading then shares it).
    virtual PatternData *projected(const Reading &from, qint64 nowMs) const;
};

// One reading of one pattern instance at one server time. A value type: the
// fields that apply depend on the pattern; the rest keep their defaults.
// Every time is in ms; ages and horizons are relative to atMs.
struct Reading
{
    enum class Status {
        Ok,
        Missing,   // none of the keys exist (expired, deleted, never written)
        WrongType, // a key holds another type than the pattern needs
        Error,     // a probe failed (connection, NOPERM, ...): message says why
    };

    Status status = Status::Ok;
    QString message; // for Missing/WrongType/Error, and notes (truncated, unknown limit)
    qint64 atMs = 0; // server time of the reading

    // Limiters and semaphores: the count against the limit (the rest of
    // what they read is their LimiterData).
    qint64 inWindow = 0;         // requests (or permits) counted in the current window
    std::optional<qint64> limit; // unknown when Redis does not store it
    // Out of line, as most readings have none of it and one reading is kept
    // per object shown: a library queue's wait and run times (jobTimes()).
    struct DetailTimes : QSharedData
    {
        std::optional<JobTimes> job;
    };
    QSharedDataPointer<DetailTimes> detailTimes;

    // The key's TTL (a lock's lease, a limiter's or token's expiry).
    qint64 pttlMs = -2; // -1: no TTL, -2: gone

    // What a queue, a semaphore or a lock holds: jobs waiting and in flight,
    // permits held, waiters. Out of line, as most readings (limiters, tokens,
    // plain locks) have none of it: queue() reads it (the defaults when there
    // is none), editQueue() makes it on first use and writes it.
    struct Queue : QSharedData
    {
        qint64 length = 0;   // waiting
        qint64 inFlight = 0; // taken by a worker, or held (permits, holders)
        qint64 deadLength = 0;
        qint64 stuck = 0; // in flight for longer than the stuck threshold
        qint64 oldestInFlightAgeMs = -1;
        QList<InFlightItem> items;      // oldest first, at most the page size
        bool stuckIsLowerBound = false; // ages known only for the page read
        bool truncated = false;         // more in flight than the page holds
        // The oldest age counts from when the console began watching (the
        // job was in flight already): a lower bound, said as such.
        bool oldestSinceWatching = false;
    };
    const Queue &queue() const;
    Queue &editQueue();

    // Library objects (PatternUnit::library(): every job library's queue,
    // Redisson's objects, redis-semaphore, Python limits): their layout,
    // counts, stuck jobs, workers and parts. Out of line, as most readings
    // have none of it: library() reads it (the defaults when there is none),
    // editLibrary() makes it on first use and writes it.
    struct Library : QSharedData
    {
        // The layout's version as the library recorded it ("bullmq:6.7.0"),
        // empty when it records none; layoutKnown false when the keys differ
        // from every version the pattern knows (shown read-only).
        QString layoutVersion;
        bool layoutKnown = true;
        bool paused = false;
        QList<StateCount> counts;  // in the library's order
        QList<StuckJob> stuckJobs; // the stuck jobs read (at most a page: stuck counts them all)
        // The library's workers for the object: registered, and of those
        // read (a page) the ones whose heartbeat is alive; -1 when not read.
        qint64 workers = -1;
        qint64 workersAlive = -1;
        QList<LibraryPart> parts; // at most a page of each kind
        qint64 countOf(QStringView state) const
        {
            for (const StateCount &c : counts) {
                if (c.state == state)
                    return c.count;
            }
            return 0;
        }
    };
    const Library &library() const;
    Library &editLibrary();
    // Wait and run times, where the library records them; null otherwise.
    const JobTimes *jobTimes() const;
    JobTimes &latency(); // made on first use

    // The pattern's own data (PatternData): data<T>() reads it (a default T
    // when the reading has none or another pattern's); edit<T>() makes it on
    // first use, or copies it if another reading shares it, and writes it.
    template<class T>
    const T &data() const
    {
        if (const T *d = dynamic_cast<const T *>(m_data.data()))
            return *d;
        static const T none;
        return none;
    }
    template<class T>
    T &edit()
    {
        if (!dynamic_cast<T *>(m_data.data()))
            m_data = new T;
        else if (m_data->ref.loadRelaxed() != 1)
            m_data = m_data->clone();
        return static_cast<T &>(*m_data);
    }
    bool hasData() const { return bool(m_data); }

    bool isOk() const { return status == Status::Ok; }
    // in window / limit; nullopt when the limit is unknown.
    std::optional<double> occupancy() const;

    // The reading projected to server time nowMs, assuming no write since
    // atMs: TTLs, resets and horizons count down (to 0), ages grow. Exact up
    // to the pattern unit's validUntilMs(); the monitor re-reads after that.
    Reading at(qint64 nowMs) const;
    // One field projected: a countdown (values <= 0 such as "no TTL" kept)
    // and an age (-1, "none", kept).
    qint64 countdownAt(qint64 value, qint64 nowMs) const
    {
        return value > 0
                   ? std::max<qint64>(0, value - std::max<qint64>(0, saturatingSub(nowMs, atMs)))
                   : value;
    }
    qint64 ageAt(qint64 value, qint64 nowMs) const
    {
        return value >= 0 ? saturatingAdd(value, std::max<qint64>(0, saturatingSub(nowMs, atMs)))
                          : value;
    }
    static constexpr qint64 Forever = std::numeric_limits<qint64>::max();

private:
    QSharedDataPointer<Queue> m_queue;
    QSharedDataPointer<Library> m_library;
    QExplicitlySharedDataPointer<PatternData> m_data;
};

QString readingStatusId(Reading::Status status); // "ok" | "missing" | "wrong-type" | "error"

} // namespace gatehouse
