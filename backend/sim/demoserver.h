// SPDX-License-Identifier: MIT
#pragma once

#include <redis/redisendpoint.h>

#include <QObject>
#include <QProcess>
#include <QTemporaryDir>

#include <memory>

namespace gatehouse {

// The private redis-server of `gatehouse --demo`: from PATH, on a free
// loopback port, in a temporary directory, no persistence, keyspace events
// on. Stopped (and the directory removed) when this object is destroyed.
class DemoServer : public QObject
{
    Q_OBJECT
public:
    explicit DemoServer(QObject *parent = nullptr);
    ~DemoServer() override;

    // Emits ready() or failed() later; failed() right away if redis-server is
    // not on PATH.
    void start();
    void stop();
    RedisEndpoint endpoint() const;
    // The endpoint reaches this running demo server (a reconnect to it from
    // the Connect dialog keeps the simulator, the demo profile and the badge).
    bool serves(const RedisEndpoint &endpoint) const;
    // What a console connected to endpoint from the Connect dialog runs,
    // chosenProfile being the profile chosen there (empty: autodetect).
    struct Console
    {
        bool demo = false; // the simulator runs and the window wears the DEMO badge
        QString profile;   // the profile to load (empty: autodetect)
    };
    // Back on this demo server the demo goes on: its simulator, the DEMO
    // badge, and the demo profile unless another was chosen. Anywhere else:
    // no demo, the profile chosen.
    Console consoleFor(const RedisEndpoint &endpoint, const QString &chosenProfile) const;
    qint64 pid() const { return m_process ? m_process->processId() : 0; }

Q_SIGNALS:
    void ready();
    void failed(const QString &message);

private:
    QTemporaryDir m_dir;
    std::unique_ptr<QProcess> m_process;
    quint16 m_port = 0;
    QByteArray m_log;
    bool m_ready = false;
};

} // namespace gatehouse
