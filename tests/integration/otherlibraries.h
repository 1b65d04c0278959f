// SPDX-License-Identifier: MIT
#pragma once
// Other libraries' real state beside the one a test asks about, for the
// tests that check a library is recognised only by what distinguishes it
// (tst_lib_dramatiq, tst_lib_laravel's Horizon, tst_lib_symfony). The
// installable libraries are driven by their own producers
// (tests/libraries/, as tst_lib_all drives them), with a worker where a
// state needs one (BullMQ's completed and failed sets, RQ's registries,
// node-resque's failed list); asynq, Dramatiq and Laravel Horizon are written
// as their own code writes them (libraryplanting.h and libplanting.h cite
// the sources). Each planter takes the names it writes under, so a test can
// make them collide with its library's. Header-only: each test defines
// GATEHOUSE_LIBRARIES_DIR and links libplanting.cpp.

#include "libplanting.h"
#include "librarytest.h"
#include "redisserver.h"

#include <redis/redisclient.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QProcessEnvironment>
#include <QSet>
#include <QStringList>

#include <functional>

#include <memory>
#include <vector>

namespace gatehouse::test {

class OtherLibraries
{
public:
    OtherLibraries(const RedisServer &server, RedisClient &client)
        : m_server(server)
        , m_client(client)
    {}
    ~OtherLibraries()
    {
        for (std::unique_ptr<QProcess> &p : m_holders)
            stopProcess(p);
    }
    OtherLibraries(const OtherLibraries &) = delete;
    OtherLibraries &operator=(const OtherLibraries &) = delete;

    // What was planted: each object's key and pattern (library: its name).
    const QList<LibraryObject> &planted() const { return m_planted; }
    // The commands that failed; empty when everything was written.
    QStringList failures() const { return m_failures; }

    // BullMQ 6 under PREFIX: two jobs completed and one failed by a real
    // worker, one waiting, one delayed.
    void bullmq(const QString &prefix, const QString &queue)
    {
        m_done.insert(QStringLiteral("bullmq"));
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("BULL_PREFIX"), prefix);
        const QStringList app{dir() + QStringLiteral("/bullmq-app.js"), QStringLiteral("bullmq"),
                              m_server.url(), queue};
        const QByteArray base = (prefix + QLatin1Char(':') + queue + QLatin1Char(':')).toUtf8();
        run(QStringLiteral("node"),
            app + QStringList{QStringLiteral("produce"), QStringLiteral("2")}, env);
        run(QStringLiteral("node"),
            app + QStringList{QStringLiteral("produce-failing"), QStringLiteral("1")}, env);
        QProcess worker;
        worker.setProcessEnvironment(env);
        worker.start(QStringLiteral("node"),
                     app + QStringList{QStringLiteral("work"), QStringLiteral("bullmq-ran")});
        if (!pollUntil(
                [&] {
                    return call(m_client, {"ZCARD", base + "completed"}).toInteger() == 2
                           && call(m_client, {"ZCARD", base + "failed"}).toInteger() == 1;
                },
                60000))
            m_failures << QStringLiteral("the BullMQ worker did not finish its jobs");
        worker.terminate();
        if (!worker.waitForFinished(15000)) {
            worker.kill();
            worker.waitForFinished(10000);
        }
        run(QStringLiteral("node"),
            app + QStringList{QStringLiteral("produce-one"), QStringLiteral("late-1")}, env);
        run(QStringLiteral("node"),
            app + QStringList{QStringLiteral("produce-delayed"), QStringLiteral("1")}, env);
        m_planted.append({prefix + QLatin1Char(':') + queue, QStringLiteral("bullmq"), {}});
    }

    // Bull 4: two waiting, one delayed.
    void bull(const QString &queue)
    {
        m_done.insert(QStringLiteral("bull"));
        const QStringList app{dir() + QStringLiteral("/bull-app.js"), QStringLiteral("bull"),
                              m_server.url(), queue};
        run(QStringLiteral("node"),
            app + QStringList{QStringLiteral("produce"), QStringLiteral("2")});
        run(QStringLiteral("node"),
            app + QStringList{QStringLiteral("produce-delayed"), QStringLiteral("1")});
        m_planted.append({QStringLiteral("bull:") + queue, QStringLiteral("bull"), {}});
    }

    // bee-queue 2: two waiting, one delayed (its delayed set scored in epoch ms).
    void beeQueue(const QString &queue)
    {
        m_done.insert(QStringLiteral("bee-queue"));
        const QStringList app{dir() + QStringLiteral("/beequeue-app.js"), m_server.url(), queue};
        run(QStringLiteral("node"),
            app + QStringList{QStringLiteral("produce"), QStringLiteral("2")});
        run(QStringLiteral("node"),
            app + QStringList{QStringLiteral("produce-delayed"), QStringLiteral("1")});
        m_planted.append({QStringLiteral("bq:") + queue, QStringLiteral("bee-queue"), {}});
    }

    // node-resque 9 under NAMESPACE: a job failed by a real worker, two
    // queued, one delayed (resque-scheduler's schedule).
    void resque(const QString &ns)
    {
        m_done.insert(QStringLiteral("resque"));
        const QStringList app{dir() + QStringLiteral("/resque-app.js"), m_server.url(), ns};
        const QString mail = QStringLiteral("mail");
        run(QStringLiteral("node"),
            app + QStringList{QStringLiteral("produce-failing"), mail, QStringLiteral("1")});
        run(QStringLiteral("node"), app + QStringList{QStringLiteral("drain"), mail, ns + "-ran"});
        run(QStringLiteral("node"), app + QStringList{QStringLiteral("produce"), mail, "2"});
        run(QStringLiteral("node"),
            app + QStringList{QStringLiteral("produce-delayed"), mail, "1"});
        m_planted.append({ns + QStringLiteral(":queues"), QStringLiteral("resque"), {}});
    }

    // Sidekiq 6 (Debian's): two jobs pushed by Sidekiq::Client.
    void sidekiq()
    {
        m_done.insert(QStringLiteral("sidekiq"));
        const QStringList app{dir() + QStringLiteral("/sidekiq_app.rb"), m_server.url()};
        for (const char *tag : {"waiting-1", "waiting-2"})
            run(QStringLiteral("/usr/bin/ruby"),
                app + QStringList{QStringLiteral("push"), QStringLiteral("HangJob"), tag});
        m_planted.append({QStringLiteral("queues"), QStringLiteral("sidekiq"), {}});
    }

    // Celery 5 (kombu's Redis transport): two tasks sent to QUEUE.
    void celery(const QString &queue)
    {
        m_done.insert(QStringLiteral("celery"));
        QProcessEnvironment env = python();
        env.insert(QStringLiteral("GATEHOUSE_CELERY_URL"),
                   QStringLiteral("redis://127.0.0.1:%1/0").arg(m_server.port()));
        for (int i = 0; i < 2; ++i)
            run(QStringLiteral("/usr/bin/python3"),
                {dir() + QStringLiteral("/celery_app.py"), QStringLiteral("produce"),
                 QStringLiteral("waiting"), queue},
                env);
        m_planted.append({queue, QStringLiteral("celery"), {}});
    }

    // RQ (Debian's): a job finished and one failed by a burst worker (its
    // registries, sorted sets scored in epoch seconds), one queued; the
    // jobs' ids are the queue's name and a number (RQ's ids are global).
    void rq(const QString &queue)
    {
        m_done.insert(QStringLiteral("rq"));
        const QStringList app{dir() + QStringLiteral("/rq_app.py"), m_server.url(), queue};
        for (const QStringList &c :
             {QStringList{QStringLiteral("produce"), queue + QStringLiteral("-1")},
              QStringList{QStringLiteral("produce-failing"), queue + QStringLiteral("-2")},
              QStringList{QStringLiteral("work")},
              QStringList{QStringLiteral("produce"), queue + QStringLiteral("-3")}})
            run(QStringLiteral("/usr/bin/python3"), app + c, python());
        m_planted.append({QStringLiteral("rq:queue:") + queue, QStringLiteral("rq"), {}});
    }

    // Laravel's Redis queue (Debian php-illuminate-queue): two pending, one
    // delayed ten minutes.
    void laravel(const QString &prefix, const QString &queue)
    {
        m_done.insert(QStringLiteral("laravel"));
        const QStringList app{dir() + QStringLiteral("/laravel_app.php"), m_server.url(), prefix,
                              queue};
        run(QStringLiteral("/usr/bin/php"), app + QStringList{QStringLiteral("produce"), "a"});
        run(QStringLiteral("/usr/bin/php"), app + QStringList{QStringLiteral("produce"), "b"});
        run(QStringLiteral("/usr/bin/php"),
            app + QStringList{QStringLiteral("later"), QStringLiteral("600"), "c"});
        m_planted.append({prefix + QStringLiteral("queues:") + queue,
                          QStringLiteral("laravel"),
                          {},
                          QStringLiteral("laravel-queue")});
    }

    // Symfony Messenger's Redis transport (Debian, on its defaults): a
    // message in the stream "messages" (with the transport's group), one in
    // the delayed set "messages__queue".
    void symfony()
    {
        m_done.insert(QStringLiteral("symfony"));
        const QStringList app{dir() + QStringLiteral("/symfony_app.php"), m_server.url()};
        run(QStringLiteral("/usr/bin/php"), app + QStringList{QStringLiteral("produce"), "s-1"});
        run(QStringLiteral("/usr/bin/php"),
            app + QStringList{QStringLiteral("later"), QStringLiteral("600000"), "s-2"});
        m_planted.append({QStringLiteral("messages__queue"),
                          QStringLiteral("symfony-messenger"),
                          {},
                          QStringLiteral("symfony-delayed")});
        m_planted.append({QStringLiteral("messages"),
                          QStringLiteral("redis-streams"),
                          {},
                          QStringLiteral("stream-group")});
    }

    // A stream read by two consumer groups, as the Redis documentation
    // presents it, and an event stream without a group beside it.
    void streams(const QByteArray &stream)
    {
        m_done.insert(QStringLiteral("streams"));
        for (int n = 1; n <= 3; ++n)
            write({"XADD", stream, "*", "order", QByteArray::number(n)});
        write({"XGROUP", "CREATE", stream, "billing", "0"});
        write({"XGROUP", "CREATE", stream, "audit", "0"});
        write({"XREADGROUP", "GROUP", "billing", "worker-1", "COUNT", "2", "STREAMS", stream, ">"});
        write({"XADD", stream + ":events", "*", "user", "ada", "did", "login"});
        m_planted.append({QString::fromUtf8(stream),
                          QStringLiteral("redis-streams"),
                          {},
                          QStringLiteral("stream-group")});
    }

    // asynq 0.25 (as tst_lib_all writes it): a task active under a live
    // lease, one pending, one retried.
    void asynq(const QByteArray &queue)
    {
        m_done.insert(QStringLiteral("asynq"));
        const qint64 now = serverMs(m_client) / 1000;
        const QByteArray a = "asynq:{" + queue + "}:";
        const auto msg = [&](const QByteArray &id) -> QByteArray {
            return QByteArray("\x0a\x06"
                              "charge"
                              "\x1a")
                   + char(id.size()) + id + "\x22" + char(queue.size()) + queue;
        };
        for (const QList<QByteArray> &c :
             QList<QList<QByteArray>>{{"SADD", "asynq:queues", queue},
                                      {"HSET", a + "t:b1", "msg", msg("b1"), "state", "active"},
                                      {"HSET", a + "t:b2", "msg", msg("b2"), "state", "pending",
                                       "pending_since", QByteArray::number(now * 1000000000LL)},
                                      {"HSET", a + "t:b3", "msg", msg("b3"), "state", "retry"},
                                      {"LPUSH", a + "pending", "b2"},
                                      {"LPUSH", a + "active", "b1"},
                                      {"ZADD", a + "lease", QByteArray::number(now + 600), "b1"},
                                      {"ZADD", a + "retry", QByteArray::number(now + 60), "b3"},
                                      {"SET", a + "processed", "4"}})
            write(c);
        m_planted.append({QString::fromUtf8(a + "pending"), QStringLiteral("asynq"), {}});
    }

    // Dramatiq 1.17 (as tst_lib_all writes it, dispatch.lua's commands): a
    // message fetched by a live worker, one enqueued, one delayed, one dead.
    void dramatiq(const QByteArray &queue)
    {
        m_done.insert(QStringLiteral("dramatiq"));
        const qint64 nowMs = serverMs(m_client);
        const auto m = [&](const QByteArray &id, const QByteArray &q) -> QByteArray {
            return R"({"queue_name":")" + q
                   + R"(","actor_name":"send","args":[],"kwargs":{},"options":)"
                     R"({"redis_message_id":")"
                   + id + R"("},"message_id":"m","message_timestamp":1})";
        };
        const QByteArray d = "dramatiq:" + queue;
        for (const QList<QByteArray> &c : QList<QList<QByteArray>>{
                 {"ZADD", "dramatiq:__heartbeats__", QByteArray::number(nowMs), "w1"},
                 {"HSET", d + ".msgs", "d1", m("d1", queue), "d2", m("d2", queue)},
                 {"RPUSH", d, "d2"},
                 {"SADD", "dramatiq:__acks__.w1." + queue, "d1"},
                 {"HSET", d + ".DQ.msgs", "d3", m("d3", queue + ".DQ")},
                 {"RPUSH", d + ".DQ", "d3"},
                 {"HSET", d + ".XQ.msgs", "d4", m("d4", queue)},
                 {"ZADD", d + ".XQ", QByteArray::number(nowMs), "d4"}})
            write(c);
        m_planted.append({QString::fromUtf8(d), QStringLiteral("dramatiq"), {}});
    }

    // npm redis-semaphore 5: a Semaphore "semaphore:NAME" (limit 2) held by
    // a live holder, which refreshes it until this object ends.
    void semaphore(const QString &name)
    {
        m_done.insert(QStringLiteral("semaphore"));
        auto p = std::make_unique<QProcess>();
        p->setWorkingDirectory(dir());
        p->start(QStringLiteral("node"),
                 {dir() + QStringLiteral("/semaphore-app.js"), m_server.url(),
                  QStringLiteral("hold"), name, QStringLiteral("2"), QStringLiteral("0"),
                  QStringLiteral("60000")});
        if (!p->waitForReadyRead(30000) || p->readLine().trimmed().isEmpty())
            m_failures << QStringLiteral("redis-semaphore did not acquire ") + name + ": "
                              + QString::fromUtf8(p->readAllStandardError().right(500));
        m_holders.push_back(std::move(p));
        m_planted.append(
            {QStringLiteral("semaphore:") + name, QStringLiteral("redis-semaphore"), {}});
    }

    // Python limits 2 (Debian's, tests/libraries/limits_app.py): three hits
    // of "5/minute" on NAME in a fixed window and in a moving window.
    void limits(const QString &name)
    {
        m_done.insert(QStringLiteral("limits"));
        const QStringList app{dir() + QStringLiteral("/limits_app.py"), m_server.url()};
        for (const QString &strategy : {QStringLiteral("fixed"), QStringLiteral("moving")}) {
            const QStringList item{strategy, QStringLiteral("5/minute"), name, strategy};
            run(QStringLiteral("/usr/bin/python3"),
                app
                    + QStringList{QStringLiteral("hit"), item.at(0), item.at(1),
                                  QStringLiteral("3"), item.at(2), item.at(3)},
                python());
            QProcess stats;
            stats.setProcessEnvironment(python());
            stats.start(QStringLiteral("/usr/bin/python3"),
                        app + QStringList{QStringLiteral("stats")} + item);
            if (!stats.waitForFinished(60000) || stats.exitCode() != 0) {
                m_failures << QStringLiteral("limits_app.py stats failed: ")
                                  + QString::fromUtf8(stats.readAllStandardError().right(500));
                continue;
            }
            const QString key = QJsonDocument::fromJson(stats.readAllStandardOutput())
                                    .object()
                                    .value(QStringLiteral("key"))
                                    .toString();
            m_planted.append({key, QStringLiteral("python-limits"), {}});
        }
    }

    // Laravel Horizon 5 under PREFIX (plantHorizon: one job pending, one
    // completed, one failed, a supervisor and its master beating).
    void horizon(const QByteArray &prefix)
    {
        m_done.insert(QStringLiteral("horizon"));
        QList<LibraryObject> made;
        const QString failed = plantHorizon(m_client, prefix, "emails",
                                            "0b6e2c4a-1f7e-4a8b-9c3d-5e6f7a8b9c01", true, made);
        if (!failed.isEmpty())
            m_failures << failed;
        m_planted.append(made);
    }

    // Every library not planted yet (and not named in except: a test's own,
    // planted its own way), under its usual names.
    void rest(const QStringList &except = {})
    {
        const std::pair<const char *, std::function<void()>> all[] = {
            {"bullmq",
             [this] {
                 bullmq(QStringLiteral("bull"), QStringLiteral("mail"));
             }},
            {"bull",
             [this] {
                 bull(QStringLiteral("images"));
             }},
            {"bee-queue",
             [this] {
                 beeQueue(QStringLiteral("mail"));
             }},
            {"resque",
             [this] {
                 resque(QStringLiteral("resque"));
             }},
            {"sidekiq",
             [this] {
                 sidekiq();
             }},
            {"celery",
             [this] {
                 celery(QStringLiteral("celery"));
             }},
            {"rq",
             [this] {
                 rq(QStringLiteral("reports"));
             }},
            {"laravel",
             [this] {
                 laravel(QStringLiteral("laravel_database_"), QStringLiteral("emails"));
             }},
            {"symfony",
             [this] {
                 symfony();
             }},
            {"streams",
             [this] {
                 streams("orders");
             }},
            {"asynq",
             [this] {
                 asynq("billing");
             }},
            {"dramatiq",
             [this] {
                 dramatiq("mail");
             }},
            {"horizon",
             [this] {
                 horizon("laravel_horizon:");
             }},
            {"semaphore",
             [this] {
                 semaphore(QStringLiteral("exports"));
             }},
            {"limits",
             [this] {
                 limits(QStringLiteral("api"));
             }},
        };
        for (const auto &[name, plant] : all) {
            const QString n = QString::fromLatin1(name);
            if (!m_done.contains(n) && !except.contains(n))
                plant();
        }
    }

private:
    QString dir() const { return QStringLiteral(GATEHOUSE_LIBRARIES_DIR); }
    static QProcessEnvironment python()
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("PYTHONPATH"), QStringLiteral(GATEHOUSE_LIBRARIES_DIR));
        env.insert(QStringLiteral("PYTHONDONTWRITEBYTECODE"), QStringLiteral("1"));
        return env;
    }
    void run(const QString &program, const QStringList &args,
             const QProcessEnvironment &env = QProcessEnvironment::systemEnvironment())
    {
        QProcess p;
        p.setProcessEnvironment(env);
        p.setWorkingDirectory(dir());
        p.start(program, args);
        if (!p.waitForFinished(60000) || p.exitStatus() != QProcess::NormalExit
            || p.exitCode() != 0)
            m_failures << args.join(QLatin1Char(' ')) + QStringLiteral(": ")
                              + QString::fromUtf8(p.readAllStandardError().right(500));
    }
    void write(const QList<QByteArray> &command)
    {
        if (call(m_client, command).isError())
            m_failures << QString::fromUtf8(command.join(' '));
    }

    const RedisServer &m_server;
    RedisClient &m_client;
    QList<LibraryObject> m_planted;
    QSet<QString> m_done; // the planters that ran
    QStringList m_failures;
    std::vector<std::unique_ptr<QProcess>> m_holders; // redis-semaphore's holders
};

// The keys a snapshot shows under PATTERN, sorted.
inline QStringList keysShownAs(const QJsonObject &snapshot, const QString &pattern)
{
    QStringList out;
    for (auto it = snapshot.begin(); it != snapshot.end(); ++it) {
        if (!it->isArray() || it.key() == QLatin1String("candidates")
            || it.key() == QLatin1String("other"))
            continue;
        for (const QJsonValue &o : it->toArray()) {
            if (o[QStringLiteral("pattern")].toString() == pattern)
                out << o[QStringLiteral("key")].toString();
        }
    }
    out.sort();
    return out;
}

// The planted objects a snapshot does not show as their own library's,
// known layout ("pattern key: what it shows instead"): empty when each
// library's state is read as that library's.
inline QStringList notShownAsTheirs(const QJsonObject &snapshot,
                                    const QList<LibraryObject> &planted)
{
    QStringList out;
    for (const LibraryObject &p : planted) {
        const QString pattern = p.pattern.isEmpty() ? p.library : p.pattern;
        bool theirs = false;
        QStringList instead;
        for (auto it = snapshot.begin(); it != snapshot.end(); ++it) {
            if (!it->isArray() || it.key() == QLatin1String("candidates")
                || it.key() == QLatin1String("other"))
                continue;
            for (const QJsonValue &o : it->toArray()) {
                if (o[QStringLiteral("key")].toString() != p.key)
                    continue;
                const bool known
                    = o[QStringLiteral("library")][QStringLiteral("layoutKnown")].toBool();
                if (o[QStringLiteral("pattern")].toString() == pattern && known)
                    theirs = true;
                else
                    instead << QStringLiteral("shown as %1%2")
                                   .arg(o[QStringLiteral("pattern")].toString(),
                                        known ? QString() : QStringLiteral(", unknown layout"));
            }
        }
        if (!theirs && instead.isEmpty())
            instead << QStringLiteral("not shown");
        if (!instead.isEmpty())
            out << pattern + QLatin1Char(' ') + p.key + QStringLiteral(": ")
                       + instead.join(QStringLiteral("; "));
    }
    return out;
}

} // namespace gatehouse::test
