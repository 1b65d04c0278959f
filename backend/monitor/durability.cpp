// SPDX-License-Identifier: MIT
#include "durability.h"

#include <patterns/presentation.h>
#include <redis/serverinfo.h>

#include <QJsonArray>
#include <QLocale>
#include <QStringList>

#include <cmath>

namespace gatehouse {

namespace {

QJsonValue orNull(qint64 v)
{
    return v < 0 ? QJsonValue() : QJsonValue(double(v));
}

QString bytesText(qint64 bytes)
{
    return formatBytes(bytes);
}

// "ip=127.0.0.1,port=7004,state=online,offset=1234,lag=0"
QHash<QByteArray, QByteArray> commaFields(const QByteArray &text)
{
    QHash<QByteArray, QByteArray> f;
    for (const QByteArray &part : text.split(',')) {
        const qsizetype eq = part.indexOf('=');
        if (eq > 0)
            f.insert(part.left(eq), part.mid(eq + 1));
    }
    return f;
}

} // namespace

bool ReplicaLink::inSync() const
{
    return online() && lastAckS >= 0 && lastAckS <= Durability::InSyncAckS;
}

int Durability::replicasInSync() const
{
    int n = 0;
    for (const ReplicaLink &r : replicas)
        n += r.inSync() ? 1 : 0;
    return n;
}

int Durability::bestReplica() const
{
    int best = -1;
    for (int i = 0; i < replicas.size(); ++i) {
        const ReplicaLink &r = replicas.at(i);
        if (!r.online())
            continue;
        if (best < 0 || r.ackOffset > replicas.at(best).ackOffset)
            best = i;
    }
    return best;
}

void Durability::applyInfo(const QByteArray &info, const QHash<QString, QString> &nat)
{
    const auto f = parseInfo(info);
    bool ok = false;
    if (f.contains("aof_enabled")) {
        known = true;
        aofEnabled = f.value("aof_enabled") == "1" ? 1 : 0;
        aofLastWriteOk = f.value("aof_last_write_status", "ok") == "ok";
        aofRewriting = f.value("aof_rewrite_in_progress") == "1";
    }
    if (const qint64 v = f.value("rdb_last_save_time").toLongLong(&ok); ok)
        rdbLastSaveS = v;
    if (f.contains("rdb_last_bgsave_status"))
        rdbLastBgsaveStatus = QString::fromUtf8(f.value("rdb_last_bgsave_status"));
    if (const qint64 v = f.value("rdb_changes_since_last_save").toLongLong(&ok); ok)
        rdbChangesSinceSave = v;
    if (f.contains("connected_slaves")) {
        replicas.clear();
        if (const qint64 v = f.value("master_repl_offset").toLongLong(&ok); ok)
            masterOffset = v;
        const int count = f.value("connected_slaves").toInt();
        for (int i = 0; i < count; ++i) {
            const auto r = commaFields(f.value("slave" + QByteArray::number(i)));
            if (r.isEmpty())
                continue;
            ReplicaLink link;
            const QString host = QString::fromUtf8(r.value("ip"));
            const QString announced
                = host.contains(QLatin1Char(':'))
                      ? QStringLiteral("[%1]:%2").arg(host, QString::fromUtf8(r.value("port")))
                      : QStringLiteral("%1:%2").arg(host, QString::fromUtf8(r.value("port")));
            link.address = nat.value(announced, announced);
            link.state = QString::fromUtf8(r.value("state"));
            link.ackOffset = r.value("offset").toLongLong(&ok);
            if (!ok)
                link.ackOffset = -1;
            link.lastAckS = r.value("lag").toLongLong(&ok);
            if (!ok)
                link.lastAckS = -1;
            if (link.ackOffset >= 0 && masterOffset >= 0)
                link.behindBytes = std::max<qint64>(0, masterOffset - link.ackOffset);
            replicas.append(link);
        }
        // Present only while min-replicas-to-write is on.
        if (const int v = f.value("min_slaves_good_slaves").toInt(&ok); ok)
            goodReplicas = v;
        else
            goodReplicas = -1;
        updateBehind();
    }
}

void Durability::updateBehind()
{
    for (ReplicaLink &r : replicas) {
        r.behindMs = -1;
        if (r.behindBytes == 0 && r.lastAckS >= 0 && r.lastAckS <= InSyncAckS)
            r.behindMs = 0;
        else if (r.behindBytes > 0 && writeBytesPerS > 0)
            r.behindMs = qint64(std::llround(double(r.behindBytes) * 1000.0 / writeBytesPerS));
        // Acknowledgements come every second: a replica silent for longer is
        // at least that far behind.
        if (r.lastAckS > InSyncAckS)
            r.behindMs = std::max(r.behindMs, r.lastAckS * 1000);
    }
}

void Durability::applyConfig(const QHash<QByteArray, QByteArray> &config)
{
    if (config.isEmpty())
        return;
    configKnown = true;
    appendfsync = QString::fromUtf8(config.value("appendfsync"));
    saveRules = QString::fromUtf8(config.value("save")).trimmed();
    bool ok = false;
    // Redis 7 answers both the new and the old (min-slaves-*) names.
    QByteArray toWrite = config.value("min-replicas-to-write", config.value("min-slaves-to-write"));
    QByteArray maxLag = config.value("min-replicas-max-lag", config.value("min-slaves-max-lag"));
    if (const int v = toWrite.toInt(&ok); ok)
        minReplicasToWrite = v;
    if (const int v = maxLag.toInt(&ok); ok)
        minReplicasMaxLagS = v;
}

void Durability::estimateLag(const Durability &previous, qint64 elapsedMs)
{
    if (elapsedMs > 0 && previous.masterOffset >= 0 && masterOffset >= previous.masterOffset) {
        const double rate = double(masterOffset - previous.masterOffset) * 1000.0 / elapsedMs;
        // Smoothed a little: writes come in bursts, a failover's risk does not
        // swing with each one.
        writeBytesPerS
            = previous.writeBytesPerS < 0 ? rate : 0.5 * rate + 0.5 * previous.writeBytesPerS;
    } else {
        writeBytesPerS = previous.writeBytesPerS;
    }
    updateBehind();
}

QString Durability::persistenceSummary(qint64 nowS) const
{
    if (!known)
        return QString();
    QString text;
    if (aofEnabled == 1) {
        if (appendfsync == QLatin1String("always"))
            text = QStringLiteral("AOF always: a crash loses no acknowledged write");
        else if (appendfsync == QLatin1String("everysec"))
            text = QStringLiteral("AOF everysec: a crash loses up to 1 s");
        else if (appendfsync == QLatin1String("no"))
            text = QStringLiteral("AOF with appendfsync no: a crash loses what the OS had not "
                                  "written out (typically up to 30 s)");
        else
            text = QStringLiteral("AOF on (appendfsync unknown: CONFIG GET not permitted)");
    } else if (configKnown && saveRules.isEmpty()) {
        text = QStringLiteral("no persistence (no AOF, no RDB save rules): a restart loses "
                              "everything");
    } else {
        QString since;
        if (rdbLastSaveS > 0 && nowS > 0)
            since = QStringLiteral(" %1 ago").arg(
                formatMs(std::max<qint64>(0, nowS - rdbLastSaveS) * 1000));
        text = rdbChangesSinceSave >= 0
                   ? QStringLiteral("no AOF: a crash loses the %1 change(s) since the last RDB "
                                    "save%2")
                         .arg(rdbChangesSinceSave)
                         .arg(since)
                   : QStringLiteral("no AOF: a crash loses every write since the last RDB save%1")
                         .arg(since);
    }
    if (aofEnabled == 1 && !aofLastWriteOk)
        text += QStringLiteral(" (the last AOF write failed)");
    if (rdbLastBgsaveStatus == QLatin1String("err"))
        text += QStringLiteral(" (the last RDB save failed)");
    return text;
}

QString Durability::sentence(qint64 nowS) const
{
    if (!known)
        return error.isEmpty() ? QString() : QStringLiteral("unknown: %1").arg(error);
    QString failover;
    const int best = bestReplica();
    if (replicas.isEmpty()) {
        failover = QStringLiteral("no replica: a failover is not possible");
    } else if (best < 0) {
        QStringList states;
        for (const ReplicaLink &r : replicas)
            states << QStringLiteral("%1 is %2").arg(r.address, r.state);
        failover = QStringLiteral("no replica is streaming (%1): a failover now loses every "
                                  "write since a replica last synced")
                       .arg(states.join(QLatin1String(", ")));
    } else {
        const ReplicaLink &r = replicas.at(best);
        if (r.behindMs == 0)
            failover = QStringLiteral("replica %1 is in sync: a failover now loses at most the "
                                      "writes in flight")
                           .arg(r.address);
        else if (r.behindMs > 0)
            failover = QStringLiteral("replica %1 is %2 behind: a failover now loses up to %2 "
                                      "of writes")
                           .arg(r.address, formatMs(r.behindMs));
        else if (r.behindBytes > 0)
            failover = QStringLiteral("replica %1 is %2 of replication stream behind: a failover "
                                      "now loses those writes")
                           .arg(r.address, bytesText(r.behindBytes));
        else
            failover = QStringLiteral("replica %1 is streaming (offset unknown): a failover now "
                                      "may lose the writes it has not acknowledged")
                           .arg(r.address);
    }
    if (minReplicasToWrite > 0 && goodReplicas >= 0 && goodReplicas < minReplicasToWrite)
        failover += QStringLiteral(" (min-replicas-to-write %1 with %2 good replica(s): the "
                                   "master refuses writes)")
                        .arg(minReplicasToWrite)
                        .arg(goodReplicas);
    const QString persistence = persistenceSummary(nowS);
    return persistence.isEmpty() ? failover : failover + QStringLiteral("; ") + persistence;
}

QJsonObject Durability::toJson(qint64 nowS) const
{
    QJsonArray links;
    for (const ReplicaLink &r : replicas)
        links.append(QJsonObject{{QStringLiteral("address"), r.address},
                                 {QStringLiteral("state"), r.state},
                                 {QStringLiteral("ackOffset"), orNull(r.ackOffset)},
                                 {QStringLiteral("lastAckS"), orNull(r.lastAckS)},
                                 {QStringLiteral("behindBytes"), orNull(r.behindBytes)},
                                 {QStringLiteral("behindMs"), orNull(r.behindMs)},
                                 {QStringLiteral("inSync"), r.inSync()}});
    const auto optional = [](const QString &s) {
        return s.isEmpty() ? QJsonValue() : QJsonValue(s);
    };
    return QJsonObject{
        {QStringLiteral("known"), known},
        {QStringLiteral("error"), optional(error)},
        {QStringLiteral("appendonly"), aofEnabled < 0 ? QJsonValue() : QJsonValue(aofEnabled == 1)},
        {QStringLiteral("appendfsync"), optional(appendfsync)},
        {QStringLiteral("aofLastWriteOk"), aofLastWriteOk},
        {QStringLiteral("rdbSaveRules"), configKnown ? QJsonValue(saveRules) : QJsonValue()},
        {QStringLiteral("rdbLastSaveS"), orNull(rdbLastSaveS)},
        {QStringLiteral("rdbLastSaveStatus"), optional(rdbLastBgsaveStatus)},
        {QStringLiteral("rdbChangesSinceSave"), orNull(rdbChangesSinceSave)},
        {QStringLiteral("replicationOffset"), orNull(masterOffset)},
        {QStringLiteral("writeBytesPerS"),
         writeBytesPerS < 0 ? QJsonValue() : QJsonValue(writeBytesPerS)},
        {QStringLiteral("replicas"), links},
        {QStringLiteral("replicasInSync"), replicasInSync()},
        {QStringLiteral("minReplicasToWrite"),
         minReplicasToWrite < 0 ? QJsonValue() : QJsonValue(minReplicasToWrite)},
        {QStringLiteral("minReplicasMaxLagS"),
         minReplicasMaxLagS < 0 ? QJsonValue() : QJsonValue(minReplicasMaxLagS)},
        {QStringLiteral("goodReplicas"),
         goodReplicas < 0 ? QJsonValue() : QJsonValue(goodReplicas)},
        {QStringLiteral("sentence"), sentence(nowS)}};
}

} // namespace gatehouse
