// SPDX-License-Identifier: MIT
#include "connectionprobe.h"

#include "redisclient.h"
#include "serveridentity.h"
#include "serverinfo.h"

#include <QPointer>
#include <QTimer>

#include <memory>

namespace gatehouse {

namespace {

// One probe's state, on the context's thread; deletes itself (and its
// client, whose worker thread it owns) once it has answered or timed out.
class Probe : public QObject
{
public:
    Probe(const RedisEndpoint &endpoint, QObject *context,
          std::function<void(const ProbeResult &)> handler, int timeoutMs)
        : m_client(endpoint)
        , m_context(context)
        , m_handler(std::move(handler))
    {
        m_client.setAutoReconnect(false);
        connect(&m_client, &RedisClient::stateChanged, this,
                [this](RedisConnection::State state, const QString &message) {
                    if (state == RedisConnection::State::Failed)
                        finish(failure(message));
                });
        connect(&m_client, &RedisClient::ready, this, &Probe::onReady);
        // The context going away drops the answer; the probe still cleans up.
        connect(context, &QObject::destroyed, this, [this] { finish({}, false); });
        m_timeout.setSingleShot(true);
        connect(&m_timeout, &QTimer::timeout, this, [this, timeoutMs] {
            finish(failure(QObject::tr("No answer within %1 s.").arg(timeoutMs / 1000.0)));
        });
        m_timeout.start(timeoutMs);
        m_client.open();
    }

private:
    ProbeResult failure(const QString &why) const
    {
        ProbeResult r;
        r.message
            = QObject::tr("Could not connect to %1: %2").arg(m_client.endpoint().displayUrl(), why);
        return r;
    }

    void onReady()
    {
        m_client.pipeline(
            {{QByteArrayLiteral("INFO"), QByteArrayLiteral("server")},
             {QByteArrayLiteral("INFO"), QByteArrayLiteral("replication")},
             {QByteArrayLiteral("ACL"), QByteArrayLiteral("WHOAMI")}},
            this, [this](const QList<RedisValue> &replies) {
                ProbeResult r;
                r.ok = true;
                QStringList missing;
                if (replies.at(0).isError()) {
                    missing << QStringLiteral("version (%1)").arg(replies.at(0).errorMessage());
                } else {
                    // By what it is (Valkey names itself beside the Redis
                    // version it keeps), its mode in redis_mode or server_mode.
                    const ServerIdentity id
                        = ServerIdentity::fromInfo(parseInfo(replies.at(0).bytes()));
                    r.version = id.version;
                    r.server = id.displayName();
                    if (id.mode == QLatin1String("sentinel"))
                        r.role = QStringLiteral("sentinel");
                }
                if (r.role.isEmpty() && !replies.at(1).isError()) {
                    const QByteArray role = parseInfo(replies.at(1).bytes()).value("role");
                    r.role
                        = role == "slave" ? QStringLiteral("replica") : QString::fromLatin1(role);
                }
                if (replies.at(2).isError())
                    missing << QStringLiteral("ACL user (%1)").arg(replies.at(2).errorMessage());
                else
                    r.user = QString::fromUtf8(replies.at(2).bytes());
                r.message = QObject::tr("Connected: %1, %2, as user %3.")
                                .arg(r.server.isEmpty() ? QStringLiteral("Redis ?") : r.server,
                                     r.role.isEmpty() ? QStringLiteral("role ?") : r.role,
                                     r.user.isEmpty() ? QStringLiteral("?") : r.user);
                if (!missing.isEmpty())
                    r.message += QLatin1Char(' ')
                                 + QObject::tr("Not readable: %1.")
                                       .arg(missing.join(QLatin1String(", ")));
                finish(r);
            });
    }

    void finish(const ProbeResult &result, bool deliver = true)
    {
        if (m_done)
            return;
        m_done = true;
        m_timeout.stop();
        if (deliver && m_context)
            m_handler(result);
        m_client.close();
        deleteLater();
    }

    RedisClient m_client;
    QPointer<QObject> m_context;
    std::function<void(const ProbeResult &)> m_handler;
    QTimer m_timeout;
    bool m_done = false;
};

} // namespace

void ConnectionProbe::run(const RedisEndpoint &endpoint, QObject *context,
                          std::function<void(const ProbeResult &)> handler, int timeoutMs)
{
    new Probe(endpoint, context, std::move(handler), timeoutMs);
}

} // namespace gatehouse
