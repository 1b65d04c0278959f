// SPDX-License-Identifier: MIT
#pragma once

#include "jobsearch.h"

#include <patterns/jobs.h>
#include <patterns/patternobject.h>

#include <QObject>

namespace gatehouse {

class RedisClient;

// Reads a library queue's jobs on demand for the console: a page of one
// state, or one job's detail, through its pattern's bounded steps
// (PatternUnit::jobPage, jobDetail). Asynchronous: nothing waits on the
// network; a newer request makes an older one's replies ignored, so a quick
// series of clicks shows only the last answer. A detail's payloads come
// decoded (decoders/: JSON, pickle, msgpack, ...), each within its limits.
class JobBrowser : public QObject
{
    Q_OBJECT
public:
    explicit JobBrowser(RedisClient *client, QObject *parent = nullptr);

    // False when the object's pattern lists no jobs (nothing is sent).
    bool listJobs(const PatternObject &object, const QString &state, qint64 offset, int count);
    bool showJob(const PatternObject &object, const QByteArray &job);
    // A detail's payloads decoded, each within the decoders' limits. Takes
    // up to their time limit per payload: not on the GUI thread.
    static JobListing decoded(JobListing detail);
    // A search of object's jobs over the browser's connection, not started
    // (JobSearch::start); parent owns it.
    JobSearch *newSearch(const PatternObject &object, const JobQuery &query,
                         const JobSearch::Options &options, QObject *parent) const;

Q_SIGNALS:
    void listed(const gatehouse::JobListing &page);
    void detailed(const gatehouse::JobListing &detail);

private:
    void step(JobRead read, quint64 generation, bool detail);

    RedisClient *m_client;
    quint64 m_listGeneration = 0;
    quint64 m_detailGeneration = 0;
};

} // namespace gatehouse
