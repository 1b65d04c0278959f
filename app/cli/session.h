// SPDX-License-Identifier: MIT
#pragma once

#include <redis/redisclient.h>

#include <QObject>

namespace gatehouse::cli {

// One gatehouse-cli run against one server: connects once (no retry loop: a
// script wants a clear failure), runs onReady(), and reports an exit code.
class Session : public QObject
{
    Q_OBJECT
public:
    explicit Session(const RedisEndpoint &endpoint, QObject *parent = nullptr);
    void start();

Q_SIGNALS:
    void finished(int exitCode);

protected:
    virtual void onReady() = 0;
    // One sentence on stderr, then the exit code (ExitFailure unless given).
    void fail(const QString &message, int exitCode = 1);
    void done(int exitCode);
    RedisClient &client() { return m_client; }
    bool isDone() const { return m_done; }

private:
    RedisClient m_client;
    bool m_done = false;
    bool m_started = false;
};

} // namespace gatehouse::cli
