// SPDX-License-Identifier: MIT
#include "endpointoptions.h"

#include "topology.h"
#include "userinput.h"

#include <QCommandLineParser>
#include <QRegularExpression>

#include <algorithm>

namespace gatehouse {

EndpointOptions::EndpointOptions()
    : m_url(QStringLiteral("url"),
            QStringLiteral("Server URL: redis://[user:pass@]host:port/db, rediss://... (TLS) "
                           "or unix:///path/to/socket[?db=N]."),
            QStringLiteral("URL"))
    , m_host(QStringLiteral("host"), QStringLiteral("Server host (default 127.0.0.1)."),
             QStringLiteral("HOST"))
    , m_port(QStringLiteral("port"), QStringLiteral("Server port (default 6379)."),
             QStringLiteral("PORT"))
    , m_socket(QStringLiteral("socket"), QStringLiteral("Unix socket path."),
               QStringLiteral("PATH"))
    , m_db(QStringLiteral("db"), QStringLiteral("Database number."), QStringLiteral("N"))
    , m_user(QStringLiteral("user"), QStringLiteral("ACL user name."), QStringLiteral("USER"))
    , m_pass(QStringLiteral("pass"),
             QStringLiteral("Password (or set REDISCLI_AUTH, which keeps it out of the "
                            "process list)."),
             QStringLiteral("PASSWORD"))
    , m_tls(QStringLiteral("tls"), QStringLiteral("Use TLS (same as a rediss:// URL)."))
    , m_cacert(QStringLiteral("cacert"),
               QStringLiteral("CA certificate file (PEM) to verify the server with."),
               QStringLiteral("FILE"))
    , m_cert(QStringLiteral("cert"), QStringLiteral("Client certificate file (PEM)."),
             QStringLiteral("FILE"))
    , m_key(QStringLiteral("key"), QStringLiteral("Client private key file (PEM)."),
            QStringLiteral("FILE"))
    , m_sni(QStringLiteral("sni"),
            QStringLiteral("Server name for SNI and certificate verification."),
            QStringLiteral("NAME"))
    , m_insecure(QStringLiteral("insecure"),
                 QStringLiteral("Do not verify the server's certificate (testing only)."))
    , m_timeout(QStringLiteral("connect-timeout"),
                QStringLiteral("Connect timeout in ms (default 5000)."), QStringLiteral("MS"))
    , m_natMap(QStringLiteral("nat-map"),
               QStringLiteral("Cluster: connect to TO where a node announces FROM (both "
                              "host:port); repeat for every node."),
               QStringLiteral("FROM=TO"))
    , m_sentinelMaster(QStringLiteral("sentinel-master"),
                       QStringLiteral("Sentinel: the name of the master the sentinels monitor "
                                      "(instead of #NAME in a redis-sentinel:// URL)."),
                       QStringLiteral("NAME"))
    , m_sentinelUser(QStringLiteral("sentinel-user"),
                     QStringLiteral("Sentinel: ACL user on the sentinels (--user is the "
                                    "master's)."),
                     QStringLiteral("USER"))
    , m_sentinelPass(QStringLiteral("sentinel-password"),
                     QStringLiteral("Sentinel: password of the sentinels (--pass is the "
                                    "master's)."),
                     QStringLiteral("PASSWORD"))
    , m_readFrom(QStringLiteral("read-from"),
                 QStringLiteral("Cluster or Sentinel: where the console reads (discovery, "
                                "refresh): master (default) or replicas. Actions always run on "
                                "the master; a master with no replica answering is read "
                                "itself, and the Nodes page says why."),
                 QStringLiteral("master|replicas"))
{}

void EndpointOptions::addTo(QCommandLineParser &parser) const
{
    parser.addOptions({m_url, m_host, m_port, m_socket, m_db, m_user, m_pass, m_tls, m_cacert,
                       m_cert, m_key, m_sni, m_insecure, m_timeout, m_natMap, m_sentinelMaster,
                       m_sentinelUser, m_sentinelPass, m_readFrom});
}

namespace {

// Sets *error (when there is one) to message; false, to return.
bool refuse(QString *error, const QString &message)
{
    if (error)
        *error = message;
    return false;
}

// The address: the deployment's URL or --url, then --socket, --host and
// --port over it.
bool applyAddress(const QCommandLineParser &parser, const QString *url,
                  const QCommandLineOption &urlFlag, const QCommandLineOption &host,
                  const QCommandLineOption &port, const QCommandLineOption &socket,
                  RedisEndpoint *ep, QString *error)
{
    if (url) {
        if (parser.isSet(urlFlag) || parser.isSet(host) || parser.isSet(port)
            || parser.isSet(socket))
            return refuse(error, QStringLiteral("--deployment carries its own URL: drop --url, "
                                                "--host, --port and --socket, or give that server "
                                                "as one more --deployment NAME=URL."));
        auto parsed = RedisEndpoint::fromUrl(*url, error);
        if (!parsed)
            return false;
        *ep = *parsed;
    } else if (parser.isSet(urlFlag)) {
        if (parser.isSet(host) || parser.isSet(port) || parser.isSet(socket))
            return refuse(error, QStringLiteral("--url cannot be combined with --host, --port or "
                                                "--socket; put the address in the URL."));
        auto parsed = RedisEndpoint::fromUrl(parser.value(urlFlag), error);
        if (!parsed)
            return false;
        *ep = *parsed;
    }
    if (parser.isSet(socket)) {
        ep->transport = RedisEndpoint::Transport::Unix;
        ep->socketPath = parser.value(socket);
    }
    if (parser.isSet(host))
        ep->host = parser.value(host);
    if (parser.isSet(port)) {
        bool ok = false;
        const uint number = parser.value(port).toUInt(&ok);
        if (!ok || number == 0 || number > 65535)
            return refuse(error, QStringLiteral("--port \"%1\" is not a port number (1-65535).")
                                     .arg(echoed(parser.value(port))));
        ep->port = quint16(number);
    }
    return true;
}

// --tls and the flags that need it, the PEM files read.
bool applyTls(const QCommandLineParser &parser, const QCommandLineOption &tls,
              const QCommandLineOption &cacert, const QCommandLineOption &cert,
              const QCommandLineOption &key, const QCommandLineOption &sni,
              const QCommandLineOption &insecure, RedisEndpoint *ep, QString *error)
{
    const bool tlsFlags = parser.isSet(cacert) || parser.isSet(cert) || parser.isSet(key)
                          || parser.isSet(sni) || parser.isSet(insecure);
    if (parser.isSet(tls)) {
        if (ep->transport == RedisEndpoint::Transport::Unix)
            return refuse(error, QStringLiteral("--tls cannot be used with a unix socket."));
        ep->transport = RedisEndpoint::Transport::Tls;
    }
    if (tlsFlags && ep->transport != RedisEndpoint::Transport::Tls)
        return refuse(error, QStringLiteral("--cacert, --cert, --key, --sni and --insecure need "
                                            "TLS: use a rediss:// URL or add --tls."));
    if (parser.isSet(cert) != parser.isSet(key))
        return refuse(error, QStringLiteral("--cert and --key go together: give both or neither."));
    // Checked here, before connecting: a missing, unreadable, empty or non-PEM
    // file is a usage error naming the file.
    for (const QCommandLineOption *file : {&cacert, &cert, &key}) {
        if (!parser.isSet(*file))
            continue;
        QString problem;
        if (!readPemFile(parser.value(*file),
                         file == &key ? PemContent::PrivateKey : PemContent::Certificates,
                         QStringLiteral("--") + file->names().first(), &problem))
            return refuse(error, problem);
    }
    ep->caFile = parser.value(cacert);
    ep->certFile = parser.value(cert);
    ep->keyFile = parser.value(key);
    ep->sniName = parser.value(sni);
    ep->verifyPeer = !parser.isSet(insecure);
    return true;
}

// --nat-map FROM=TO, each entry.
bool applyNatMap(const QStringList &entries, RedisEndpoint *ep, QString *error)
{
    for (const QString &entry : entries) {
        const qsizetype eq = entry.indexOf(QLatin1Char('='));
        QString host;
        quint16 port = 0;
        const QString from = entry.left(eq).trimmed();
        const QString to = entry.mid(eq + 1).trimmed();
        if (eq < 0 || !Topology::splitAddress(from, &host, &port)
            || !Topology::splitAddress(to, &host, &port))
            return refuse(error,
                          QStringLiteral("--nat-map \"%1\" is not FROM=TO with two host:port "
                                         "addresses (e.g. --nat-map 10.0.0.5:6379=127.0.0.1:7005).")
                              .arg(echoed(entry)));
        ep->natMap.insert(from, to);
    }
    return true;
}

// The --sentinel-* flags, and a Sentinel URL's master name checked.
bool applySentinel(const QCommandLineParser &parser, const QCommandLineOption &master,
                   const QCommandLineOption &user, const QCommandLineOption &password,
                   RedisEndpoint *ep, QString *error)
{
    if (parser.isSet(master) || parser.isSet(user) || parser.isSet(password)) {
        if (!ep->isSentinel())
            return refuse(error, QStringLiteral("--sentinel-master, --sentinel-user and "
                                                "--sentinel-password need a Sentinel URL: --url "
                                                "redis-sentinel://host:26379[,host:port...]"
                                                "#master-name."));
        if (parser.isSet(master))
            ep->sentinelMaster = parser.value(master);
        ep->sentinelUser = parser.value(user);
        ep->sentinelPassword = parser.value(password);
    }
    if (ep->isSentinel() && ep->sentinelMaster.trimmed().isEmpty())
        return refuse(error, QStringLiteral("The Sentinel URL names no master: add #NAME to it "
                                            "(redis-sentinel://host:26379#mymaster) or give "
                                            "--sentinel-master NAME."));
    return true;
}

} // namespace

std::optional<RedisEndpoint> EndpointOptions::endpoint(const QCommandLineParser &parser,
                                                       QString *error, const QString *url) const
{
    const auto fail = [error](const QString &message) {
        refuse(error, message);
        return std::nullopt;
    };

    RedisEndpoint ep;
    if (!applyAddress(parser, url, m_url, m_host, m_port, m_socket, &ep, error))
        return std::nullopt;
    if (parser.isSet(m_db)) {
        bool ok = false;
        const int db = parser.value(m_db).toInt(&ok);
        if (!ok || db < 0)
            return fail(QStringLiteral("--db \"%1\" is not a database number (0 or more).")
                            .arg(echoed(parser.value(m_db))));
        ep.db = db;
    }
    if (parser.isSet(m_user))
        ep.user = parser.value(m_user);
    if (parser.isSet(m_pass))
        ep.password = parser.value(m_pass);
    else if (ep.password.isEmpty() && qEnvironmentVariableIsSet("REDISCLI_AUTH"))
        ep.password = qEnvironmentVariable("REDISCLI_AUTH");

    if (!applyTls(parser, m_tls, m_cacert, m_cert, m_key, m_sni, m_insecure, &ep, error))
        return std::nullopt;
    if (parser.isSet(m_timeout)) {
        bool ok = false;
        const int ms = parser.value(m_timeout).toInt(&ok);
        if (!ok || ms <= 0)
            return fail(QStringLiteral("--connect-timeout \"%1\" is not a positive number of ms.")
                            .arg(echoed(parser.value(m_timeout))));
        ep.connectTimeoutMs = ms;
    }
    if (!applyNatMap(parser.values(m_natMap), &ep, error))
        return std::nullopt;
    if (!applySentinel(parser, m_sentinelMaster, m_sentinelUser, m_sentinelPass, &ep, error))
        return std::nullopt;
    if (parser.isSet(m_readFrom)) {
        const QString where = parser.value(m_readFrom).trimmed().toLower();
        if (where != QLatin1String("master") && where != QLatin1String("replicas"))
            return fail(QStringLiteral("--read-from \"%1\" is not a place to read from: use "
                                       "--read-from replicas (a Cluster's or Sentinel master's "
                                       "replicas) or --read-from master (the default).")
                            .arg(echoed(parser.value(m_readFrom))));
        ep.readFromReplicas = where == QLatin1String("replicas");
    }
    // The applications follow a Cluster from any one node's address.
    ep.discoverTopology = true;
    return ep;
}

std::optional<QList<EndpointOptions::Named>>
EndpointOptions::namedEndpoints(const QCommandLineParser &parser, const QStringList &entries,
                                QString *error) const
{
    static const QRegularExpression nameRule(QStringLiteral("^[A-Za-z0-9_.:-]{1,64}$"));
    QList<Named> named;
    for (const QString &entry : entries) {
        const qsizetype eq = entry.indexOf(QLatin1Char('='));
        Named d;
        d.name = entry.left(std::max<qsizetype>(0, eq)).trimmed();
        if (eq < 0 || !nameRule.match(d.name).hasMatch()) {
            if (error)
                *error = QStringLiteral("--deployment \"%1\" is not NAME=URL with a NAME of "
                                        "letters, digits and _.:- (e.g. --deployment "
                                        "eu=redis://10.0.0.5:6379).")
                             .arg(echoed(entry));
            return std::nullopt;
        }
        if (std::any_of(named.cbegin(), named.cend(),
                        [&](const Named &o) { return o.name == d.name; })) {
            if (error)
                *error = QStringLiteral("--deployment names \"%1\" twice; each deployment "
                                        "needs its own name.")
                             .arg(echoed(d.name));
            return std::nullopt;
        }
        const QString url = entry.mid(eq + 1).trimmed();
        const std::optional<RedisEndpoint> ep = endpoint(parser, error, &url);
        if (!ep)
            return std::nullopt;
        d.endpoint = *ep;
        named.append(d);
    }
    return named;
}

} // namespace gatehouse
