// SPDX-License-Identifier: MIT
#pragma once

#include <patterns/demotraffic.h>
#include <redis/redisvalue.h>

#include <QMap>
#include <QObject>
#include <QStringList>
#include <QTimer>

#include <map>
#include <memory>
#include <vector>

namespace gatehouse {

class RedisClient;

// What the simulator left in Redis when it stopped: per pattern id, the
// objects (their primary key; for token families the prefix) that exist.
struct SimulatorCensus
{
    QMap<QString, QList<QByteArray>> objects;
    QMap<QString, qint64> tokenCounts; // family prefix -> live tokens
    qint64 commands = 0;               // requests sent during the run
    // Requests answered with an error or never answered (a node down), and
    // the first such reply's sentence.
    qint64 failedCommands = 0;
    QString firstError;
    QByteArray toJson() const;
};

// Deterministic traffic that exercises every pattern: each pattern's own demo
// traffic (PatternUnit::demoTraffic: limiter clients below and above their
// limits, lock holders and queue workers of which some crash, token issuers
// and consumers, ...), which this class drives as its DemoDriver, each on its
// own random stream from the run's seed. The same seed makes the same
// decisions.
//
// Runs on the caller's thread through a RedisClient (which does the I/O on
// its worker); a tick every 100 ms sends one burst, and a tick is skipped
// while the previous burst is still unanswered, so a slow server is never
// flooded.
class Simulator : public QObject, private DemoDriver
{
    Q_OBJECT
public:
    struct Options
    {
        quint32 seed = 1;
        int scale = 1;      // multiplies the number of instances
        double rate = 1.0;  // multiplies every client's request rate
        qint64 seconds = 0; // 0: until stop()
        int tickMs = 100;
        QByteArray prefix = "sim:";
        // Each structure's keys carry a hash tag ("sim:rl:api:{3}", its
        // ":retry" too) so they share a Cluster slot. Turned on by start()
        // when the client's topology is a Cluster.
        bool hashTags = false;
    };

    Simulator(RedisClient *client, Options options, QObject *parent = nullptr);
    ~Simulator() override;

    void start(); // the client may still be connecting: traffic starts when ready
    // Stops the traffic, releases what holders that did not crash hold,
    // counts what is left, then emits finished().
    void stop();
    bool isRunning() const { return m_timer.isActive(); }

    // The keys of a pattern's objects in this run (its demo's instances),
    // for profiles and benchmarks.
    QList<QByteArray> instanceKeys(const QString &pattern) const;

Q_SIGNALS:
    void finished(const gatehouse::SimulatorCensus &census);
    void failed(const QString &message);

private:
    struct Event;
    void onTick();
    // DemoDriver
    void send(const QString &script, QList<QByteArray> keys, QList<QByteArray> args,
              std::function<void(const RedisValue &)> onReply = {}) override;
    void sendCommands(QList<QList<QByteArray>> commands) override;
    void sendCommand(QList<QByteArray> command,
                     std::function<void(const RedisValue &)> onReply) override;
    void schedule(qint64 afterTicks, std::function<void()> action) override;
    qint64 tick() const override { return m_tick; }
    int tickMs() const override { return m_options.tickMs; }
    int scale() const override { return m_options.scale; }
    double rate() const override { return m_options.rate; }
    const QByteArray &prefix() const override { return m_options.prefix; }
    bool stopping() const override { return m_stopping; }
    bool hashTags() const override { return m_options.hashTags; }
    void census();
    // The demos' families (pattern id, key prefix), listed once per census.
    using Families = std::shared_ptr<const QList<std::pair<QString, QByteArray>>>;
    void countFamilies(const Families &families, int family, int node, const QByteArray &cursor,
                       std::shared_ptr<SimulatorCensus> result);
    // Every reply passes here: errors and failures are counted.
    void noteReply(const RedisValue &v);

    RedisClient *m_client;
    Options m_options;
    // The patterns' own traffic, by pattern id.
    std::vector<std::pair<QString, std::unique_ptr<DemoTraffic>>> m_demos;
    QTimer m_timer{this}; // a child: moves with the simulator
    qint64 m_tick = 0;
    qint64 m_outstanding = 0;
    qint64 m_commands = 0;
    qint64 m_failedCommands = 0;
    QString m_firstError;
    QStringList m_scanNodes; // a Cluster's masters: the census scans each
    bool m_stopping = false;
    std::multimap<qint64, std::function<void()>> m_events; // by tick
};

} // namespace gatehouse

Q_DECLARE_METATYPE(gatehouse::SimulatorCensus)
