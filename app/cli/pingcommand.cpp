// SPDX-License-Identifier: MIT
#include "pingcommand.h"

#include "exitcodes.h"

#include <redis/serverinfo.h>
#include <redis/userinput.h>

#include <QDateTime>
#include <QTextStream>

namespace gatehouse::cli {

PingCommand::PingCommand(const RedisEndpoint &endpoint, QObject *parent)
    : QObject(parent)
    , m_client(endpoint)
{
    m_client.setAutoReconnect(false);
    connect(&m_client, &RedisClient::stateChanged, this,
            [this](RedisConnection::State state, const QString &message) {
                if (state == RedisConnection::State::Failed)
                    fail(message);
            });
    connect(&m_client, &RedisClient::ready, this, &PingCommand::onReady);
}

void PingCommand::start()
{
    m_client.open();
}

void PingCommand::fail(const QString &message)
{
    if (m_done)
        return;
    m_done = true;
    QTextStream(stderr) << "gatehouse-cli: " << message << Qt::endl;
    Q_EMIT finished(ExitFailure);
}

void PingCommand::onReady()
{
    m_sentAtMs = QDateTime::currentMSecsSinceEpoch();
    m_client.pipeline(
        {{QByteArrayLiteral("PING")},
         {QByteArrayLiteral("TIME")},
         {QByteArrayLiteral("INFO"), QByteArrayLiteral("server")}},
        this, [this](const QList<RedisValue> &replies) {
            const qint64 receivedAtMs = QDateTime::currentMSecsSinceEpoch();
            const RedisValue &pong = replies.at(0);
            if (pong.isError()) {
                const QString why
                    = pong.errorCode() == "NOPERM"
                          ? QStringLiteral(
                                "user %1 may not run PING (NOPERM); grant +ping in its ACL.")
                                .arg(echoed(m_client.endpoint().user))
                          : pong.errorMessage();
                fail(QStringLiteral("PING to %1 failed: %2")
                         .arg(echoed(m_client.endpoint().address()), why));
                return;
            }
            if (m_done)
                return;
            m_done = true;
            QTextStream out(stdout);
            out << pong.bytes() << '\n';

            const RedisValue &info = replies.at(2);
            if (info.isError()) {
                out << "server: " << m_client.endpoint().address()
                    << " (version unknown: INFO is not permitted: " << info.errorMessage() << ")\n";
            } else {
                const auto fields = parseInfo(info.bytes());
                out << "server: Redis " << fields.value("redis_version", "?") << " ("
                    << fields.value("redis_mode", "standalone") << ") at "
                    << m_client.endpoint().address() << '\n';
            }

            const qint64 serverMs = serverTimeMs(replies.at(1));
            if (serverMs < 0) {
                out << "time: unknown (" << replies.at(1).errorMessage() << ")\n";
            } else {
                // Offset against the midpoint of the round trip.
                const qint64 offset = serverMs - (m_sentAtMs + receivedAtMs) / 2;
                out << "time: "
                    << QDateTime::fromMSecsSinceEpoch(serverMs, Qt::UTC).toString(Qt::ISODateWithMs)
                    << " (server clock " << (offset >= 0 ? "+" : "") << offset
                    << " ms from this machine, round trip " << (receivedAtMs - m_sentAtMs)
                    << " ms)\n";
            }
            out.flush();
            Q_EMIT finished(ExitOk);
        });
}

} // namespace gatehouse::cli
