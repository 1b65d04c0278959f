// SPDX-License-Identifier: MIT
#include "redisconnection.h"

#include "redisscript.h"
#include "sentinelresolver.h"
#include "userinput.h"

#include <QDateTime>
#include <QLocalSocket>
#include <QRandomGenerator>
#include <QSslConfiguration>
#include <QSslKey>
#include <QSslSocket>
#include <QTcpSocket>
#include <QTimer>

namespace gatehouse {

namespace {

constexpr int s_backoffFirstMs = 100;
constexpr int s_backoffCapMs = 1000;

// User-supplied values (host, user, file names) are cut when echoed.
QString quoted(const QString &s)
{
    return QLatin1Char('\'') + echoed(s) + QLatin1Char('\'');
}

QString shown(const RedisEndpoint &endpoint)
{
    return echoed(endpoint.address());
}

bool isTrustProblem(QSslError::SslError e)
{
    switch (e) {
    case QSslError::UnableToGetIssuerCertificate:
    case QSslError::UnableToGetLocalIssuerCertificate:
    case QSslError::UnableToVerifyFirstCertificate:
    case QSslError::SelfSignedCertificate:
    case QSslError::SelfSignedCertificateInChain:
    case QSslError::CertificateUntrusted:
    case QSslError::CertificateRejected:
        return true;
    default:
        return false;
    }
}

} // namespace

RedisConnection::RedisConnection(RedisEndpoint endpoint, QObject *parent)
    : QObject(parent)
    , m_endpoint(std::move(endpoint))
{}

RedisConnection::~RedisConnection()
{
    // Callbacks must not run into a half-destroyed object: fail them first.
    m_autoReconnect = false;
    if (m_state != State::Disconnected && m_state != State::Failed)
        close();
}

void RedisConnection::open()
{
    if (m_state == State::Connecting || m_state == State::Ready)
        return;
    m_attempt = 0;
    startAttempt();
}

void RedisConnection::close()
{
    if (m_retryTimer)
        m_retryTimer->stop();
    const bool wasAuto = m_autoReconnect;
    m_autoReconnect = false;
    handleLoss(QStringLiteral("The connection to %1 was closed.").arg(shown(m_endpoint)), true,
               ErrorKind::Network);
    m_autoReconnect = wasAuto;
    setState(State::Disconnected, m_error, -1, m_errorKind);
}

void RedisConnection::setState(State state, const QString &message, qint64 nextAttemptAtMs,
                               ErrorKind kind)
{
    if (state == m_state && message == m_error && kind == m_errorKind)
        return;
    m_state = state;
    m_error = message;
    m_errorKind = kind;
    Q_EMIT stateChanged(state, message, nextAttemptAtMs, kind);
}

void RedisConnection::startAttempt()
{
    Q_ASSERT(!m_io);
    if (!m_connectTimer) {
        m_connectTimer = new QTimer(this);
        m_connectTimer->setSingleShot(true);
        connect(m_connectTimer, &QTimer::timeout, this, [this] {
            // Connected but not encrypted: a plain Redis port reads the
            // ClientHello as an unfinished inline command and never answers.
            const auto *ssl = qobject_cast<QSslSocket *>(m_tcp);
            if (ssl && ssl->state() == QAbstractSocket::ConnectedState && !ssl->isEncrypted()) {
                handleLoss(QStringLiteral("Cannot connect to %1: the server at %1 did not answer "
                                          "the TLS handshake within %2 ms; is it a plain "
                                          "(non-TLS) port? Try redis:// instead of rediss://.")
                               .arg(shown(m_endpoint))
                               .arg(m_endpoint.connectTimeoutMs),
                           false, ErrorKind::Tls);
                return;
            }
            handleLoss(QStringLiteral("Cannot connect to %1: no answer within %2 ms "
                                      "(is the address right and the port reachable?).")
                           .arg(shown(m_endpoint))
                           .arg(m_endpoint.connectTimeoutMs),
                       false, ErrorKind::Network);
        });
    }
    m_sslProblem.clear();
    m_reader.reset();
    setState(State::Connecting, QString());
    if (!m_endpoint.isSentinel()) {
        connectTransport();
        return;
    }
    // Sentinel: every attempt asks the sentinels first, so a reconnect after
    // a failover reaches the new master (the handshake checks its ROLE).
    if (m_endpoint.sentinelMaster.isEmpty()) {
        handleLoss(QStringLiteral("The Sentinel URL names no master: add #NAME to it or give "
                                  "--sentinel-master NAME."),
                   true, ErrorKind::Setup);
        return;
    }
    m_resolver = new SentinelResolver(
        m_endpoint,
        [this](const SentinelResolver::Result &r) {
            m_resolver->deleteLater();
            m_resolver = nullptr;
            if (!r.ok) {
                handleLoss(r.message, r.final, r.final ? ErrorKind::Setup : ErrorKind::Network);
                return;
            }
            m_endpoint.host = r.host;
            m_endpoint.port = r.port;
            connectTransport();
        },
        this);
    m_resolver->start();
}

void RedisConnection::connectTransport()
{
    m_connectTimer->start(m_endpoint.connectTimeoutMs);

    switch (m_endpoint.transport) {
    case RedisEndpoint::Transport::Unix: {
        m_local = new QLocalSocket(this);
        m_io = m_local;
        connect(m_local, &QLocalSocket::connected, this, &RedisConnection::onTransportConnected);
        connect(m_local, &QLocalSocket::errorOccurred, this, &RedisConnection::onSocketError);
        connect(m_local, &QLocalSocket::readyRead, this, &RedisConnection::onReadyRead);
        m_local->connectToServer(m_endpoint.socketPath);
        return;
    }
    case RedisEndpoint::Transport::Tls: {
        auto *ssl = new QSslSocket(this);
        m_tcp = ssl;
        m_io = ssl;
        QSslConfiguration conf = QSslConfiguration::defaultConfiguration();
        // Bounded reads of regular files only: a FIFO or /dev/zero named as a
        // certificate must not hang or fill the memory of the console.
        QString problem;
        if (!m_endpoint.caFile.isEmpty()) {
            const auto pem = readPemFile(m_endpoint.caFile, PemContent::Certificates,
                                         QStringLiteral("The CA file"), &problem);
            if (!pem) {
                handleLoss(problem, true, ErrorKind::Tls);
                return;
            }
            conf.setCaCertificates(QSslCertificate::fromData(*pem, QSsl::Pem));
        }
        if (!m_endpoint.certFile.isEmpty() || !m_endpoint.keyFile.isEmpty()) {
            const auto certPem = readPemFile(m_endpoint.certFile, PemContent::Certificates,
                                             QStringLiteral("The client certificate"), &problem);
            const auto keyPem = certPem ? readPemFile(m_endpoint.keyFile, PemContent::PrivateKey,
                                                      QStringLiteral("The client key"), &problem)
                                        : std::nullopt;
            if (!certPem || !keyPem) {
                handleLoss(problem, true, ErrorKind::Tls);
                return;
            }
            QSslKey key(*keyPem, QSsl::Rsa);
            if (key.isNull())
                key = QSslKey(*keyPem, QSsl::Ec);
            conf.setLocalCertificate(QSslCertificate::fromData(*certPem, QSsl::Pem).first());
            conf.setPrivateKey(key);
        }
        conf.setPeerVerifyMode(m_endpoint.verifyPeer ? QSslSocket::VerifyPeer
                                                     : QSslSocket::VerifyNone);
        ssl->setSslConfiguration(conf);
        connect(ssl, &QSslSocket::encrypted, this, &RedisConnection::onTransportConnected);
        connect(ssl, &QSslSocket::sslErrors, this, &RedisConnection::onSslErrors);
        break;
    }
    case RedisEndpoint::Transport::Tcp:
        m_tcp = new QTcpSocket(this);
        m_io = m_tcp;
        connect(m_tcp, &QTcpSocket::connected, this, &RedisConnection::onTransportConnected);
        break;
    }
    connect(m_tcp, &QAbstractSocket::errorOccurred, this, &RedisConnection::onSocketError);
    connect(m_tcp, &QAbstractSocket::readyRead, this, &RedisConnection::onReadyRead);
    if (auto *ssl = qobject_cast<QSslSocket *>(m_tcp)) {
        const QString peer = m_endpoint.sniName.isEmpty() ? m_endpoint.host : m_endpoint.sniName;
        ssl->connectToHostEncrypted(m_endpoint.host, m_endpoint.port, peer);
    } else {
        m_tcp->connectToHost(m_endpoint.host, m_endpoint.port);
    }
}

void RedisConnection::onTransportConnected()
{
    if (m_tcp) {
        // Small pipelined requests must not wait for Nagle.
        m_tcp->setSocketOption(QAbstractSocket::LowDelayOption, 1);
        m_tcp->setSocketOption(QAbstractSocket::KeepAliveOption, 1);
    }
    m_handshaking = true;
    const quint64 generation = m_generation;
    const auto step = [this, generation](const QString &what, bool fatal) {
        return [this, generation, what, fatal](const RedisValue &reply) {
            if (generation != m_generation || !reply.isError())
                return;
            const QByteArray code = reply.errorCode();
            if (code == "NOAUTH") {
                handshakeFailed(QStringLiteral("%1 requires a password: give one with --pass, "
                                               "the URL or REDISCLI_AUTH.")
                                    .arg(shown(m_endpoint)),
                                ErrorKind::Authentication);
            } else if (fatal) {
                handshakeFailed(what + QStringLiteral(": ") + reply.errorMessage(),
                                ErrorKind::Setup);
            }
        };
    };

    if (!m_endpoint.user.isEmpty() || !m_endpoint.password.isEmpty()) {
        QList<QByteArray> auth{QByteArrayLiteral("AUTH")};
        if (!m_endpoint.user.isEmpty())
            auth << m_endpoint.user.toUtf8();
        auth << m_endpoint.password.toUtf8();
        writeCommand(
            auth, {[this, generation](const RedisValue &reply) {
                if (generation != m_generation || !reply.isError())
                    return;
                const QString who = m_endpoint.user.isEmpty()
                                        ? QStringLiteral("the default user")
                                        : QStringLiteral("user ") + quoted(m_endpoint.user);
                if (reply.errorCode() == "WRONGPASS"
                    || reply.errorMessage().contains(QLatin1String("invalid password"))) {
                    handshakeFailed(QStringLiteral("Authentication as %1 on %2 failed: wrong user "
                                                   "name or password (%3).")
                                        .arg(who, shown(m_endpoint), reply.errorMessage()),
                                    ErrorKind::Authentication);
                } else {
                    handshakeFailed(QStringLiteral("Authentication as %1 on %2 failed: %3")
                                        .arg(who, shown(m_endpoint), reply.errorMessage()),
                                    ErrorKind::Authentication);
                }
            }});
    }
    if (m_endpoint.db != 0) {
        const QString what = QStringLiteral("Cannot select database %1 on %2")
                                 .arg(m_endpoint.db)
                                 .arg(shown(m_endpoint));
        writeCommand({QByteArrayLiteral("SELECT"), QByteArray::number(m_endpoint.db)},
                     {[this, generation, what, failed = step(what, true)](const RedisValue &reply) {
                         if (generation != m_generation || !reply.isError())
                             return;
                         // Redis's "ERR DB index is out of range" says less than this.
                         if (reply.errorMessage().contains(QLatin1String("out of range"))) {
                             handshakeFailed(
                                 what
                                     + QStringLiteral(": the server has fewer databases "
                                                      "(its \"databases\" setting, 16 "
                                                      "by default; a Cluster has only "
                                                      "0). Give a number it has, as "
                                                      "the URL's path: redis://host:port/0."),
                                 ErrorKind::Setup);
                             return;
                         }
                         failed(reply);
                     }});
    }
    // A Cluster replica read from (--read-from replicas). Refused (a master
    // of an older server, an ACL), the node redirects reads as it would anyway.
    if (m_endpoint.readOnly)
        writeCommand({QByteArrayLiteral("READONLY")}, {[](const RedisValue &) {
                     }});
    // Named so operators see us in CLIENT LIST. A user without the CLIENT
    // command (restricted ACL) still gets a working connection.
    const bool checkRole = m_endpoint.isSentinel();
    writeCommand(
        {QByteArrayLiteral("CLIENT"), QByteArrayLiteral("SETNAME"), m_endpoint.clientName.toUtf8()},
        {[this, generation, checkRole, noauth = step(QString(), false)](const RedisValue &reply) {
            noauth(reply);
            if (generation == m_generation && m_handshaking && !checkRole)
                becomeReady();
        }});
    if (!checkRole)
        return;
    // A sentinel's answer can trail a failover by a moment: the address must
    // be a master now, or the sentinels are asked again after a backoff. A
    // user not allowed ROLE is taken at the sentinels' word.
    writeCommand({QByteArrayLiteral("ROLE")}, {[this, generation](const RedisValue &reply) {
                     if (generation != m_generation || !m_handshaking)
                         return;
                     const QByteArray role
                         = reply.isArray() && reply.size() > 0 ? reply.at(0).bytes() : QByteArray();
                     if (!reply.isError() && role != "master") {
                         handleLoss(QStringLiteral("%1, which the sentinels named master \"%2\", "
                                                   "is a %3 now; asking the sentinels again.")
                                        .arg(shown(m_endpoint), echoed(m_endpoint.sentinelMaster),
                                             QString::fromUtf8(role)),
                                    false, ErrorKind::Network);
                         return;
                     }
                     becomeReady();
                 }});
}

void RedisConnection::reconnect(const QString &why)
{
    if (m_state == State::Ready || m_state == State::Connecting)
        handleLoss(why, false, ErrorKind::Network);
}

void RedisConnection::becomeReady()
{
    m_handshaking = false;
    m_connectTimer->stop();
    m_attempt = 0;
    setState(State::Ready, QString());
    // Held requests go out in the order they were submitted.
    if (!m_heldBytes.isEmpty()) {
        for (auto &p : m_held)
            m_pending.push_back(std::move(p));
        m_held.clear();
        m_io->write(m_heldBytes);
        m_heldBytes.clear();
    }
    Q_EMIT ready();
}

void RedisConnection::handshakeFailed(const QString &message, ErrorKind kind)
{
    handleLoss(message, true, kind);
}

void RedisConnection::writeCommand(const QList<QByteArray> &args, Pending pending)
{
    QByteArray bytes;
    appendCommand(bytes, args);
    m_pending.push_back(std::move(pending));
    m_io->write(bytes);
}

void RedisConnection::send(const QList<QByteArray> &args, Callback callback)
{
    submit(args, {std::move(callback), {}, {}});
}

void RedisConnection::sendScript(const RedisScript &script, const QList<QByteArray> &keys,
                                 const QList<QByteArray> &args, Callback callback)
{
    QList<QByteArray> tail;
    tail.reserve(1 + keys.size() + args.size());
    tail << QByteArray::number(keys.size()) << keys << args;
    if (m_evalOnly) {
        QList<QByteArray> cmd{QByteArrayLiteral("EVAL"), script.source()};
        cmd << tail;
        submit(cmd, {std::move(callback)});
        return;
    }
    QList<QByteArray> cmd{QByteArrayLiteral("EVALSHA"), script.sha1()};
    cmd << tail;
    submit(cmd, {std::move(callback), script.source(), std::move(tail)});
}

void RedisConnection::submit(const QList<QByteArray> &args, Pending pending)
{
    if (m_state == State::Ready) {
        writeCommand(args, std::move(pending));
    } else if (m_state == State::Connecting) {
        appendCommand(m_heldBytes, args);
        m_held.push_back(std::move(pending));
    } else {
        const QString why
            = m_error.isEmpty()
                  ? QStringLiteral("Not connected to %1.").arg(shown(m_endpoint))
                  : QStringLiteral("Not connected to %1: %2").arg(shown(m_endpoint), m_error);
        complete(pending, RedisValue::failed(why));
    }
}

void RedisConnection::sendBatch(const QList<QList<QByteArray>> &commands, BatchCallback callback)
{
    const qsizetype n = commands.size();
    if (n == 0) {
        if (callback)
            callback({});
        return;
    }
    auto batch = std::make_shared<Batch>(Batch{QList<RedisValue>(n), n, std::move(callback)});
    const bool ready = m_state == State::Ready;
    if (!ready && m_state != State::Connecting) {
        Pending p;
        p.batch = batch;
        for (qsizetype i = 0; i < n; ++i) {
            p.index = i;
            submit(commands.at(i), p); // answered at once with the reason
        }
        return;
    }
    QByteArray local;
    QByteArray &bytes = ready ? local : m_heldBytes;
    std::deque<Pending> &queue = ready ? m_pending : m_held;
    for (qsizetype i = 0; i < n; ++i) {
        appendCommand(bytes, commands.at(i));
        Pending p;
        p.batch = batch;
        p.index = i;
        queue.push_back(std::move(p));
    }
    if (ready)
        m_io->write(local);
}

void RedisConnection::flush()
{
    if (m_tcp)
        m_tcp->flush();
    else if (m_local)
        m_local->flush();
}

void RedisConnection::complete(Pending &pending, const RedisValue &reply)
{
    if (pending.batch) {
        Batch &b = *pending.batch;
        b.replies[pending.index] = reply;
        if (--b.remaining == 0 && b.callback)
            b.callback(std::move(b.replies));
    } else if (pending.callback) {
        pending.callback(reply);
    }
}

void RedisConnection::sendPush(const QList<QByteArray> &args)
{
    Q_ASSERT(m_mode == Mode::Subscriber);
    if (m_state != State::Ready)
        return;
    QByteArray bytes;
    appendCommand(bytes, args);
    m_io->write(bytes);
}

void RedisConnection::onReadyRead()
{
    const quint64 generation = m_generation;
    while (m_io && generation == m_generation && m_io->bytesAvailable() > 0) {
        m_reader.feed(m_io->readAll());
        RedisValue reply;
        for (;;) {
            const RespReader::Result r = m_reader.next(&reply);
            if (r == RespReader::Result::NeedMore)
                break;
            if (r == RespReader::Result::ProtocolError) {
                handleLoss(m_endpoint.transport == RedisEndpoint::Transport::Tcp
                               ? QStringLiteral("%1 sent something that is not RESP (%2); is it "
                                                "a TLS port? Try rediss:// instead of redis://.")
                                     .arg(shown(m_endpoint), m_reader.errorString())
                               : QStringLiteral("%1 sent something that is not RESP (%2); is "
                                                "it a Redis server?")
                                     .arg(shown(m_endpoint), m_reader.errorString()),
                           false,
                           m_endpoint.transport == RedisEndpoint::Transport::Tcp
                               ? ErrorKind::Tls
                               : ErrorKind::Network);
                return;
            }
            dispatch(reply);
            if (generation != m_generation)
                return; // a callback closed or lost the connection
        }
    }
}

void RedisConnection::dispatch(const RedisValue &reply)
{
    if (m_pending.empty()) {
        if (m_mode == Mode::Subscriber && !m_handshaking) {
            Q_EMIT pushReceived(reply);
            return;
        }
        handleLoss(QStringLiteral("%1 sent a reply nobody asked for; the connection was reset.")
                       .arg(shown(m_endpoint)),
                   false, ErrorKind::Network);
        return;
    }
    Pending p = std::move(m_pending.front());
    m_pending.pop_front();
    // EVALSHA refused by ACL (a user with +eval -evalsha): the same call as
    // EVAL, and every later script of this connection goes straight to EVAL.
    const bool evalshaRefused
        = !p.scriptSource.isEmpty() && reply.refusedCommand() == QByteArrayLiteral("EVALSHA");
    if (evalshaRefused)
        m_evalOnly = true;
    if (!p.scriptSource.isEmpty() && (reply.errorCode() == "NOSCRIPT" || evalshaRefused)) {
        QList<QByteArray> eval{QByteArrayLiteral("EVAL"), p.scriptSource};
        eval << p.evalTail;
        p.scriptSource.clear();
        writeCommand(eval, std::move(p));
        return;
    }
    complete(p, reply);
}

void RedisConnection::onSslErrors(const QList<QSslError> &errors)
{
    QStringList parts;
    for (const QSslError &e : errors) {
        if (e.error() == QSslError::HostNameMismatch) {
            const QString name
                = m_endpoint.sniName.isEmpty() ? m_endpoint.host : m_endpoint.sniName;
            parts << QStringLiteral("the server's certificate is not valid for the name %1 "
                                    "(connect by a name the certificate lists, or pass it "
                                    "with --sni)")
                         .arg(quoted(name));
        } else if (isTrustProblem(e.error())) {
            parts << QStringLiteral("the server's certificate is not signed by a trusted CA "
                                    "(%1; pass the CA that signed it with --cacert)")
                         .arg(e.errorString());
        } else {
            parts << e.errorString();
        }
    }
    parts.removeDuplicates();
    m_sslProblem = parts.join(QLatin1String("; "));
}

QString RedisConnection::describeSocketError() const
{
    const QString where = shown(m_endpoint);
    if (m_local) {
        switch (m_local->error()) {
        case QLocalSocket::ServerNotFoundError:
            return QStringLiteral("Cannot connect to %1: there is no socket at that path "
                                  "(is redis-server running with unixsocket set to it?).")
                .arg(where);
        case QLocalSocket::ConnectionRefusedError:
            return QStringLiteral("Cannot connect to %1: connection refused.").arg(where);
        case QLocalSocket::SocketAccessError:
            return QStringLiteral("Cannot connect to %1: permission denied (check "
                                  "unixsocketperm and your group).")
                .arg(where);
        case QLocalSocket::PeerClosedError:
            return QStringLiteral("%1 closed the connection.").arg(where);
        default:
            return QStringLiteral("Connection to %1 failed: %2.")
                .arg(where, m_local->errorString());
        }
    }
    // TLS 1.3 servers check the client certificate after the client considers
    // the handshake done, so a missing one shows up as an alert on first read.
    if (m_tcp->errorString().contains(QLatin1String("certificate required"))) {
        return QStringLiteral("%1 requires a client certificate: pass one with --cert and "
                              "--key (%2).")
            .arg(where, m_tcp->errorString());
    }
    switch (m_tcp->error()) {
    case QAbstractSocket::ConnectionRefusedError:
        // The sentinels named it: they have not yet seen it down, and
        // every attempt asks them again.
        if (m_endpoint.isSentinel())
            return QStringLiteral("Cannot connect to %1, the master the sentinels name for "
                                  "\"%2\": connection refused. If it is down, a failover may "
                                  "be under way (the sentinels have not named another master "
                                  "yet): try again in a few seconds.")
                .arg(where, m_endpoint.sentinelMaster);
        return QStringLiteral("Cannot connect to %1: connection refused (is redis-server "
                              "running and listening on that port?).")
            .arg(where);
    case QAbstractSocket::HostNotFoundError:
        return QStringLiteral("Cannot connect to %1: host not found (is the name right?).")
            .arg(where);
    case QAbstractSocket::RemoteHostClosedError:
        if (m_state == State::Ready)
            return QStringLiteral("%1 closed the connection.").arg(where);
        if (m_endpoint.transport == RedisEndpoint::Transport::Tcp)
            return QStringLiteral("%1 closed the connection during the handshake; is it a TLS "
                                  "port? Try rediss:// instead of redis://.")
                .arg(where);
        return QStringLiteral("%1 closed the connection during the TLS handshake (is it a plain "
                              "(non-TLS) port? Try redis:// instead of rediss://; or does the "
                              "server want a client certificate, --cert and --key?).")
            .arg(where);
    case QAbstractSocket::SslHandshakeFailedError:
        if (!m_sslProblem.isEmpty())
            return QStringLiteral("TLS verification of %1 failed: %2.").arg(where, m_sslProblem);
        // "wrong version number", "packet length too long": a plaintext reply
        // (such as "-ERR ...") where a TLS record was expected.
        if (m_tcp->errorString().contains(QLatin1String("wrong version number"))
            || m_tcp->errorString().contains(QLatin1String("packet length too long"))
            || m_tcp->errorString().contains(QLatin1String("record layer failure")))
            return QStringLiteral("TLS handshake with %1 failed: the server at %1 did not answer "
                                  "the TLS handshake (%2); is it a plain (non-TLS) port? Try "
                                  "redis:// instead of rediss://.")
                .arg(where, m_tcp->errorString());
        return QStringLiteral("TLS handshake with %1 failed: %2 (is it a plain (non-TLS) port? "
                              "Try redis:// instead of rediss://; or does the server require a "
                              "client certificate, --cert and --key?).")
            .arg(where, m_tcp->errorString());
    default:
        return QStringLiteral("Connection to %1 failed: %2.").arg(where, m_tcp->errorString());
    }
}

// TLS when the handshake failed or the server hung up during it (a plain
// port spoken to in TLS, or the reverse), or wants a client certificate.
RedisConnection::ErrorKind RedisConnection::socketErrorKind() const
{
    if (!m_tcp)
        return ErrorKind::Network;
    if (m_tcp->error() == QAbstractSocket::SslHandshakeFailedError
        || m_tcp->errorString().contains(QLatin1String("certificate required"))
        || (m_tcp->error() == QAbstractSocket::RemoteHostClosedError && m_state != State::Ready))
        return ErrorKind::Tls;
    return ErrorKind::Network;
}

void RedisConnection::onSocketError()
{
    // Configuration problems do not heal by retrying: untrusted or misnamed
    // certificate, missing client certificate.
    const bool tlsConfig
        = m_tcp
          && ((m_tcp->error() == QAbstractSocket::SslHandshakeFailedError
               && !m_sslProblem.isEmpty())
              || m_tcp->errorString().contains(QLatin1String("certificate required")));
    handleLoss(describeSocketError(), tlsConfig, socketErrorKind());
}

void RedisConnection::failAll(std::deque<Pending> &queue, const QString &message)
{
    std::deque<Pending> failing;
    failing.swap(queue);
    const RedisValue failure = RedisValue::failed(message);
    for (Pending &p : failing)
        complete(p, failure);
}

void RedisConnection::handleLoss(const QString &message, bool final, ErrorKind kind)
{
    ++m_generation;
    const bool wasReady = m_state == State::Ready;
    m_handshaking = false;
    if (m_resolver) {
        delete m_resolver;
        m_resolver = nullptr;
    }
    if (m_connectTimer)
        m_connectTimer->stop();
    if (m_io) {
        m_io->disconnect(this);
        if (m_tcp)
            m_tcp->abort();
        if (m_local)
            m_local->abort();
        m_io->deleteLater();
        m_io = nullptr;
        m_tcp = nullptr;
        m_local = nullptr;
    }
    m_reader.reset();
    m_heldBytes.clear();

    const bool retry = !final && m_autoReconnect;
    int delay = 0;
    if (retry) {
        const int base = qMin(s_backoffCapMs, s_backoffFirstMs << qMin(m_attempt, 4));
        ++m_attempt;
        // Jitter (75-100 %) keeps a fleet of consoles from reconnecting in step.
        delay = base * QRandomGenerator::global()->bounded(75, 101) / 100;
        setState(State::Reconnecting,
                 QStringLiteral("%1 Next attempt in %2 ms.").arg(message).arg(delay),
                 QDateTime::currentMSecsSinceEpoch() + delay, kind);
    } else {
        setState(State::Failed, message, -1, kind);
    }

    // State first, so callbacks that send again are answered at once.
    const QString lost
        = wasReady ? QStringLiteral("%1 The command may or may not have run; it was not retried.")
                         .arg(message)
                   : message;
    failAll(m_pending, lost);
    failAll(m_held, QStringLiteral("Not sent: %1").arg(message));

    if (retry && m_state == State::Reconnecting) {
        if (!m_retryTimer) {
            m_retryTimer = new QTimer(this);
            m_retryTimer->setSingleShot(true);
            connect(m_retryTimer, &QTimer::timeout, this, [this] {
                if (m_state == State::Reconnecting && !m_io)
                    startAttempt();
            });
        }
        m_retryTimer->start(delay);
    }
}

} // namespace gatehouse
