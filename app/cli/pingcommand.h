// SPDX-License-Identifier: MIT
#pragma once

#include <monitor/durability.h>
#include <redis/redisclient.h>

#include <QJsonArray>
#include <QJsonObject>
#include <QObject>

namespace gatehouse {
class DurabilityReader;
}

namespace gatehouse::cli {

// `gatehouse-cli ping`: connect once (no reconnect), then PING, TIME and
// INFO server in one round trip; print PONG, version and server time, then
// the topology: the mode, and for a Cluster every node with its role, slot
// ranges, state and INFO figures (one INFO per node, in parallel); last,
// each master's durability sentence (what a crash or a failover would lose
// now, as the console's Nodes page says it). With json, one JSON object with
// the same, printed once everything is read.
class PingCommand : public QObject
{
    Q_OBJECT
public:
    explicit PingCommand(const RedisEndpoint &endpoint, bool json = false,
                         QObject *parent = nullptr);
    void start();

Q_SIGNALS:
    void finished(int exitCode);

private:
    void onReady();
    void fail(const QString &message);
    void printTopology();
    void readDurability();
    void finish();

    RedisClient m_client;
    bool m_json = false;
    qint64 m_sentAtMs = 0;
    qint64 m_serverMs = -1; // the server's clock from TIME; -1 unknown
    bool m_done = false;
    QJsonObject m_result; // json: filled as replies come, printed by finish()
    QJsonArray m_nodes;   // json: the nodes, in printTopology's order
    DurabilityReader *m_durabilityReader = nullptr;
    QStringList m_masters;                   // in the order printed
    QHash<QString, Durability> m_durability; // by master address
};

} // namespace gatehouse::cli
