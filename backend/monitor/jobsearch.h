// SPDX-License-Identifier: MIT
#pragma once

#include "jobquery.h"

#include <patterns/jobs.h>
#include <patterns/patternobject.h>

#include <QElapsedTimer>
#include <QObject>
#include <QSet>

#include <memory>

namespace gatehouse {

class RedisClient;

// One job a search found: where (its state), the row its page listed, and
// its record when the query needed it.
struct JobHit
{
    QString state;
    JobRow row;
    JobListing detail; // ok false when the query was settled by the row
};

// Where a search stands: what it has read, of how many, what it found.
struct JobSearchProgress
{
    QString state;          // the state being read
    qint64 scanned = 0;     // jobs looked at, every state so far
    qint64 total = 0;       // jobs in the states read or being read, as counted then
    qint64 matched = 0;     // hits so far
    qint64 detailsRead = 0; // records read for payload terms
    // Jobs whose record holds a field over the cut the query needed: not
    // judged (neither found nor ruled out).
    qint64 unsearched = 0;
    qint64 elapsedMs = 0;
    qint64 busyMs = 0; // of which waiting for the server
};

// How a search ended.
struct JobSearchResult
{
    enum class End { Complete, Limit, Cancelled, Failed };
    End end = End::Complete;
    JobSearchProgress progress;
    QString message; // Failed: why; otherwise empty
};

// Searches a library queue's jobs (JobQuery) across its states, through its
// pattern's bounded page reads (PatternUnit::jobPage) and, for a term that
// needs the payload, its record reads (jobDetail) for the rows that may
// match, in one pipeline per page. Never an unbounded read, no script:
// each round trip carries one page. Paced: the search waits between round
// trips so that it keeps the server busy at most busyPercent of the time
// (other clients interleave). Keeps only its hits (at most limit): jobs
// moving between states while it reads may be met twice (shown once) or not
// at all. Matching and decoding run on a pool thread, never on the caller's.
class JobSearch : public QObject
{
    Q_OBJECT
public:
    struct Options
    {
        QStringList states;      // empty: every state the pattern lists
        int limit = 50;          // hits, then it stops
        int pageRows = 100;      // jobs per page (one round trip, two with records)
        double busyPercent = 10; // of wall time spent waiting for replies
    };

    // The longest pause between two round trips.
    static constexpr qint64 MaxPaceWaitMs = 1000;

    JobSearch(RedisClient *client, PatternObject object, JobQuery query, Options options,
              QObject *parent = nullptr);
    ~JobSearch() override;

    // False (with a sentence in *error) when the object lists no jobs or a
    // state is not one of its own.
    bool start(QString *error = nullptr);
    void cancel();
    bool isRunning() const { return m_running; }
    const QList<JobHit> &hits() const { return m_hits; }

Q_SIGNALS:
    void progressed(const gatehouse::JobSearchProgress &progress);
    void found(const QList<gatehouse::JobHit> &hits); // this page's new hits
    void finished(const gatehouse::JobSearchResult &result);

private:
    void nextPage();
    void run(QList<JobRead> reads, std::function<void(QList<JobListing>)> done);
    void runStep(std::shared_ptr<struct ReadBatch> batch);
    void paced(std::function<void()> then);
    void judge(JobListing page, QList<JobRow> rows, QList<JobListing> details);
    void finish(JobSearchResult::End end, const QString &message = {});
    JobSearchProgress progress() const;

    RedisClient *m_client;
    PatternObject m_object;
    JobQuery m_query;
    Options m_options;
    QStringList m_states;
    qsizetype m_stateAt = 0;
    qint64 m_offset = 0;
    qint64 m_scanned = 0;
    qint64 m_totalBefore = 0; // the states done
    qint64 m_stateTotal = 0;
    qint64 m_detailsRead = 0;
    qint64 m_unsearched = 0;
    qint64 m_busyNs = 0;
    qint64 m_lastBusyNs = 0;
    QElapsedTimer m_clock;
    QList<JobHit> m_hits;
    QSet<QByteArray> m_hitIds; // per state: "state\nid"
    bool m_running = false;
    quint64 m_generation = 0;
};

} // namespace gatehouse

Q_DECLARE_METATYPE(gatehouse::JobSearchProgress)
Q_DECLARE_METATYPE(gatehouse::JobSearchResult)
