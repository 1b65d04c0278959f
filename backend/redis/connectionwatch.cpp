// SPDX-License-Identifier: MIT
#include "connectionwatch.h"

#include "sentinelhint.h"
#include "userinput.h"

namespace gatehouse {

ConnectionWatch::ConnectionWatch(RedisClient *client, QObject *parent)
    : QObject(parent)
    , m_client(client)
{
    m_client->setAutoReconnect(false);
    connect(m_client, &RedisClient::stateChanged, this,
            [this](RedisConnection::State state, const QString &message) {
                if (m_started && m_reconnecting && state == RedisConnection::State::Reconnecting) {
                    if (m_lostFor.isValid())
                        return;
                    m_lostFor.start();
                    QString why = message;
                    const qsizetype at = why.lastIndexOf(QLatin1String(" Next attempt in "));
                    if (at > 0)
                        why.truncate(at);
                    Q_EMIT lost(why);
                    return;
                }
                if (state != RedisConnection::State::Failed
                    && !(m_started && state == RedisConnection::State::Disconnected))
                    return;
                if (m_closed)
                    return;
                m_closed = true;
                const QString why = message.isEmpty()
                                        ? QStringLiteral("The connection to %1 was closed.")
                                              .arg(echoed(m_client->endpoint().address()))
                                        : message;
                QMetaObject::invokeMethod(
                    this, [this, why] { Q_EMIT closed(why); }, Qt::QueuedConnection);
            });
    connect(m_client, &RedisClient::ready, this, [this] {
        if (m_started) {
            if (m_lostFor.isValid()) {
                const qint64 gap = m_lostFor.elapsed();
                m_lostFor.invalidate();
                Q_EMIT back(gap);
            }
            return;
        }
        const auto begin = [this] {
            m_started = true;
            if (m_reconnecting)
                m_client->setAutoReconnect(true);
            Q_EMIT firstReady();
        };
        if (m_client->endpoint().isSentinel()) {
            begin(); // the connection checked its ROLE: a master
            return;
        }
        // Meant for a data server: a sentinel there is the wrong address.
        m_client->command({"ROLE"}, this, [this, begin](const RedisValue &role) {
            if (m_closed || m_started)
                return;
            if (role.isFailed()) { // lost before the first handshake was done
                m_closed = true;
                Q_EMIT closed(role.errorMessage());
                return;
            }
            const std::optional<QStringList> masters = SentinelHint::monitoredMasters(role);
            if (!masters) {
                begin();
                return;
            }
            m_closed = true;
            const QString why = SentinelHint::sentence(m_client->endpoint(), *masters);
            m_client->close();
            Q_EMIT closed(why);
        });
    });
}

} // namespace gatehouse
