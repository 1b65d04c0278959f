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
                    << (m_client.topology().isSentinel()
                            ? m_client.topology().nodes.value(0).address()
                            : m_client.endpoint().address())
                    << '\n';
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
            printTopology();
        });
}

void PingCommand::printTopology()
{
    const Topology topology = m_client.topology();
    QTextStream out(stdout);
    if (!topology.isCluster() && !topology.isSentinel()) {
        out << "mode: standalone\n";
        out.flush();
        Q_EMIT finished(ExitOk);
        return;
    }
    const int masters = int(topology.masters().size());
    if (topology.isSentinel()) {
        const RedisEndpoint &ep = m_client.endpoint();
        out << "mode: sentinel (master \"" << ep.sentinelMaster << "\" at "
            << topology.nodes.value(0).address() << ", " << topology.nodes.size() - masters
            << " replicas; sentinels " << ep.sentinels.join(QLatin1Char(',')) << ")\n";
    } else {
        out << "mode: cluster (" << masters << (masters == 1 ? " master, " : " masters, ")
            << topology.nodes.size() - masters << " replicas; seen from "
            << m_client.endpoint().address() << ")\n";
    }
    out.flush();
    // Masters in slot order, each followed by its replicas.
    QList<int> order;
    for (int m : topology.masters()) {
        order << m;
        for (int i = 0; i < topology.nodes.size(); ++i) {
            if (topology.nodes.at(i).role != QLatin1String("master")
                && topology.nodes.at(i).masterId == topology.nodes.at(m).id)
                order << i;
        }
    }
    for (int i = 0; i < topology.nodes.size(); ++i) {
        if (!order.contains(i))
            order << i;
    }
    auto infos = std::make_shared<QHash<int, RedisValue>>();
    for (int i : order) {
        m_client.commandOn(
            topology.nodes.at(i).address(), {"INFO"}, this,
            [this, i, order, topology, infos](const RedisValue &v) {
                infos->insert(i, v);
                if (infos->size() < order.size())
                    return;
                QTextStream out(stdout);
                for (int n : order) {
                    TopologyNode node = topology.nodes.at(n);
                    const RedisValue &info = infos->value(n);
                    if (!info.isError())
                        node.applyInfo(info.bytes());
                    out << "  " << node.address();
                    if (!node.announced.isEmpty())
                        out << " (announced " << node.announced << ")";
                    out << "  " << node.role;
                    if (node.role == QLatin1String("master") && topology.isCluster()) {
                        out << "  slots "
                            << (node.slotRanges.isEmpty() ? QStringLiteral("none")
                                                          : node.slotsText())
                            << " (" << node.slotCount() << ")";
                    } else if (node.role != QLatin1String("master")) {
                        for (const TopologyNode &m : topology.nodes) {
                            if (m.id == node.masterId && !m.id.isEmpty())
                                out << "  of " << m.address();
                        }
                    }
                    out << "  " << (node.health.isEmpty() ? QStringLiteral("?") : node.health);
                    if (info.isError()) {
                        out << "  (INFO failed: " << info.errorMessage() << ")";
                    } else {
                        out << "  Redis " << node.version << ", "
                            << QString::number(node.usedMemoryBytes / 1048576.0, 'f', 1) << " MiB, "
                            << node.connectedClients << " clients, " << node.opsPerSec
                            << " ops/s, offset " << node.replicationOffset << ", aof "
                            << (node.aofEnabled == 1 ? "on" : "off");
                    }
                    out << '\n';
                }
                out.flush();
                Q_EMIT finished(ExitOk);
            });
    }
}

} // namespace gatehouse::cli
