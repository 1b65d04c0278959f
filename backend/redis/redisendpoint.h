// SPDX-License-Identifier: MIT
#pragma once

#include <QHash>
#include <QString>
#include <QStringList>

#include <optional>

namespace gatehouse {

// Where and how to reach one Redis server. Plain value type, safe to copy
// between threads. The password lives here only in memory.
struct RedisEndpoint
{
    enum class Transport { Tcp, Tls, Unix };

    Transport transport = Transport::Tcp;
    QString host = QStringLiteral("127.0.0.1");
    quint16 port = 6379;
    QString socketPath; // Transport::Unix
    int db = 0;
    QString user;     // ACL user; empty means "default"
    QString password; // empty: no AUTH

    // TLS, named as redis-cli names them (--cacert, --cert, --key, --sni, --insecure).
    QString caFile;
    QString certFile;
    QString keyFile;
    QString sniName; // verified name and SNI; defaults to host
    bool verifyPeer = true;

    int connectTimeoutMs = 5000;
    QString clientName = QStringLiteral("gatehouse");

    // Find out after the handshake whether this server is a Cluster node
    // (CLUSTER SHARDS) and, if so, reach every master (RedisRouter). The
    // applications turn it on; off, the client talks to this one server.
    bool discoverTopology = false;
    // Addresses a Cluster announces -> addresses to connect to instead,
    // "host:port" both (--nat-map).
    QHash<QString, QString> natMap;
    // --read-from replicas: a Cluster's or Sentinel master's reads (data
    // commands and SCAN) go to one of its replicas, scripts and the node's own
    // commands (INFO, CONFIG, ...) to the master (RedisRouter). Only for the
    // monitor's connections: actions use an endpoint without it.
    bool readFromReplicas = false;
    // Send READONLY in the handshake: a Cluster replica then answers reads
    // of its master's slots instead of redirecting them.
    bool readOnly = false;

    // Sentinel: the sentinels ("host:port", in the order to ask them), the
    // name of the master they monitor, and the sentinels' own credentials
    // (user and password above are the master's). With sentinels set, every
    // connection asks them for the master's address before it connects
    // (host and port are then the master's) and checks the answer with ROLE.
    QStringList sentinels;
    QString sentinelMaster;
    QString sentinelUser;
    QString sentinelPassword;
    bool isSentinel() const { return !sentinels.isEmpty(); }
    // An endpoint to sentinel i: its address, the sentinels' credentials, the
    // same TLS settings; no sentinels of its own.
    RedisEndpoint sentinelEndpoint(qsizetype i) const;
    // A copy aimed at one data node ("host:port"), no sentinels.
    RedisEndpoint nodeEndpoint(const QString &hostPort) const;

    // redis://[user[:password]@]host[:port][/db]
    // rediss://... (TLS)
    // unix:///path/to/socket[?db=N]
    // redis-sentinel://[user[:password]@]host[:port][,host[:port]...][/db]#master
    // rediss-sentinel://... (TLS to the sentinels and the master); port 26379
    // by default; the master's name may instead come from --sentinel-master.
    // On failure returns nothing and sets *error to a sentence naming the part
    // of the URL that is wrong and the expected form.
    static std::optional<RedisEndpoint> fromUrl(const QString &url, QString *error);

    static std::optional<RedisEndpoint> fromSentinelUrl(const QString &trimmed, bool tls,
                                                        const QString &text, QString *error);

    // "127.0.0.1:6379", "[::1]:6379", "/run/redis.sock"; no credentials.
    QString address() const;
    // The URL without the password, for titles and logs.
    QString displayUrl() const;
};

} // namespace gatehouse
