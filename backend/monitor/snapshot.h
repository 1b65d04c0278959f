// SPDX-License-Identifier: MIT
#pragma once

#include <patterns/patternobject.h>
#include <patterns/reading.h>

#include <QJsonObject>
#include <QList>
#include <QMetaType>
#include <QStringList>

namespace gatehouse {

struct ServerStatus
{
    QString address;
    QString version;          // empty when INFO is not permitted
    QString role;             // "master", "slave"; empty when unknown
    qint64 timeMs = 0;        // the server's clock at the last reading
    qint64 clockOffsetMs = 0; // server clock - local clock
    bool eventsLive = false;  // keyspace events subscribed; otherwise polling
    qint64 intervalMs = 1000;
    QStringList notes; // what is unavailable, and why
};

struct ObjectState
{
    PatternObject object;
    Reading reading;
    qint64 firstSeenMs = 0;  // server time Gatehouse first saw the instance
    qint64 heldSinceMs = -1; // locks: first seen with the current token
    bool gone = false;       // its keys disappeared (expired, deleted)
};

// One consistent reading of everything found: a value, shared implicitly;
// the monitor makes a new one per tick and never changes one it gave out.
struct Snapshot
{
    quint64 sequence = 0;
    ServerStatus server;
    QString profile; // the profile's name, or "autodetected"
    bool discovering = false;
    qint64 scanned = 0; // keys scanned so far / DBSIZE
    qint64 total = 0;
    QList<ObjectState> objects;

    // The snapshot --json contract (README, "snapshot --json").
    QJsonObject toJson() const;
};

// A key for JSON: a string when it is printable UTF-8, else {"base64": ...}.
QJsonValue keyToJson(const QByteArray &key);

} // namespace gatehouse

Q_DECLARE_METATYPE(gatehouse::Snapshot)
