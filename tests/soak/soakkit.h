// SPDX-License-Identifier: MIT
// The soak's kit: its constants, redis-cli runs, the lock reader, the writer
// of locks, the fault types and what a check and an action record.
#pragma once

#include <redis/redisclient.h>

#include <QByteArray>
#include <QHash>
#include <QJsonObject>
#include <QObject>
#include <QProcess>
#include <QRandomGenerator>
#include <QStringList>
#include <QThread>
#include <QTimer>

#include <atomic>
#include <memory>

namespace gatehouse::test::soak {

inline constexpr int IntervalMs = 500;         // the watches' tick
inline constexpr int BoundMs = 2 * IntervalMs; // the first line printed after this must be exact
inline constexpr int ConvergeMs = 30000;       // past the bound: how long to wait to classify
inline constexpr int WriterRate = 20;          // writes per second per deployment
inline constexpr int LockKeys = 40;            // lock:soak:0 .. 39
inline const QByteArray ActionKey = "lock:soak:action"; // released by the CLI, never by a writer
// A hand-written reliable queue in one hash slot: its in-flight job is
// requeued by the CLI during a fault; nothing else writes to it.
inline const QByteArray JobQueueKey = "{soakq}:jobs";
inline const QByteArray JobProcessingKey = "{soakq}:jobs:processing";

// Every data node: keyspace events on (kept across restarts), DEBUG from loopback.
inline const QStringList NodeConfig{QStringLiteral("notify-keyspace-events KEA"),
                                    QStringLiteral("enable-debug-command local")};

qint64 envNumber(const char *name, qint64 fallback);
QByteArray newToken(QRandomGenerator &rng);

// redis-cli, spinning the event loop meanwhile (the watches keep being read).
struct Cli
{
    int exitCode = -1;
    QByteArray out;
};

Cli redisCli(const QStringList &args, const QByteArray &input = {}, int timeoutMs = 20000);
Cli nodeCli(quint16 port, const QStringList &args, int timeoutMs = 20000);

// The lock keys one master holds now: SCAN MATCH (never KEYS), then GET and
// PTTL of each in one pipeline. key -> token, for keys that live.
bool readLocks(quint16 port, QHash<QString, QString> *truth);

// A steady writer of locks on a thread of its own (its own RedisClient, which
// follows the Sentinel master or the Cluster's slots): holders change (DEL,
// then SET NX with a new token), locks appear and are deleted, at most
// WriterRate writes a second, one operation at a time.
class Writer : public QObject
{
public:
    Writer(const RedisEndpoint &endpoint, quint32 seed);
    ~Writer() override;

    void setPaused(bool on) { m_paused = on; }
    bool idle() const { return m_paused && m_inFlight == 0; }
    qint64 succeeded() const { return m_ok; }
    qint64 failed() const { return m_failed; }

private:
    void begin();
    void done(const RedisValue &v);
    void step();

    QThread m_thread;
    RedisEndpoint m_endpoint;
    QRandomGenerator m_rng; // on m_thread
    std::unique_ptr<RedisClient> m_client;
    std::unique_ptr<QTimer> m_timer;
    std::atomic<bool> m_paused{false};
    std::atomic<int> m_inFlight{0};
    std::atomic<qint64> m_ok{0};
    std::atomic<qint64> m_failed{0};
};

enum class Fault {
    SentinelFailover,
    SentinelKillMaster,
    ClusterFailover,
    ClusterKillMaster,
    ClusterReshard,
    PubsubKill,
    EventsOff,
    DebugSleep,
    ProxyStall,
};
inline constexpr int FaultTypes = 9;

// Where a line shows each lock:soak: key that is not in its locks (a
// candidate, an ordinary key), and its world; for a failure's message.
QString whereShown(const QJsonObject &line);

// One comparison of a watch with the truth.
struct Check
{
    QString deployment;
    qint64 firstEqualMs = -1; // from T0 to the first line equal to the truth; -1: none
    int lost = 0;             // at the bound line: on the server, not shown (or gone)
    int invented = 0;         // shown, not on the server, or another token
    int stale = 0;            // shown stale
    bool exact = false;       // the bound line equals the truth
    bool convergedLater = false;
    QString detail;
};

struct ActionRun
{
    std::unique_ptr<QProcess> process;
    QString deployment;
    QString token;
    QString job;             // a job requeue (JobQueueKey) when set, else a lock release
    bool replicated = false; // what it acts on was on a replica when it started
};

} // namespace gatehouse::test::soak
