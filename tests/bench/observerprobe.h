// SPDX-License-Identifier: MIT
#pragma once

#include <redis/redisendpoint.h>

#include <QByteArray>

#include <atomic>
#include <thread>
#include <vector>

namespace gatehouse::bench {

// Another client's GET latency, measured while this process's event loop
// keeps going (so a monitor in it keeps refreshing): ten connections with
// one GET in flight on each, as redis-benchmark -c 10 -P 1 runs it, on a
// thread of its own, every request timed (redis-benchmark's histogram has
// 8 us buckets at this latency: the ratio moved in 5 % steps). It runs
// without a pause from start() to finish(); setSegment(n) files the requests
// sent from then on under segment n, 0 files none, and a request whose reply
// comes after the segment changed is not counted. With seedSha (the seed
// 000 limiter's script, loaded), each request is a decision of that limiter
// instead: EVALSHA on a window of its own per connection, at the local ms.
class ObserverProbe
{
public:
    explicit ObserverProbe(const RedisEndpoint &ep, const QByteArray &seedSha = {})
        : m_ep(ep)
        , m_seedSha(seedSha)
    {}
    ~ObserverProbe() { finish(); }

    bool start(int segments)
    {
        m_latencies.assign(size_t(segments) + 1, {});
        m_thread = std::thread([this] { run(); });
        return true;
    }
    void setSegment(int n) { m_segment.store(n, std::memory_order_relaxed); }
    // Stops the probe; false if a connection failed or stalled.
    bool finish()
    {
        if (!m_thread.joinable())
            return m_ok;
        m_stop = true;
        m_thread.join();
        return m_ok;
    }
    const std::vector<float> &latencies(int segment) const { return m_latencies[size_t(segment)]; }

private:
    void run();

    RedisEndpoint m_ep;
    QByteArray m_seedSha;
    std::thread m_thread;
    std::atomic<int> m_segment{0};
    std::atomic<bool> m_stop{false};
    bool m_ok = true;
    std::vector<std::vector<float>> m_latencies; // ms, per segment
};

// The 99th percentile of v (ms); 0 when empty.
double p99(std::vector<float> v);

} // namespace gatehouse::bench
