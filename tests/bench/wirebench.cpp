// SPDX-License-Identifier: MIT
#include "wirebench.h"

#include <QThread>

#include "redisserver.h"

#include <redis/redisclient.h>

#include <QElapsedTimer>
#include <QEventLoop>
#include <QProcess>
#include <QTest>

namespace gatehouse::bench {

namespace {

constexpr int s_batch = 64; // commands per pipeline() call, as redis-benchmark -P 64

// Requests per second through RedisClient::pipeline, sustained: a new batch
// goes out as each one is answered, with `inFlight` batches outstanding.
// inFlight 1 is redis-benchmark's discipline (send 64, wait for 64).
double gatehouseRate(RedisClient &client, const QList<QByteArray> &command, int requests,
                     int inFlight)
{
    const int batches = (requests + s_batch - 1) / s_batch;
    const QList<RedisClient::Command> batch(s_batch, command);
    QObject context;
    int sent = 0;
    int done = 0;
    int errors = 0;
    QEventLoop loop;
    std::function<void()> sendOne = [&] {
        ++sent;
        client.pipeline(batch, &context, [&](const QList<RedisValue> &replies) {
            for (const RedisValue &r : replies)
                errors += r.isError() ? 1 : 0;
            ++done;
            if (sent < batches)
                sendOne();
            else if (done == batches)
                loop.quit();
        });
    };
    QElapsedTimer clock;
    clock.start();
    for (int i = 0; i < inFlight && sent < batches; ++i)
        sendOne();
    loop.exec();
    const double seconds = clock.nsecsElapsed() / 1e9;
    if (errors > 0)
        qWarning("%d error replies for %s", errors, command.first().constData());
    return batches * s_batch / seconds;
}

} // namespace

double peerRate(const RedisEndpoint &ep, const QList<QByteArray> &command, int requests)
{
    QProcess p;
    QStringList args{QStringLiteral("-h"),   ep.host,
                     QStringLiteral("-p"),   QString::number(ep.port),
                     QStringLiteral("-P"),   QString::number(s_batch),
                     QStringLiteral("-c"),   QStringLiteral("1"),
                     QStringLiteral("-n"),   QString::number(requests),
                     QStringLiteral("--csv")};
    for (const QByteArray &a : command)
        args << QString::fromUtf8(a);
    p.start(QStringLiteral(GATEHOUSE_REDIS_BENCHMARK), args);
    if (!p.waitForFinished(600000) || p.exitCode() != 0) {
        qWarning("redis-benchmark failed: %s", p.readAllStandardError().constData());
        return 0;
    }
    // "test","rps",... then "GET bench:str","312500.00",...
    const QList<QByteArray> lines = p.readAllStandardOutput().trimmed().split('\n');
    const QList<QByteArray> fields = lines.last().split(',');
    if (fields.size() < 2)
        return 0;
    QByteArray rps = fields.at(1);
    rps.replace('"', "");
    return rps.toDouble();
}

QList<Figure> runWireBench(const RedisEndpoint &endpoint, int requests, int rounds)
{
    const auto connection = test::connectedClient(endpoint);
    if (!connection)
        qFatal("cannot connect to the benchmark server %s", qPrintable(endpoint.address()));
    RedisClient &client = *connection;
    test::call(client, {"SET", "bench:str", QByteArray(32, 'v')});
    test::call(client, {"ZADD", "bench:zset", "1", "a", "2", "b", "3", "c"});
    test::call(client, {"SET", "bench:ttl", "t", "PX", "100000000"});
    test::call(client, {"RPUSH", "bench:list", "a", "b", "c"});

    const QList<QList<QByteArray>> commands{{"GET", "bench:str"},
                                            {"ZCARD", "bench:zset"},
                                            {"PTTL", "bench:ttl"},
                                            {"LLEN", "bench:list"}};
    // The CLI's and the monitor's mode: the connection on the caller's
    // thread, no hop per round trip.
    const auto sameThread = test::connectedClient(endpoint, QThread::currentThread());
    if (!sameThread)
        qFatal("cannot connect to the benchmark server %s", qPrintable(endpoint.address()));
    QList<Figure> figures;
    for (const auto &command : commands) {
        double lockstep = 0;
        double hopping = 0;
        double deep = 0;
        double peer = 0;
        // Alternate the sides; keep each side's best round.
        for (int round = 0; round < rounds; ++round) {
            lockstep = qMax(lockstep, gatehouseRate(*sameThread, command, requests, 1));
            peer = qMax(peer, peerRate(endpoint, command, requests));
            hopping = qMax(hopping, gatehouseRate(client, command, requests, 1));
            deep = qMax(deep, gatehouseRate(client, command, requests, 16));
        }
        const QString name = QString::fromUtf8(command.first());
        Figure f;
        f.name = QStringLiteral("wire %1, 64 per round trip").arg(name);
        f.value = lockstep;
        f.unit = QStringLiteral("requests per second");
        f.peer = QStringLiteral("redis-benchmark -P 64 -c 1");
        f.peerValue = peer;
        f.target = 0.7;
        f.note = QStringLiteral("Same-thread client (as gatehouse-cli and the monitor use it).");
        figures << f;
        f.name = QStringLiteral("wire %1, 64 per round trip, worker").arg(name);
        f.value = hopping;
        f.target = 0;
        f.note = QStringLiteral("Reported: a client with a worker thread (the GUI's action "
                                "client), two thread hops per round trip.");
        figures << f;
        f.note.clear();
        f.target = 0.7;
        // How the monitor actually pipelines: many batches outstanding.
        f.name = QStringLiteral("wire %1, 16x64 in flight").arg(name);
        f.value = deep;
        figures << f;
    }
    return figures;
}

} // namespace gatehouse::bench
