// SPDX-License-Identifier: MIT
#pragma once

#include <redis/redisvalue.h>

#include <QObject>
#include <QStringList>

namespace gatehouse {

class RedisClient;

// Before `simulate` writes anything: is the database its own? It is when it
// holds no key other than the simulator's (prefix). Each master (a Cluster's
// every master, else the one server) is asked DBSIZE, then SCANned in pages
// of 1,000 until a foreign key turns up or the keyspace ends; at most
// MaxScannedKeys are looked at, so a large database is judged by its first
// pages (any foreign key is enough to refuse). Reads only.
class SimulatorPreflight : public QObject
{
    Q_OBJECT
public:
    static constexpr qint64 MaxScannedKeys = 100000;

    struct Verdict
    {
        bool own = false;           // empty, or only prefix keys
        qint64 totalKeys = 0;       // DBSIZE over the masters
        qint64 foreignSeen = 0;     // in the pages scanned (a lower bound)
        QList<QByteArray> examples; // up to three foreign keys
        QString where;              // the node(s) they were found on
        QString error;              // the check itself failed
        // The sentence for the operator when !own.
        QString refusal(const QString &url, int db, const QByteArray &prefix) const;
    };

    SimulatorPreflight(RedisClient *client, QByteArray prefix, QObject *parent = nullptr);
    void start(); // the client must be ready

Q_SIGNALS:
    void finished(const gatehouse::SimulatorPreflight::Verdict &verdict);

private:
    void sizeNext(int node);
    void scanNext(int node, const QByteArray &cursor, qint64 scannedOnNode);
    void send(int node, const QList<QByteArray> &command,
              std::function<void(const RedisValue &)> handler);
    void finish();

    RedisClient *m_client;
    QByteArray m_prefix;
    QStringList m_nodes; // empty: the client's one server
    Verdict m_verdict;
};

} // namespace gatehouse
