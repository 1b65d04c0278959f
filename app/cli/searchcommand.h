// SPDX-License-Identifier: MIT
#pragma once

#include "session.h"

#include <monitor/jobsearch.h>
#include <monitor/profile.h>

#include <memory>
#include <optional>

namespace gatehouse::cli {

class Interrupt;

// "queue search QUEUE EXPR [--state S] [--limit N] [--json]": the jobs of a
// library queue that match EXPR (JobQuery), read as the console's search
// reads them (JobSearch: bounded pages, paced). Text: one line per job and a
// summary; --json: the hits and the figures (docs/json-schema.md). Progress
// on stderr when it is a terminal. Ctrl+C stops the search and prints what
// was found. Exit 0 found, 3 nothing found, 1 failed, 2 a bad expression.
class SearchCommand : public Session
{
    Q_OBJECT
public:
    struct Request
    {
        QByteArray queue;
        QString expression;
        QStringList states;
        int limit = 50;
        double busyPercent = 10; // JobSearch::Options::busyPercent
        bool json = false;
        std::optional<Profile> profile;
    };
    SearchCommand(const RedisEndpoint &endpoint, Request request, QObject *parent = nullptr);
    ~SearchCommand() override;

protected:
    void onReady() override;

private:
    void search(const PatternObject &object);
    void report(const JobSearchResult &result);

    Request m_request;
    std::optional<JobQuery> m_query;
    PatternObject m_object;
    std::unique_ptr<JobSearch> m_search;
    std::unique_ptr<Interrupt> m_interrupt;
    bool m_progressShown = false;
};

} // namespace gatehouse::cli
