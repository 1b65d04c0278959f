// SPDX-License-Identifier: MIT
#include "searchbench.h"

#include "benchloader.h"
#include "observerprobe.h"
#include "redisserver.h"

#include <monitor/jobsearch.h>
#include <patterns/patternregistry.h>
#include <patterns/patternunit.h>
#include <redis/redisclient.h>

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSignalSpy>
#include <QTest>
#include <QTextStream>

namespace gatehouse::bench {

namespace {

const QString LibrariesDir = QStringLiteral(GATEHOUSE_LIBRARIES_DIR);

QJsonObject runJson(const QString &program, const QStringList &args, int timeoutMs, QString *error)
{
    QProcess p;
    p.start(program, args);
    if (!p.waitForFinished(timeoutMs) || p.exitCode() != 0) {
        *error = QStringLiteral("%1 %2: %3")
                     .arg(program, args.join(QLatin1Char(' ')),
                          QString::fromUtf8(p.readAllStandardError()).left(400));
        p.kill();
        p.waitForFinished(5000);
        return {};
    }
    const QList<QByteArray> lines = p.readAllStandardOutput().trimmed().split('\n');
    return QJsonDocument::fromJson(lines.value(lines.size() - 1)).object();
}

QStringList bullmqArgs(const RedisEndpoint &ep, const QString &command, const QString &arg)
{
    return {LibrariesDir + QStringLiteral("/bullmq-app.js"),
            QStringLiteral("bullmq"),
            QStringLiteral("redis://%1:%2").arg(ep.host).arg(ep.port),
            QStringLiteral("bench"),
            command,
            arg};
}

QStringList sidekiqArgs(const RedisEndpoint &ep, const QString &command, const QString &arg)
{
    return {LibrariesDir + QStringLiteral("/sidekiq_app.rb"),
            QStringLiteral("redis://%1:%2").arg(ep.host).arg(ep.port), command, arg};
}

// One job the real library wrote, cloned to jobs jobs with their own ids
// and data; false (and why) when the library did not run.
bool fillBullmq(RedisClient &client, const RedisEndpoint &ep, int jobs, QString *error)
{
    QProcess produce;
    produce.start(QStringLiteral("node"),
                  bullmqArgs(ep, QStringLiteral("produce"), QStringLiteral("1")));
    if (!produce.waitForFinished(60000) || produce.exitCode() != 0) {
        *error = QStringLiteral("bullmq-app produce: %1")
                     .arg(QString::fromUtf8(produce.readAllStandardError()));
        return false;
    }
    QProcess worker;
    worker.start(QStringLiteral("node"),
                 bullmqArgs(ep, QStringLiteral("work"), QStringLiteral("bench:ran")));
    const bool done = QTest::qWaitFor(
        [&] {
            return test::call(client, {"ZCARD", "bull:bench:completed"}).toInteger() == 1;
        },
        60000);
    worker.kill();
    worker.waitForFinished(5000);
    if (!done) {
        *error = QStringLiteral("the BullMQ worker did not complete its job");
        return false;
    }
    const RedisValue fields = test::call(client, {"HGETALL", "bull:bench:job-1"});
    QList<QByteArray> names;
    QList<QByteArray> values;
    for (qsizetype i = 0; i + 1 < fields.size(); i += 2) {
        names << fields.at(i).bytes();
        values << fields.at(i + 1).bytes();
    }
    const qint64 finishedOn
        = test::call(client, {"ZSCORE", "bull:bench:completed", "job-1"}).bytes().toLongLong();
    Context c = connect(ep);
    Loader load(c.get());
    for (int n = 1; n <= jobs; ++n) {
        const QByteArray id = "job-" + QByteArray::number(n);
        QList<QByteArray> hset{"HSET", "bull:bench:" + id};
        for (qsizetype f = 0; f < names.size(); ++f) {
            hset << names.at(f)
                 << (names.at(f) == "data" ? "{\"n\":" + QByteArray::number(n) + "}"
                                           : values.at(f));
        }
        load.add(hset);
        load.add({"ZADD", "bull:bench:completed", QByteArray::number(finishedOn + n), id});
    }
    load.flush();
    return true;
}

bool fillSidekiq(RedisClient &client, const RedisEndpoint &ep, int jobs, QString *error)
{
    QProcess push;
    push.start(QStringLiteral("/usr/bin/ruby"),
               {LibrariesDir + QStringLiteral("/sidekiq_app.rb"),
                QStringLiteral("redis://%1:%2").arg(ep.host).arg(ep.port), QStringLiteral("push"),
                QStringLiteral("HangJob"), QStringLiteral("bench")});
    QProcess dead;
    if (!push.waitForFinished(60000) || push.exitCode() != 0) {
        *error = QStringLiteral("sidekiq_app push: %1")
                     .arg(QString::fromUtf8(push.readAllStandardError()));
        return false;
    }
    dead.start(QStringLiteral("/usr/bin/ruby"),
               sidekiqArgs(ep, QStringLiteral("dead"), QStringLiteral("3")));
    if (!dead.waitForFinished(60000) || dead.exitCode() != 0) {
        *error = QStringLiteral("sidekiq_app dead: %1")
                     .arg(QString::fromUtf8(dead.readAllStandardError()));
        return false;
    }
    // The three Sidekiq wrote: one per kind (two "card declined", one timeout).
    const RedisValue written = test::call(client, {"ZRANGE", "dead", "0", "-1", "WITHSCORES"});
    QList<QJsonObject> kinds;
    qint64 score = 0;
    for (qsizetype i = 0; i + 1 < written.size(); i += 2) {
        kinds << QJsonDocument::fromJson(written.at(i).bytes()).object();
        score = qint64(written.at(i + 1).bytes().toDouble());
    }
    if (kinds.size() != 3) {
        *error = QStringLiteral("Sidekiq's dead set holds %1 jobs, not 3").arg(kinds.size());
        return false;
    }
    test::call(client, {"DEL", "dead"});
    Context c = connect(ep);
    Loader load(c.get());
    for (int n = 1; n <= jobs; ++n) {
        QJsonObject job = kinds.at(n % 3);
        job[QStringLiteral("jid")] = QStringLiteral("bench%1").arg(n, 19, 10, QLatin1Char('0'));
        job[QStringLiteral("args")] = QJsonArray{QStringLiteral("customer-%1").arg(n)};
        load.add({"ZADD", "dead", QByteArray::number(double(score) + n / 1000.0, 'f', 3),
                  QJsonDocument(job).toJson(QJsonDocument::Compact)});
    }
    load.flush();
    return true;
}

struct Searched
{
    JobSearchResult result;
    QList<JobHit> hits;
};

double busyPercent()
{
    if (qEnvironmentVariableIsSet("GATEHOUSE_SEARCH_BUSY")) // exploring the pace by hand
        return qEnvironmentVariable("GATEHOUSE_SEARCH_BUSY").toDouble();
    return JobSearch::Options().busyPercent;
}

Searched search(RedisClient &client, const PatternObject &object, const QString &expression,
                const QStringList &states, int limit, int stopAfterMs = -1)
{
    JobSearch::Options options;
    options.busyPercent = busyPercent();
    options.states = states;
    options.limit = limit;
    JobSearch s(&client, object, *JobQuery::parse(expression, nullptr), options);
    QSignalSpy finished(&s, &JobSearch::finished);
    s.start();
    if (stopAfterMs >= 0) {
        QTest::qWait(stopAfterMs);
        s.cancel();
    } else {
        finished.wait(3'600'000);
    }
    Searched out;
    if (!finished.isEmpty())
        out.result = finished.first().first().value<JobSearchResult>();
    out.hits = s.hits();
    return out;
}

// Another client's p99 with a search running against without, in
// alternating segments (each search started afresh and stopped at the
// segment's end): the ratio of both sides' p99 over all their segments.
Figure observed(const QString &name, RedisClient &client, const RedisEndpoint &ep,
                const PatternObject &object, const QString &expression, int cycles, int segmentMs)
{
    test::call(client, {"SET", "bench:observer", "v"}); // the probe's GET reads it
    ObserverProbe probe(ep);
    probe.start(2 * cycles);
    int segment = 0;
    std::vector<float> with, without;
    QList<int> withSegments, withoutSegments;
    for (int c = 0; c < cycles; ++c) {
        probe.setSegment(++segment);
        QTest::qWait(segmentMs);
        withoutSegments << segment;
        probe.setSegment(++segment);
        search(client, object, expression, {}, 1'000'000, segmentMs);
        withSegments << segment;
    }
    probe.setSegment(0);
    const bool ok = probe.finish();
    for (int s : withSegments)
        with.insert(with.end(), probe.latencies(s).begin(), probe.latencies(s).end());
    for (int s : withoutSegments)
        without.insert(without.end(), probe.latencies(s).begin(), probe.latencies(s).end());
    Figure f = budgetFigure(name, QStringLiteral("ms"), ok ? p99(with) : 0,
                            ok ? p99(without) * 1.10 : 0);
    f.peer = QStringLiteral("without a search");
    f.peerValue = ok ? p99(without) : 0;
    f.note = QStringLiteral("GET on 10 connections, one in flight on each; %1 cycles of %2 ms "
                            "with the search running and %2 ms without; %3 requests timed.")
                 .arg(cycles)
                 .arg(segmentMs)
                 .arg(with.size() + without.size());
    return f;
}

} // namespace

QList<Figure> runSearchBench(const RedisEndpoint &endpoint, int jobs, int cycles, int segmentMs)
{
    QList<Figure> figures;
    RedisClient client(endpoint);
    client.open();
    test::call(client, {"FLUSHALL"});
    QString error;
    QTextStream err(stderr);
    // A library that did not run is a figure missing: the bench fails.
    const auto missing = [&](const QString &name) {
        err << "gatehouse-bench search: " << error << Qt::endl;
        Figure f;
        f.name = name;
        f.note = error;
        figures << f;
        return figures;
    };
    if (!fillBullmq(client, endpoint, jobs, &error))
        return missing(QStringLiteral("search: BullMQ completed"));
    const PatternUnit *bullmq = nullptr;
    const PatternUnit *sidekiq = nullptr;
    for (const PatternUnit *u : PatternRegistry::instance().units()) {
        if (u->library().name == QLatin1String("bullmq"))
            bullmq = u;
        if (u->library().name == QLatin1String("sidekiq"))
            sidekiq = u;
    }
    if (!bullmq || !sidekiq)
        return figures;
    const int want = jobs * 7 / 9;
    const PatternObject queue = bullmq->conventionalObject("bull:bench");
    const QString pathQuery = QStringLiteral("data.n = %1").arg(want);
    {
        QElapsedTimer clock;
        clock.start();
        const Searched s = search(client, queue, pathQuery, {QStringLiteral("completed")}, 50);
        const double ms = double(clock.elapsed());
        const bool right = s.hits.size() == 1
                           && s.hits.first().row.id == "job-" + QByteArray::number(want)
                           && s.result.progress.scanned == jobs;
        const QJsonObject peer
            = runJson(QStringLiteral("node"),
                      bullmqArgs(endpoint, QStringLiteral("search-data"), QString::number(want)),
                      3'600'000, &error);
        Figure f;
        f.name = QStringLiteral("search: BullMQ completed, data.n = X, s per 100,000 jobs");
        f.unit = QStringLiteral("s");
        f.value = right ? ms / 1000.0 * 100000.0 / jobs : 0;
        f.peer = QStringLiteral("Queue#getJobs by 1000, filtered in Node");
        f.peerValue = peer.value(QLatin1String("matched")).toInt() == 1
                          ? peer.value(QLatin1String("ms")).toDouble() / 1000.0 * 100000.0 / jobs
                          : 0;
        f.note = QStringLiteral("%1 jobs, 1 hit (%2); Gatehouse paced to %3 % of the time "
                                "waiting on the server (%4 s of %5 s), %6 records read; the "
                                "peer unpaced. %7")
                     .arg(jobs)
                     .arg(right ? QStringLiteral("the right one") : QStringLiteral("WRONG"))
                     .arg(busyPercent())
                     .arg(double(s.result.progress.busyMs) / 1000.0, 0, 'f', 1)
                     .arg(ms / 1000.0, 0, 'f', 1)
                     .arg(s.result.progress.detailsRead)
                     .arg(error);
        figures << f;
    }
    figures << observed(QStringLiteral("search: another client's GET p99, BullMQ path search"),
                        client, endpoint, queue, pathQuery, cycles, segmentMs);
    test::call(client, {"FLUSHALL"});
    if (!fillSidekiq(client, endpoint, jobs, &error))
        return missing(QStringLiteral("search: Sidekiq dead"));
    const PatternObject deployment = sidekiq->conventionalObject("queues");
    const QString errorQuery = QStringLiteral("error~ReadTimeout");
    {
        QElapsedTimer clock;
        clock.start();
        const Searched s = search(client, deployment, errorQuery, {QStringLiteral("dead")}, jobs);
        const double ms = double(clock.elapsed());
        const QJsonObject peer = runJson(
            QStringLiteral("/usr/bin/ruby"),
            sidekiqArgs(endpoint, QStringLiteral("scan-dead"), QStringLiteral("ReadTimeout")),
            3'600'000, &error);
        const int peerMatched = peer.value(QLatin1String("matched")).toInt();
        const bool right = s.hits.size() == peerMatched && peerMatched > 0;
        Figure f;
        f.name = QStringLiteral("search: Sidekiq dead, error~ReadTimeout, s per 100,000 jobs");
        f.unit = QStringLiteral("s");
        f.value = right ? ms / 1000.0 * 100000.0 / jobs : 0;
        f.peer = QStringLiteral("Sidekiq Web's filter (ZSCAN MATCH)");
        f.peerValue = peer.value(QLatin1String("ms")).toDouble() / 1000.0 * 100000.0 / jobs;
        f.note = QStringLiteral("%1 jobs, %2 hits (Sidekiq's own count %3); Gatehouse paced to "
                                "%4 % waiting on the server (%5 s of %6 s). %7")
                     .arg(jobs)
                     .arg(s.hits.size())
                     .arg(peerMatched)
                     .arg(busyPercent())
                     .arg(double(s.result.progress.busyMs) / 1000.0, 0, 'f', 1)
                     .arg(ms / 1000.0, 0, 'f', 1)
                     .arg(error);
        figures << f;
    }
    figures << observed(QStringLiteral("search: another client's GET p99, Sidekiq error search"),
                        client, endpoint, deployment, errorQuery, cycles, segmentMs);
    test::call(client, {"FLUSHALL"});
    return figures;
}

} // namespace gatehouse::bench
