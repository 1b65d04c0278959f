// SPDX-License-Identifier: MIT
// --read-from replicas (RedisRouter, on its worker thread): which replica
// reads each master's data, the fallback to the master when none answers,
// and the commands that always go to the node they name.
#include "redisrouter.h"

#include <QSet>

namespace gatehouse {

RedisConnection *RedisRouter::replicaConnection(const QString &address)
{
    RedisConnection *c = m_byAddress.value(address);
    if (!c) {
        c = new RedisConnection(m_endpoint.nodeEndpoint(address), this);
        // A replica read now and then (INFO): no reconnect loop of its own.
        c->setAutoReconnect(false);
        m_byAddress.insert(address, c);
        c->open();
    } else if (c->state() == RedisConnection::State::Failed
               || c->state() == RedisConnection::State::Disconnected) {
        c->open();
    }
    return c;
}

bool RedisRouter::isNodeCommand(const QList<QByteArray> &args)
{
    static const QSet<QByteArray> s_own{
        "INFO",     "CONFIG",  "ROLE",     "CLIENT",    "CLUSTER",  "SLOWLOG", "LATENCY",
        "ACL",      "COMMAND", "READONLY", "READWRITE", "ASKING",   "SCRIPT",  "FUNCTION",
        "FLUSHALL", "FLUSHDB", "SAVE",     "BGSAVE",    "LASTSAVE", "DEBUG",   "WAIT",
        "PUBLISH",  "MULTI",   "EXEC",     "DISCARD",   "MONITOR",  "SHUTDOWN"};
    return !args.isEmpty() && s_own.contains(args.first().toUpper());
}

RedisConnection *RedisRouter::readConnection(const QString &masterAddress)
{
    const int m = m_topology.indexOf(masterAddress);
    RedisConnection *master = m_cluster ? connectionFor(masterAddress) : m_seed;
    if (m < 0 || m_topology.nodes.at(m).readsFrom.isEmpty())
        return master;
    const QString replica = m_topology.nodes.at(m).readsFrom;
    return m_cluster ? connectionFor(replica) : replicaConnection(replica);
}

RedisConnection *RedisRouter::readConnectionForKeys(const QList<QByteArray> &keys)
{
    int owner = keys.isEmpty() ? -1 : m_topology.ownerOfKey(keys.first());
    if (keys.isEmpty() && !m_topology.masters().isEmpty())
        owner = m_topology.masters().first(); // TIME, DBSIZE, SCAN: any master's replica
    if (owner < 0)
        return m_seed;
    return readConnection(m_topology.nodes.at(owner).address());
}

bool RedisRouter::updateReadRouting()
{
    if (!m_endpoint.readFromReplicas || (!m_cluster && !m_sentinel) || m_closing)
        return false;
    bool changed = false;
    for (TopologyNode &master : m_topology.nodes) {
        if (master.role != QLatin1String("master"))
            continue;
        QString chosen;
        QStringList problems;
        for (const TopologyNode &r : std::as_const(m_topology.nodes)) {
            if (r.role == QLatin1String("master") || r.masterId.isEmpty()
                || r.masterId != master.id)
                continue;
            const QString address = r.address();
            if (!r.health.isEmpty() && r.health != QLatin1String("online")) {
                problems << QStringLiteral("replica %1 is %2").arg(address, r.health);
                continue;
            }
            // An existing connection as it is: reopening here would loop on
            // a replica that refuses at once (its state change calls this).
            RedisConnection *c = m_byAddress.value(address);
            if (!c)
                c = m_cluster ? connectionFor(address) : replicaConnection(address);
            if (!m_readWatched.contains(c)) {
                m_readWatched.insert(c);
                connect(c, &RedisConnection::stateChanged, this,
                        [this, address](RedisConnection::State state) {
                            if (state == RedisConnection::State::Ready)
                                m_readFailed.remove(address);
                            else if (state != RedisConnection::State::Connecting)
                                m_readFailed.insert(address);
                            readRoutingChanged();
                        });
            }
            const RedisConnection::State state = c->state();
            if (state == RedisConnection::State::Ready
                || (state == RedisConnection::State::Connecting
                    && !m_readFailed.contains(address))) {
                chosen = address;
                break;
            }
            problems << QStringLiteral("replica %1 does not answer (%2)")
                            .arg(address, c->errorString().isEmpty()
                                              ? QStringLiteral("connecting again")
                                              : c->errorString());
        }
        const QString note
            = !chosen.isEmpty() ? QString()
              : problems.isEmpty()
                  ? QStringLiteral("--read-from replicas: master %1 has no replica; its reads go "
                                   "to the master.")
                        .arg(master.address())
                  : QStringLiteral("--read-from replicas: %1; reads of master %2 go to the "
                                   "master.")
                        .arg(problems.join(QLatin1String("; ")), master.address());
        if (chosen != master.readsFrom || note != master.readsNote) {
            master.readsFrom = chosen;
            master.readsNote = note;
            changed = true;
        }
    }
    return changed;
}

void RedisRouter::sendRead(RedisConnection *target, RedisConnection *master,
                           const QList<QByteArray> &args, Callback callback)
{
    if (target == master) {
        master->send(args, std::move(callback));
        return;
    }
    target->send(args, [this, master, args, callback](const RedisValue &v) {
        if (!v.isFailed() || m_closing) {
            callback(v);
            return;
        }
        master->send(args, callback);
        master->flush();
    });
}

void RedisRouter::readRoutingChanged()
{
    if (m_probing || !m_probed || m_closing)
        return;
    if (updateReadRouting())
        Q_EMIT topologyChanged(m_topology);
}

} // namespace gatehouse
