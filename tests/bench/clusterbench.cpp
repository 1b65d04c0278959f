// SPDX-License-Identifier: MIT
#include "clusterbench.h"

#include "monitorbench.h"
#include "rediscluster.h"

#include <monitor/discovery.h>
#include <monitor/monitor.h>
#include <redis/redisclient.h>

#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTextStream>

#include <hiredis/hiredis.h>

#include <thread>

namespace gatehouse::bench {

namespace {

void pipelineAll(RedisClient &client, const QList<QList<QByteArray>> &commands)
{
    for (qsizetype at = 0; at < commands.size(); at += 5000) {
        QObject ctx;
        bool done = false;
        // The router sends each command to its slot's master.
        client.pipeline(commands.mid(at, 5000), &ctx,
                        [&](const QList<RedisValue> &) { done = true; });
        (void)test::waitUntil([&] { return done; }, 600000);
    }
}

// The reference: one plain hiredis SCAN loop (COUNT 1000) per master, all
// at once on threads of their own; the wall time until the last is done.
double parallelScanSeconds(const QList<RedisEndpoint> &masters, qint64 *keys)
{
    std::vector<qint64> counts(size_t(masters.size()), 0);
    std::vector<std::thread> threads;
    QElapsedTimer clock;
    clock.start();
    for (qsizetype m = 0; m < masters.size(); ++m) {
        const QByteArray host = masters.at(m).host.toUtf8();
        const int port = masters.at(m).port;
        qint64 *count = &counts[size_t(m)];
        threads.emplace_back([host, port, count] {
            redisContext *c = redisConnect(host.constData(), port);
            if (!c || c->err)
                return;
            std::string cursor = "0";
            do {
                auto *reply = static_cast<redisReply *>(
                    redisCommand(c, "SCAN %s COUNT 1000", cursor.c_str()));
                if (!reply || reply->type != REDIS_REPLY_ARRAY || reply->elements != 2) {
                    if (reply)
                        freeReplyObject(reply);
                    break;
                }
                cursor.assign(reply->element[0]->str, reply->element[0]->len);
                *count += qint64(reply->element[1]->elements);
                freeReplyObject(reply);
            } while (cursor != "0");
            redisFree(c);
        });
    }
    for (std::thread &t : threads)
        t.join();
    *keys = 0;
    for (qint64 c : counts)
        *keys += c;
    return clock.nsecsElapsed() / 1e9;
}

} // namespace

QList<Figure> runClusterBench(const ClusterBenchSizes &sizes, int rounds)
{
    test::RedisCluster cluster;
    if (!cluster.start()) {
        QTextStream(stderr) << "gatehouse-bench: cluster: " << cluster.errorString() << Qt::endl;
        return {};
    }
    RedisEndpoint seed = cluster.endpoint(0);
    seed.discoverTopology = true;
    const auto connection = test::connectedClient(seed);
    if (!connection || !connection->topology().isCluster())
        return {};
    RedisClient &client = *connection;
    QList<RedisEndpoint> masters;
    for (int m : cluster.masters())
        masters << cluster.endpoint(m);

    // Figure 10a: discovery of keys spread over every master.
    QList<QList<QByteArray>> cmds;
    const int profiled = std::max(1, sizes.keys / 100);
    for (int i = 0; i < sizes.keys; ++i)
        cmds.append(
            {"SET", (i < profiled ? "bench:lock:" : "app:cache:") + QByteArray::number(i), "v"});
    pipelineAll(client, cmds);
    cmds.clear();

    double best = 1e9, bestRef = 1e9;
    qint64 found = 0, refKeys = 0;
    for (int r = 0; r < std::max(1, rounds); ++r) {
        bestRef = std::min(bestRef, parallelScanSeconds(masters, &refKeys));
        Discovery discovery(&client, benchProfile());
        discovery.setTopology(client.topology());
        QSignalSpy finished(&discovery, &Discovery::finished);
        QElapsedTimer clock;
        clock.start();
        discovery.start();
        finished.wait(600000);
        best = std::min(best, clock.nsecsElapsed() / 1e9);
        found = discovery.objects().size();
    }
    Figure discovery;
    discovery.name = QStringLiteral("10. Cluster discovery wall time");
    discovery.unit = QStringLiteral("s");
    discovery.value = best;
    discovery.peer = QStringLiteral("hiredis SCAN loop per master, in parallel");
    discovery.peerValue = bestRef;
    discovery.atMost = true;
    discovery.target = 1.2 * bestRef;
    discovery.note = QStringLiteral("%1 keys over %2 masters of a six-node Cluster, %3 profiled; "
                                    "Gatehouse (from one node's address) found %4, the "
                                    "reference counted %5 keys; ratio %6 (target <= 1.2).")
                         .arg(sizes.keys)
                         .arg(masters.size())
                         .arg(profiled)
                         .arg(found)
                         .arg(refKeys)
                         .arg(best / bestRef, 0, 'f', 2);

    // Figure 10b: a full refresh of tracked objects on the Cluster.
    for (const RedisEndpoint &m : masters) { // a keyless command: each master itself
        if (auto node = test::connectedClient(m))
            test::call(*node, {"FLUSHALL"});
    }
    MonitorBenchSizes tracked;
    tracked.limiters = sizes.limiters;
    tracked.locks = sizes.locks;
    tracked.queues = sizes.queues;
    populateTracked(client, tracked);
    Monitor::Options options;
    options.profile = benchProfile();
    options.intervalMs = 1000;
    options.rescanMs = 0;
    options.historyCapacity = 0;
    options.budgetPercent = 0; // every object every tick: the round trips of a full pass
    Monitor monitor(&client, options);
    QSignalSpy discovered(&monitor, &Monitor::discoveryFinished);
    QSignalSpy ticks(&monitor, &Monitor::tickFinished);
    monitor.start();
    discovered.wait(600000);
    int roundTrips = 1 << 30;
    qint64 wallMs = 0;
    for (int r = 0; r < std::max(rounds, 2); ++r) {
        ticks.clear();
        monitor.refreshNow();
        ticks.wait(600000);
        if (monitor.lastTickRoundTrips() > 0 && monitor.lastTickRoundTrips() < roundTrips) {
            roundTrips = monitor.lastTickRoundTrips();
            wallMs = monitor.lastTickWallMs();
        }
    }
    const int objects = int(monitor.snapshot().objects.size());
    monitor.stop();
    Figure refresh = budgetFigure(QStringLiteral("10. Cluster round trips per 1000 objects"),
                                  QStringLiteral("round trips"),
                                  objects > 0 ? roundTrips * 1000.0 / objects : 0, 3);
    refresh.note = QStringLiteral("%1 objects tracked over %2 masters (%3 limiters, %4 locks, %5 "
                                  "queues): one full refresh in %6 round trips (summed over the "
                                  "masters), %7 ms.")
                       .arg(objects)
                       .arg(masters.size())
                       .arg(sizes.limiters)
                       .arg(sizes.locks)
                       .arg(sizes.queues)
                       .arg(roundTrips)
                       .arg(wallMs);
    return {discovery, refresh};
}

} // namespace gatehouse::bench
