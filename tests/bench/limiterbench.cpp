// SPDX-License-Identifier: MIT
#include "limiterbench.h"

#include "redisserver.h"

#include <redis/redisclient.h>

#include <QDateTime>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QTest>

namespace gatehouse::bench {

namespace {

constexpr int s_keys = 1000;
constexpr int s_burst = 256;  // script calls written together
constexpr int s_inFlight = 4; // bursts outstanding
constexpr int s_limit = 5;    // the seed script hard-codes 5 per 1000 ms

RedisScript seedScript()
{
    QFile file(QStringLiteral(GATEHOUSE_TEST_DATA "/seed000_rolling.lua"));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return RedisScript(QStringLiteral("seed000_rolling"), file.readAll());
}

using ArgsFor = std::function<void(int i, QList<QByteArray> &keys, QList<QByteArray> &args)>;

// Decisions per second, sustained: s_inFlight bursts of s_burst EVALSHA calls
// spread over s_keys limiters stay outstanding, a new burst going out as each
// is answered (both scripts alike, so client and server work overlap).
double decisionRate(RedisClient &client, const RedisScript &script, int decisions,
                    const ArgsFor &argsFor, int *errors)
{
    QObject context;
    QEventLoop loop;
    int sent = 0;
    int answered = 0;
    std::function<void()> sendBurst = [&] {
        const int n = std::min(s_burst, decisions - sent);
        for (int j = 0; j < n; ++j, ++sent) {
            QList<QByteArray> keys;
            QList<QByteArray> args;
            argsFor(sent, keys, args);
            const bool last = j == n - 1;
            client.script(script, keys, args, &context, [&, last](const RedisValue &v) {
                *errors += v.isError() ? 1 : 0;
                ++answered;
                if (answered == decisions)
                    loop.quit();
                else if (last && sent < decisions)
                    sendBurst();
            });
        }
    };
    QElapsedTimer clock;
    clock.start();
    for (int i = 0; i < s_inFlight && sent < decisions; ++i)
        sendBurst();
    loop.exec();
    return decisions / (clock.nsecsElapsed() / 1e9);
}

// Requests admitted but not recorded in the window, in one burst of 10x the
// limit all carrying the same millisecond.
qint64 lostInBurst(RedisClient &client, const RedisScript &script, const QByteArray &key,
                   const ArgsFor &argsFor, const std::function<bool(qint64)> &admits,
                   qint64 *admitted)
{
    QObject context;
    int answered = 0;
    *admitted = 0;
    QEventLoop loop;
    for (int i = 0; i < 10 * s_limit; ++i) {
        QList<QByteArray> keys;
        QList<QByteArray> args;
        argsFor(i, keys, args);
        client.script(script, keys, args, &context, [&](const RedisValue &v) {
            if (v.isInteger() && admits(v.toInteger()))
                ++*admitted;
            if (++answered == 10 * s_limit)
                loop.quit();
        });
    }
    loop.exec();
    return *admitted - test::call(client, {"ZCARD", key}).toInteger();
}

// Server time per EVALSHA since the last CONFIG RESETSTAT, in µs.
double serverUsecPerCall(RedisClient &client)
{
    const QByteArray info = test::call(client, {"INFO", "commandstats"}).bytes();
    const qsizetype at = info.indexOf("cmdstat_evalsha:");
    const qsizetype from = info.indexOf("usec_per_call=", at);
    if (at < 0 || from < 0)
        return 0;
    const qsizetype start = from + qsizetype(sizeof("usec_per_call=")) - 1;
    return info.mid(start, info.indexOf(',', start) - start).toDouble();
}

} // namespace

QList<Figure> runLimiterBench(const RedisEndpoint &endpoint, int decisions, int rounds)
{
    const auto connection = test::connectedClient(endpoint);
    if (!connection)
        return {};
    RedisClient &client = *connection;
    const RedisScript seed = seedScript();
    const RedisScript ours = RedisScript::fromResource(QStringLiteral("sliding_window"));
    if (!seed.isValid())
        return {};

    const ArgsFor seedArgs = [](int i, QList<QByteArray> &keys, QList<QByteArray> &args) {
        const QByteArray k = "bench:seed:" + QByteArray::number(i % s_keys);
        keys = {k, k + ":retry"};
        args = {QByteArray::number(QDateTime::currentMSecsSinceEpoch())};
    };
    const ArgsFor ourArgs = [](int i, QList<QByteArray> &keys, QList<QByteArray> &args) {
        const QByteArray k = "bench:gh:" + QByteArray::number(i % s_keys);
        keys = {k, k + ":retry"};
        args = {QByteArray::number(s_limit), "1000",
                QByteArray::number(QDateTime::currentMSecsSinceEpoch()), "1000"};
    };

    double bestSeed = 0;
    double bestOurs = 0;
    int errors = 0;
    double seedUsec = 0;
    double ourUsec = 0;
    for (int r = 0; r < rounds; ++r) {
        test::call(client, {"FLUSHALL"});
        test::call(client, {"CONFIG", "RESETSTAT"});
        bestSeed = std::max(bestSeed, decisionRate(client, seed, decisions, seedArgs, &errors));
        seedUsec += serverUsecPerCall(client) / rounds;
        test::call(client, {"FLUSHALL"});
        test::call(client, {"CONFIG", "RESETSTAT"});
        bestOurs = std::max(bestOurs, decisionRate(client, ours, decisions, ourArgs, &errors));
        ourUsec += serverUsecPerCall(client) / rounds;
    }

    test::call(client, {"FLUSHALL"});
    const QByteArray ms = QByteArray::number(QDateTime::currentMSecsSinceEpoch());
    qint64 seedAdmitted = 0;
    qint64 ourAdmitted = 0;
    const qint64 seedLost = lostInBurst(
        client, seed, "burst:seed",
        [&](int, QList<QByteArray> &keys, QList<QByteArray> &args) {
            keys = {"burst:seed", "burst:seed:retry"};
            args = {ms};
        },
        [](qint64 reply) { return reply == 0; }, // else the ms to wait
        &seedAdmitted);
    const qint64 ourLost = lostInBurst(
        client, ours, "burst:gh",
        [&](int, QList<QByteArray> &keys, QList<QByteArray> &args) {
            keys = {"burst:gh", "burst:gh:retry"};
            args = {QByteArray::number(s_limit), "1000", ms, "1000"};
        },
        [](qint64 reply) { return reply >= 0; }, // the room left; below 0: -ms to wait
        &ourAdmitted);

    Figure rate;
    rate.name = QStringLiteral("8. limiter decisions/s");
    rate.value = bestOurs;
    rate.unit = QStringLiteral("decisions/s");
    rate.peer = QStringLiteral("seed 000 script");
    rate.peerValue = bestSeed;
    rate.target = 0.9;
    rate.note = QStringLiteral("EVALSHA through one RedisClient, %1 bursts of %2 in flight over "
                               "%3 limiters (limit %4/s), both given the client's time; server "
                               "time per decision %5 µs vs %6 µs.%7")
                    .arg(s_inFlight)
                    .arg(s_burst)
                    .arg(s_keys)
                    .arg(s_limit)
                    .arg(ourUsec, 0, 'f', 2)
                    .arg(seedUsec, 0, 'f', 2)
                    .arg(errors ? QStringLiteral(" %1 error replies!").arg(errors) : QString());
    Figure lost;
    lost.name = QStringLiteral("8. limiter lost same-ms requests");
    lost.value = double(ourLost);
    lost.unit = QStringLiteral("requests");
    lost.peer = QStringLiteral("seed 000 script");
    lost.peerValue = double(seedLost);
    lost.target = 0;
    lost.atMost = true;
    lost.note = QStringLiteral("Burst of %1 requests in one ms, limit %2: Gatehouse admitted "
                               "%3, the seed admitted %4 and recorded %5.")
                    .arg(10 * s_limit)
                    .arg(s_limit)
                    .arg(ourAdmitted)
                    .arg(seedAdmitted)
                    .arg(seedAdmitted - seedLost);
    return {rate, lost};
}

} // namespace gatehouse::bench
