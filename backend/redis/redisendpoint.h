// SPDX-License-Identifier: MIT
#pragma once

#include <QHash>
#include <QString>

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

    // redis://[user[:password]@]host[:port][/db]
    // rediss://... (TLS)
    // unix:///path/to/socket[?db=N]
    // On failure returns nothing and sets *error to a sentence naming the part
    // of the URL that is wrong and the expected form.
    static std::optional<RedisEndpoint> fromUrl(const QString &url, QString *error);

    // "127.0.0.1:6379", "[::1]:6379", "/run/redis.sock"; no credentials.
    QString address() const;
    // The URL without the password, for titles and logs.
    QString displayUrl() const;
};

} // namespace gatehouse
