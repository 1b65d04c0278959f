// SPDX-License-Identifier: MIT
#include "pingcommand.h"

#include "exitcodes.h"

#include <monitor/durabilityreader.h>
#include <redis/nodeorder.h>
#include <redis/sentinelhint.h>
#include <redis/serveridentity.h>
#include <redis/serverinfo.h>
#include <redis/userinput.h>

#include <QDateTime>
#include <QJsonDocument>
#include <QTextStream>

namespace gatehouse::cli {

namespace {

// Text goes to stdout, unless the command prints JSON at the end: then it is
// dropped (the JSON carries the same).
class Text
{
public:
    explicit Text(bool json)
        : m_stream(stdout)
    {
        if (json)
            m_stream.setString(&m_dropped);
    }
    template<typename T>
    Text &operator<<(const T &v)
    {
        m_stream << v;
        return *this;
    }
    void flush() { m_stream.flush(); }

private:
    QString m_dropped;
    QTextStream m_stream;
};

QJsonValue figure(qint64 v)
{
    return v < 0 ? QJsonValue() : QJsonValue(double(v));
}

} // namespace

PingCommand::PingCommand(const RedisEndpoint &endpoint, bool json, QObject *parent)
    : QObject(parent)
    , m_client(endpoint)
    , m_json(json)
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
         {QByteArrayLiteral("INFO"), QByteArrayLiteral("server")},
         {QByteArrayLiteral("ROLE")}},
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
            // A sentinel answers PING and INFO, but is no data server.
            if (!m_client.endpoint().isSentinel()) {
                if (const auto masters = SentinelHint::monitoredMasters(replies.value(3))) {
                    fail(SentinelHint::sentence(m_client.endpoint(), masters));
                    return;
                }
            }
            if (m_done)
                return;
            m_done = true;
            Text out(m_json);
            out << pong.bytes() << '\n';
            m_result.insert(QStringLiteral("pong"), QString::fromUtf8(pong.bytes()));
            const QString address = m_client.topology().isSentinel()
                                        ? m_client.topology().nodes.value(0).address()
                                        : m_client.endpoint().address();
            m_result.insert(QStringLiteral("address"), address);

            const RedisValue &info = replies.at(2);
            if (info.isError()) {
                out << "server: " << m_client.endpoint().address()
                    << " (version unknown: INFO is not permitted: " << info.errorMessage() << ")\n";
                m_result.insert(QStringLiteral("version"), QJsonValue());
            } else {
                const ServerIdentity id = ServerIdentity::fromInfo(parseInfo(info.bytes()));
                out << "server: " << id.displayName() << " (" << id.mode;
                if (id.compatVersion != id.version && !id.compatVersion.isEmpty())
                    out << ", compatible with Redis " << id.compatVersion;
                out << ") at " << address << '\n';
                m_result.insert(QStringLiteral("version"), id.version);
                m_result.insert(QStringLiteral("serverName"), id.name);
                m_result.insert(QStringLiteral("serverVersion"), id.version);
                m_result.insert(QStringLiteral("compatibilityVersion"), id.compatVersion);
                m_result.insert(QStringLiteral("serverMode"), id.mode);
            }

            const qint64 serverMs = serverTimeMs(replies.at(1));
            m_serverMs = serverMs;
            m_result.insert(QStringLiteral("roundTripMs"), double(receivedAtMs - m_sentAtMs));
            if (serverMs < 0) {
                out << "time: unknown (" << replies.at(1).errorMessage() << ")\n";
                m_result.insert(QStringLiteral("timeMs"), QJsonValue());
                m_result.insert(QStringLiteral("clockOffsetMs"), QJsonValue());
            } else {
                // Offset against the midpoint of the round trip.
                const qint64 offset = serverMs - (m_sentAtMs + receivedAtMs) / 2;
                m_result.insert(QStringLiteral("timeMs"), double(serverMs));
                m_result.insert(QStringLiteral("clockOffsetMs"), double(offset));
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
    Text out(m_json);
    if (!topology.isCluster() && !topology.isSentinel()) {
        out << "mode: standalone\n";
        out.flush();
        m_result.insert(QStringLiteral("mode"), QStringLiteral("standalone"));
        // The one server, read as the console reads it (Monitor): its
        // durability whatever its role.
        m_masters = {m_client.endpoint().address()};
        m_nodes.append(QJsonObject{{QStringLiteral("address"), m_masters.first()}});
        readDurability();
        return;
    }
    const int masters = int(topology.masters().size());
    for (int m : topology.masters())
        m_masters << topology.nodes.at(m).address();
    if (topology.isSentinel()) {
        const RedisEndpoint &ep = m_client.endpoint();
        out << "mode: sentinel (master \"" << ep.sentinelMaster << "\" at "
            << topology.nodes.value(0).address() << ", " << topology.nodes.size() - masters
            << " replicas; sentinels " << ep.sentinels.join(QLatin1Char(',')) << ")\n";
        m_result.insert(QStringLiteral("mode"), QStringLiteral("sentinel"));
        m_result.insert(QStringLiteral("sentinelMaster"), ep.sentinelMaster);
        m_result.insert(QStringLiteral("sentinels"), QJsonArray::fromStringList(ep.sentinels));
    } else {
        m_result.insert(QStringLiteral("mode"), QStringLiteral("cluster"));
        out << "mode: cluster (" << masters << (masters == 1 ? " master, " : " masters, ")
            << topology.nodes.size() - masters << " replicas; seen from "
            << m_client.endpoint().address() << ")\n";
    }
    out.flush();
    // Masters in slot order, each followed by its replicas.
    const QList<int> order = nodeOrder(topology);
    auto infos = std::make_shared<QHash<int, RedisValue>>();
    for (int i : order) {
        m_client.commandOn(
            topology.nodes.at(i).address(), {"INFO"}, this,
            [this, i, order, topology, infos](const RedisValue &v) {
                infos->insert(i, v);
                if (infos->size() < order.size())
                    return;
                Text out(m_json);
                for (int n : order) {
                    TopologyNode node = topology.nodes.at(n);
                    const RedisValue &info = infos->value(n);
                    if (!info.isError())
                        node.applyInfo(info.bytes());
                    QJsonObject json{{QStringLiteral("address"), node.address()},
                                     {QStringLiteral("role"), node.role},
                                     {QStringLiteral("state"), node.health}};
                    if (!node.announced.isEmpty())
                        json.insert(QStringLiteral("announced"), node.announced);
                    if (node.role == QLatin1String("master") && topology.isCluster()) {
                        json.insert(QStringLiteral("slots"), node.slotsText());
                        json.insert(QStringLiteral("slotCount"), node.slotCount());
                    }
                    for (const TopologyNode &m : topology.nodes) {
                        if (node.role != QLatin1String("master") && m.id == node.masterId
                            && !m.id.isEmpty())
                            json.insert(QStringLiteral("masterAddress"), m.address());
                    }
                    if (info.isError()) {
                        json.insert(QStringLiteral("error"), info.errorMessage());
                    } else {
                        json.insert(QStringLiteral("version"), node.version);
                        json.insert(QStringLiteral("usedMemoryBytes"),
                                    figure(node.usedMemoryBytes));
                        json.insert(QStringLiteral("connectedClients"),
                                    figure(node.connectedClients));
                        json.insert(QStringLiteral("opsPerSec"), figure(node.opsPerSec));
                        json.insert(QStringLiteral("replicationOffset"),
                                    figure(node.replicationOffset));
                    }
                    m_nodes.append(json);
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
                readDurability();
            });
    }
}

void PingCommand::readDurability()
{
    // The console's own reader: the same commands (INFO persistence and
    // replication, CONFIG GET appendfsync, save, min-replicas-*) and the same
    // sentence. One reading, so a replica's lag is what its acknowledgements
    // show (no write rate yet).
    if (m_masters.isEmpty()) { // a Cluster without a master that answers: nothing to read
        finish();
        return;
    }
    m_durabilityReader = new DurabilityReader(&m_client, this);
    m_durabilityReader->setMasters(m_masters);
    connect(m_durabilityReader, &DurabilityReader::read, this,
            [this](const QString &address, const Durability &d) {
                m_durability.insert(address, d);
                if (m_durability.size() == m_masters.size())
                    finish();
            });
    m_durabilityReader->readNow();
}

void PingCommand::finish()
{
    const qint64 nowS
        = m_serverMs >= 0 ? m_serverMs / 1000 : QDateTime::currentMSecsSinceEpoch() / 1000;
    const bool standalone = m_result.value(QLatin1String("mode")) == QLatin1String("standalone");
    Text out(m_json);
    QJsonArray sentences;
    for (const QString &address : std::as_const(m_masters)) {
        const Durability d = m_durability.value(address);
        const QString sentence = d.sentence(nowS);
        if (standalone)
            out << "durability: " << sentence << '\n';
        else
            out << "durability of " << address << ": " << sentence << '\n';
        sentences.append(QJsonObject{{QStringLiteral("address"), address},
                                     {QStringLiteral("sentence"), sentence}});
        for (qsizetype i = 0; i < m_nodes.size(); ++i) {
            QJsonObject node = m_nodes.at(i).toObject();
            if (node.value(QLatin1String("address")).toString() == address) {
                node.insert(QStringLiteral("durability"), d.toJson(nowS));
                m_nodes.replace(i, node);
            }
        }
    }
    out.flush();
    if (m_json) {
        m_result.insert(QStringLiteral("nodes"), m_nodes);
        m_result.insert(QStringLiteral("durability"), sentences);
        QTextStream(stdout) << QJsonDocument(m_result).toJson(QJsonDocument::Compact) << '\n';
    }
    Q_EMIT finished(ExitOk);
}

} // namespace gatehouse::cli
