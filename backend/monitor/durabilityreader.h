// SPDX-License-Identifier: MIT
#pragma once

#include "durability.h"

#include <QElapsedTimer>
#include <QHash>
#include <QObject>
#include <QStringList>
#include <QTimer>

namespace gatehouse {

class RedisClient;

// Reads each master's Durability: INFO persistence and INFO replication
// every IntervalMs (two small sections per master, whatever the number of
// objects), and CONFIG GET appendfsync, save and min-replicas-* every
// ConfigIntervalMs (configuration changes rarely). Lives on the monitor's
// thread; replies come through the RedisClient.
class DurabilityReader : public QObject
{
    Q_OBJECT
public:
    static constexpr int IntervalMs = 2000;
    static constexpr int ConfigIntervalMs = 30000;

    explicit DurabilityReader(RedisClient *client, QObject *parent = nullptr);

    // "host:port" of each master as in the client's topology (standalone:
    // the one server's address).
    void setMasters(const QStringList &addresses);
    void start();
    void stop();
    void readNow();

Q_SIGNALS:
    void read(const QString &address, const gatehouse::Durability &durability);

private:
    struct Node
    {
        Durability last;
        QHash<QByteArray, QByteArray> config;
        QElapsedTimer configClock; // invalid: never read
        QElapsedTimer readClock;   // since the INFO the last reading came from
        bool inFlight = false;
    };
    void readOne(const QString &address);

    RedisClient *m_client;
    QStringList m_masters;
    QHash<QString, Node> m_nodes;
    QTimer m_timer{this};
    QObject m_context{this};
};

} // namespace gatehouse
