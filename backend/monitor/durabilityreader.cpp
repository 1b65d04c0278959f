// SPDX-License-Identifier: MIT
#include "durabilityreader.h"

#include <redis/redisclient.h>

#include <memory>

namespace gatehouse {

DurabilityReader::DurabilityReader(RedisClient *client, QObject *parent)
    : QObject(parent)
    , m_client(client)
{
    m_timer.setInterval(IntervalMs);
    connect(&m_timer, &QTimer::timeout, this, &DurabilityReader::readNow);
}

void DurabilityReader::setMasters(const QStringList &addresses)
{
    m_masters = addresses;
    for (auto it = m_nodes.begin(); it != m_nodes.end();) {
        if (!addresses.contains(it.key()))
            it = m_nodes.erase(it);
        else
            ++it;
    }
}

void DurabilityReader::start()
{
    if (!m_timer.isActive())
        m_timer.start();
    readNow();
}

void DurabilityReader::stop()
{
    m_timer.stop();
}

void DurabilityReader::readNow()
{
    for (const QString &address : std::as_const(m_masters))
        readOne(address);
}

void DurabilityReader::readOne(const QString &address)
{
    Node &node = m_nodes[address];
    if (node.inFlight)
        return; // a slow node gets no pile of requests
    node.inFlight = true;
    const bool configDue
        = !node.configClock.isValid() || node.configClock.elapsed() >= ConfigIntervalMs;
    // One pass: the INFO sections, then (when due) the configuration; the
    // reading is published once the last reply is in.
    struct Pass
    {
        QByteArray persistence, replication;
        QString error;
        QHash<QByteArray, QByteArray> config;
        bool configAnswered = false;
        int remaining = 0;
    };
    auto pass = std::make_shared<Pass>();
    pass->remaining = configDue ? 5 : 2;
    const auto finish = [this, address, pass] {
        if (--pass->remaining > 0)
            return;
        auto it = m_nodes.find(address);
        if (it == m_nodes.end())
            return; // no longer a master
        Node &n = *it;
        n.inFlight = false;
        if (pass->configAnswered) {
            n.config = pass->config;
            n.configClock.start();
        }
        Durability d;
        if (!pass->error.isEmpty()) {
            d = n.last;
            d.known = false;
            d.error = pass->error;
            n.last = d;
            Q_EMIT read(address, d);
            return;
        }
        d.applyInfo(pass->persistence + '\n' + pass->replication, m_client->endpoint().natMap);
        d.applyConfig(n.config);
        const qint64 elapsed = n.readClock.isValid() ? n.readClock.elapsed() : -1;
        n.readClock.start();
        if (elapsed > 0 && n.last.known)
            d.estimateLag(n.last, elapsed);
        n.last = d;
        Q_EMIT read(address, d);
    };
    const auto info = [pass, finish](QByteArray *into) {
        return [pass, finish, into](const RedisValue &v) {
            if (v.isError())
                pass->error = v.errorMessage();
            else
                *into = v.bytes();
            finish();
        };
    };
    m_client->commandOn(address, {"INFO", "persistence"}, &m_context, info(&pass->persistence));
    m_client->commandOn(address, {"INFO", "replication"}, &m_context, info(&pass->replication));
    if (!configDue)
        return;
    // Refused CONFIG (ACL, managed services) leaves them unknown, not an error.
    const auto config = [pass, finish](const RedisValue &v) {
        if (!v.isError()) {
            pass->configAnswered = true;
            for (qsizetype i = 0; i + 1 < v.size(); i += 2)
                pass->config.insert(v.at(i).bytes(), v.at(i + 1).bytes());
        }
        finish();
    };
    m_client->commandOn(address, {"CONFIG", "GET", "appendfsync"}, &m_context, config);
    m_client->commandOn(address, {"CONFIG", "GET", "save"}, &m_context, config);
    m_client->commandOn(address, {"CONFIG", "GET", "min-replicas-*"}, &m_context, config);
}

} // namespace gatehouse
