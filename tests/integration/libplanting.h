// SPDX-License-Identifier: MIT
#pragma once
// Library state that the tests planting many libraries on one server write
// themselves, because the library cannot run here: Redisson's state built
// by Redisson's own Lua (tests/libraries/redisson/) run as a Redisson client
// runs it, and Laravel Horizon 5's bookkeeping written as its repositories
// write it. Each planter returns the objects it made with the library's own
// figures, or says what failed.

#include <redis/redisvalue.h>

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QString>

namespace gatehouse {
class RedisClient;
}

namespace gatehouse::test {

// A library object planted, and what the library itself counts.
struct LibraryObject
{
    LibraryObject(QString key, QString library, QJsonObject counts, QString pattern = {})
        : key(std::move(key))
        , library(std::move(library))
        , counts(std::move(counts))
        , pattern(std::move(pattern))
    {}
    QString key;        // the object's key in the snapshot
    QString library;    // the snapshot's library name
    QJsonObject counts; // by the library's own API, in the snapshot's state names
    QString pattern;    // the snapshot's pattern, when it is not the library's name
};

// Runs Redisson's own script tests/libraries/redisson/<name>.lua (EVAL with
// the KEYS and ARGV a Redisson client passes); an error reply when the
// script is missing.
RedisValue redissonScript(RedisClient &client, const QString &name, const QList<QByteArray> &keys,
                          const QList<QByteArray> &args);

// The server's clock, in ms.
qint64 serverMs(RedisClient &client);

// A stream's figures as Redis gives them (XLEN, XINFO GROUPS), in the
// stream-group pattern's state names: entries, groups, consumers, pending.
QJsonObject streamCounts(RedisClient &client, const QByteArray &stream);

// Redisson 3.52.0's locks, semaphores and delayed queue, by its own Lua, all
// standing for ten minutes: an RLock "invoices" held twice by one thread, an
// RFairLock "fair:export" with a waiter queued, an RReadWriteLock
// "rw:catalog" read by two threads, an RPermitExpirableSemaphore
// "perm:render" with a leased and an unleased permit, a plain RSemaphore
// "semaphore:pdf", and an RDelayedQueue "notifications" whose due item
// Redisson's transfer task moved, two more due in ten minutes. An empty
// string, or what failed.
QString plantRedisson(RedisClient &client, QList<LibraryObject> &planted);

// Laravel Horizon 5 (not in Debian), as laravel/horizon v5.29.1 writes it
// under PREFIX for the Laravel queue QUEUE: the job PENDING_JOB (an id of
// that queue's) pending, one job completed and one failed, and with
// SUPERVISOR one supervisor and its master beating now (their hashes expire
// in 30 and 15 s, as Horizon's do). An empty string, or what failed.
QString plantHorizon(RedisClient &client, const QByteArray &prefix, const QByteArray &queue,
                     const QByteArray &pendingJob, bool supervisor, QList<LibraryObject> &planted);

} // namespace gatehouse::test
