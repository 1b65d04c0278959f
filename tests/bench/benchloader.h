// SPDX-License-Identifier: MIT
#pragma once

#include <redis/redisendpoint.h>

#include <QByteArray>
#include <QList>

#include <hiredis/hiredis.h>

#include <memory>
#include <vector>

namespace gatehouse::bench {

using Context = std::unique_ptr<redisContext, decltype(&redisFree)>;

inline Context connect(const RedisEndpoint &ep)
{
    return Context(redisConnect(ep.host.toUtf8().constData(), ep.port), &redisFree);
}

// Pipelined writes through hiredis: commands are appended and their replies
// read every Batch commands (the loader must not take minutes).
class Loader
{
public:
    explicit Loader(redisContext *c)
        : m_c(c)
    {}
    ~Loader() { flush(); }
    void add(const QList<QByteArray> &args)
    {
        std::vector<const char *> argv;
        std::vector<size_t> lens;
        for (const QByteArray &a : args) {
            argv.push_back(a.constData());
            lens.push_back(size_t(a.size()));
        }
        redisAppendCommandArgv(m_c, int(argv.size()), argv.data(), lens.data());
        if (++m_pending == Batch)
            flush();
    }
    void flush()
    {
        for (; m_pending > 0; --m_pending) {
            void *reply = nullptr;
            if (redisGetReply(m_c, &reply) != REDIS_OK)
                return;
            freeReplyObject(reply);
        }
    }

private:
    static constexpr int Batch = 2000;
    redisContext *m_c;
    int m_pending = 0;
};

} // namespace gatehouse::bench
