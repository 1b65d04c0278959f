// SPDX-License-Identifier: MIT
#pragma once

#include "session.h"

#include <monitor/profile.h>
#include <patterns/jobs.h>

#include <memory>
#include <optional>

namespace gatehouse {
class JobBrowser;
class JobSearch;
} // namespace gatehouse

namespace gatehouse::cli {

// "queue job QUEUE JOB [--json]": one job of a library queue, read as the
// console's job browser reads it (JobBrowser: bounded steps, payloads
// decoded); JOB is its id as queue search prints it, or its ref. Text: the record's fields, then
// each payload decoded with the decoders named; --json: the record as "detail" and each payload
// under "decoded" (docs/json-schema.md). Exit 0 shown, 3 the job is gone, 1 failed.
class JobCommand : public Session
{
    Q_OBJECT
public:
    JobCommand(const RedisEndpoint &endpoint, QByteArray queue, QByteArray job, bool json,
               std::optional<Profile> profile, QObject *parent = nullptr);
    ~JobCommand() override;

protected:
    void onReady() override;

private:
    void show(const PatternObject &object);
    void print(const JobListing &detail);
    // Not where the id alone leads (a job a library names by more than its
    // id: a Sidekiq job in a queue, a Celery message): looked for by id in
    // every state, as queue search finds it; false when it cannot be.
    bool lookFor(const QString &notThere);
    static constexpr qint64 LookForRows = 20000;

    QByteArray m_queue;
    QByteArray m_job;
    PatternObject m_object;
    std::unique_ptr<JobSearch> m_search;
    bool m_json = false;
    std::optional<Profile> m_profile;
    std::unique_ptr<JobBrowser> m_browser;
};

} // namespace gatehouse::cli
