// SPDX-License-Identifier: MIT
#pragma once
// What the library integration tests (BullMQ, Bull, Sidekiq, Celery, RQ)
// share: gatehouse-cli against the test's server with an audit log of its
// own, the snapshot JSON, and the objects a snapshot shows besides the one
// queue under test. Header-only: each test defines GATEHOUSE_CLI.

#include "redisserver.h"

#include <QDeadlineTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTest>

#include <functional>

#include <memory>

namespace gatehouse::test {

// gatehouse-cli --url <server> ARGS, its audit log beside the server's data.
inline CliRun libraryCli(const QString &program, const RedisServer &server, QStringList args,
                         QProcessEnvironment env = {})
{
    args.prepend(server.url());
    args.prepend(QStringLiteral("--url"));
    env.insert(QStringLiteral("GATEHOUSE_AUDIT_LOG"), server.dir() + "/audit.jsonl");
    return runCli(program, args, env, 60000);
}

// snapshot --json of a libraryCli run; an empty object (and a warning with
// the CLI's sentence) when it failed.
inline QJsonObject snapshotOf(const CliRun &run)
{
    if (run.exitCode != 0)
        qWarning("snapshot failed: %s", qPrintable(run.err));
    return QJsonDocument::fromJson(run.out.toUtf8()).object();
}

// Every object of the snapshot other than the queue named queue ("section
// key"): a library's bookkeeping keys are its queue's, so none may be
// shown. Candidates and other keys are what autodetection does not show.
inline QStringList objectsBesides(const QJsonObject &snapshot, const QString &queue)
{
    QStringList out;
    for (auto it = snapshot.begin(); it != snapshot.end(); ++it) {
        if (!it->isArray() || it.key() == QLatin1String("candidates")
            || it.key() == QLatin1String("other"))
            continue;
        for (const QJsonValue &o : it->toArray()) {
            const QString key = o[QStringLiteral("key")].toString();
            if (!(it.key() == QLatin1String("queues") && key == queue))
                out << it.key() + QLatin1Char(' ') + key;
        }
    }
    return out;
}

// Waits for done() to hold, checking every 100 ms (a library's workers
// poll Redis themselves: no need to spin faster beside them).
// Every key of a test's server (a planting's few dozen) with what it holds,
// as DUMP serialises it; found by SCAN, as the console would. Equal before
// and after: nothing was written.
inline QMap<QByteArray, QByteArray> keyspace(RedisClient &redis)
{
    QMap<QByteArray, QByteArray> out;
    QByteArray cursor = "0";
    do {
        const RedisValue page = call(redis, {"SCAN", cursor, "COUNT", "1000"});
        cursor = page.at(0).bytes();
        for (const RedisValue &key : page.at(1).elements())
            out.insert(key.bytes(), call(redis, {"DUMP", key.bytes()}).bytes());
    } while (cursor != "0" && !cursor.isEmpty());
    return out;
}

inline bool pollUntil(const std::function<bool()> &done, int ms)
{
    QDeadlineTimer deadline(ms);
    while (!done()) {
        if (deadline.hasExpired())
            return false;
        QTest::qWait(100);
    }
    return true;
}

// Kills a library's worker (or app) and waits for it; nothing when it is gone.
inline void stopProcess(std::unique_ptr<QProcess> &p)
{
    if (p && p->state() != QProcess::NotRunning) {
        p->kill();
        p->waitForFinished(10000);
    }
    p.reset();
}

} // namespace gatehouse::test
