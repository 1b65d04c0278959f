// SPDX-License-Identifier: MIT
#include "simulatorpreflight.h"

#include <redis/redisclient.h>

namespace gatehouse {

QString SimulatorPreflight::Verdict::refusal(const QString &url, int db,
                                             const QByteArray &prefix) const
{
    if (!error.isEmpty())
        return QStringLiteral("simulate could not check that database %1 of %2 holds only its own "
                              "%3 keys (%4); nothing was written. Pass --allow-nonempty to write "
                              "anyway.")
            .arg(db)
            .arg(url, QString::fromUtf8(prefix), error);
    QStringList shown;
    for (const QByteArray &k : examples)
        shown << QLatin1Char('"') + QString::fromUtf8(k.left(60)) + QLatin1Char('"');
    return QStringLiteral("simulate refuses to write into database %1 of %2: it holds %3 keys, "
                          "not only the simulator's own %4* keys (e.g. %5 on %6). Nothing was "
                          "written. Point --url at an empty database (for example .../15) or a "
                          "private server, or pass --allow-nonempty to write %4* keys beside "
                          "them.")
        .arg(db)
        .arg(url)
        .arg(totalKeys)
        .arg(QString::fromUtf8(prefix), shown.join(QStringLiteral(", ")), where);
}

SimulatorPreflight::SimulatorPreflight(RedisClient *client, QByteArray prefix, QObject *parent)
    : QObject(parent)
    , m_client(client)
    , m_prefix(std::move(prefix))
{}

void SimulatorPreflight::start()
{
    m_verdict = {};
    m_nodes.clear();
    const Topology &topology = m_client->topology();
    if (topology.isCluster()) {
        for (int i : topology.masters())
            m_nodes << topology.nodes.at(i).address();
    }
    sizeNext(0);
}

void SimulatorPreflight::send(int node, const QList<QByteArray> &command,
                              std::function<void(const RedisValue &)> handler)
{
    if (m_nodes.isEmpty())
        m_client->command(command, this, std::move(handler));
    else
        m_client->commandOn(m_nodes.at(node), command, this, std::move(handler));
}

void SimulatorPreflight::sizeNext(int node)
{
    if (node >= std::max<qsizetype>(1, m_nodes.size())) {
        if (m_verdict.totalKeys == 0) {
            m_verdict.own = true;
            finish();
            return;
        }
        scanNext(0, "0", 0);
        return;
    }
    send(node, {"DBSIZE"}, [this, node](const RedisValue &v) {
        if (v.isError()) {
            m_verdict.error = QStringLiteral("DBSIZE: %1").arg(v.errorMessage());
            finish();
            return;
        }
        m_verdict.totalKeys += v.toInteger();
        sizeNext(node + 1);
    });
}

void SimulatorPreflight::scanNext(int node, const QByteArray &cursor, qint64 scannedOnNode)
{
    send(node, {"SCAN", cursor, "COUNT", "1000"}, [this, node, scannedOnNode](const RedisValue &v) {
        if (v.isError() || v.size() != 2) {
            m_verdict.error = QStringLiteral("SCAN: %1")
                                  .arg(v.isError() ? v.errorMessage() : QStringLiteral("no page"));
            finish();
            return;
        }
        const QString address
            = m_nodes.isEmpty() ? m_client->endpoint().address() : m_nodes.at(node);
        qint64 scanned = scannedOnNode;
        bool foreignHere = false;
        for (const RedisValue &k : v.at(1).elements()) {
            ++scanned;
            // Its own keys: the prefix, or the prefix inside a hash tag
            // (the Redisson layout's "{sim:redisson:0}:value").
            const QByteArray &key = k.bytes();
            if (key.startsWith(m_prefix)
                || (key.startsWith('{') && QByteArrayView(key).sliced(1).startsWith(m_prefix)))
                continue;
            ++m_verdict.foreignSeen;
            foreignHere = true;
            if (m_verdict.examples.size() < 3)
                m_verdict.examples << key;
        }
        if (foreignHere && !m_verdict.where.contains(address))
            m_verdict.where
                += (m_verdict.where.isEmpty() ? QString() : QStringLiteral(", ")) + address;
        const QByteArray next = v.at(0).bytes();
        // A foreign key settles it; a page more only adds examples.
        if (m_verdict.foreignSeen > 0 || scanned >= MaxScannedKeys || next == "0") {
            if (m_verdict.foreignSeen == 0 && next != "0") {
                m_verdict.error = QStringLiteral("more than %1 keys, all %2*: not checked "
                                                 "further")
                                      .arg(MaxScannedKeys)
                                      .arg(QString::fromUtf8(m_prefix));
                finish();
                return;
            }
            if (m_verdict.foreignSeen == 0 && node + 1 < m_nodes.size()) {
                scanNext(node + 1, "0", 0);
                return;
            }
            m_verdict.own = m_verdict.foreignSeen == 0;
            finish();
            return;
        }
        scanNext(node, next, scanned);
    });
}

void SimulatorPreflight::finish()
{
    Q_EMIT finished(m_verdict);
}

} // namespace gatehouse
