// SPDX-License-Identifier: MIT
#pragma once

#include "redisendpoint.h"

#include <QCommandLineOption>
#include <QList>

#include <optional>

class QCommandLineParser;

namespace gatehouse {

// The connection flags shared by gatehouse and gatehouse-cli, named as
// redis-cli names them where it has them.
class EndpointOptions
{
public:
    EndpointOptions();

    void addTo(QCommandLineParser &parser) const;

    // Builds the endpoint from --url and the flags that refine it; the
    // password falls back to REDISCLI_AUTH as in redis-cli. On bad input,
    // returns nothing and sets *error to a sentence naming the flag.
    // With url, that URL takes --url's place (serve --deployment NAME=URL);
    // then --url, --host, --port and --socket are refused, and the other
    // flags refine it as they would --url.
    std::optional<RedisEndpoint> endpoint(const QCommandLineParser &parser, QString *error,
                                          const QString *url = nullptr) const;

    // A deployment named on the command line: --deployment NAME=URL.
    struct Named
    {
        QString name;
        RedisEndpoint endpoint;
    };
    // Each entry ("eu=redis://10.0.0.5:6379") as a name and its endpoint,
    // refined by the other flags as endpoint() refines a URL. At the first
    // bad entry (not NAME=URL, a NAME of other than letters, digits and
    // _.:-, a name given twice, a bad URL or flag) nothing, and a sentence
    // in *error.
    std::optional<QList<Named>> namedEndpoints(const QCommandLineParser &parser,
                                               const QStringList &entries, QString *error) const;

private:
    QCommandLineOption m_url;
    QCommandLineOption m_host;
    QCommandLineOption m_port;
    QCommandLineOption m_socket;
    QCommandLineOption m_db;
    QCommandLineOption m_user;
    QCommandLineOption m_pass;
    QCommandLineOption m_tls;
    QCommandLineOption m_cacert;
    QCommandLineOption m_cert;
    QCommandLineOption m_key;
    QCommandLineOption m_sni;
    QCommandLineOption m_insecure;
    QCommandLineOption m_timeout;
    QCommandLineOption m_natMap;
    QCommandLineOption m_sentinelMaster;
    QCommandLineOption m_sentinelUser;
    QCommandLineOption m_sentinelPass;
    QCommandLineOption m_readFrom;
};

} // namespace gatehouse
