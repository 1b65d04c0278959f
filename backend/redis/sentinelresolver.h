// SPDX-License-Identifier: MIT
#pragma once

#include "redisendpoint.h"

#include <QObject>
#include <QStringList>

#include <functional>

namespace gatehouse {

class RedisConnection;

// Asks the sentinels of an endpoint, one after the other in the order given,
// for the address of its master (SENTINEL GET-MASTER-ADDR-BY-NAME): the first
// sentinel that answers with an address wins, so a sentinel that is down or
// refuses costs one connect attempt, not the resolution. Lives on the
// thread of its owner (a RedisConnection's); one resolution per object.
class SentinelResolver : public QObject
{
    Q_OBJECT
public:
    struct Result
    {
        bool ok = false;
        QString host;
        quint16 port = 0;
        QString message;    // !ok: the sentence naming every sentinel and what it said
        bool final = false; // every sentinel answered and none knows the master
    };
    using Handler = std::function<void(const Result &)>;

    SentinelResolver(RedisEndpoint endpoint, Handler handler, QObject *parent = nullptr);
    ~SentinelResolver() override;

    void start();

    // A sentinel's connect timeout: a dead sentinel must not hold the
    // resolution for the whole connect timeout of the master.
    static constexpr int SentinelConnectTimeoutMs = 2000;

private:
    void ask(qsizetype i);
    void finish(const Result &result);

    RedisEndpoint m_endpoint;
    Handler m_handler;
    RedisConnection *m_current = nullptr; // a child, the sentinel being asked
    QStringList m_problems;
    int m_unknown = 0; // sentinels that answered without an address
    bool m_done = false;
};

} // namespace gatehouse
