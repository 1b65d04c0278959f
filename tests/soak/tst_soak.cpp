// SPDX-License-Identifier: MIT
// A chaos soak: a Sentinel set, a six-node Cluster and a server behind a TCP
// proxy, each under a steady writer of locks and watched by `gatehouse-cli
// watch --json` with no profile, take a seeded random sequence of faults.
// After each one, with the writers paused, what every watch prints two ticks
// later must be exactly what the servers hold. docs/soak.md has the command
// and the figures.
//
//   GATEHOUSE_SOAK_SEED     the fault sequence (default 1)
//   GATEHOUSE_SOAK_SECONDS  run at least this long (default 60)
//   GATEHOUSE_SOAK_FAULTS   and inject at least this many faults (default:
//                           one of each type)
#include <redis/hashslot.h>
#include <redis/redisclient.h>

#include "rediscluster.h"
#include "redissentinel.h"
#include "redisserver.h"
#include "tcpproxy.h"
#include "watchprocess.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QProcess>
#include <QRandomGenerator>
#include <QTest>
#include <QThread>
#include <QTimer>

#include <sys/prctl.h>

#include <atomic>
#include <csignal>
#include <memory>

using namespace gatehouse;
using gatehouse::test::RedisCluster;
using gatehouse::test::RedisSentinel;
using gatehouse::test::RedisServer;
using gatehouse::test::TcpProxy;
using gatehouse::test::waitUntil;
using gatehouse::test::WatchProcess;

namespace {

constexpr int IntervalMs = 500;                  // the watches' tick
constexpr int BoundMs = 2 * IntervalMs;          // the first line printed after this must be exact
constexpr int ConvergeMs = 30000;                // past the bound: how long to wait to classify
constexpr int WriterRate = 20;                   // writes per second per deployment
constexpr int LockKeys = 40;                     // lock:soak:0 .. 39
const QByteArray ActionKey = "lock:soak:action"; // released by the CLI, never by a writer
// A hand-written reliable queue in one hash slot: its in-flight job is
// requeued by the CLI during a fault; nothing else writes to it.
const QByteArray JobQueueKey = "{soakq}:jobs";
const QByteArray JobProcessingKey = "{soakq}:jobs:processing";

// Every data node: keyspace events on (kept across restarts), DEBUG from loopback.
const QStringList NodeConfig{QStringLiteral("notify-keyspace-events KEA"),
                             QStringLiteral("enable-debug-command local")};

qint64 envNumber(const char *name, qint64 fallback)
{
    bool ok = false;
    const qint64 v = qEnvironmentVariable(name).toLongLong(&ok);
    return ok ? v : fallback;
}

QByteArray newToken(QRandomGenerator &rng)
{
    return "tok" + QByteArray::number(rng.generate64(), 16);
}

// redis-cli, spinning the event loop meanwhile (the watches keep being read).
struct Cli
{
    int exitCode = -1;
    QByteArray out;
};

Cli redisCli(const QStringList &args, const QByteArray &input = {}, int timeoutMs = 20000)
{
    QProcess p;
    p.setChildProcessModifier([] { ::prctl(PR_SET_PDEATHSIG, SIGTERM); });
    p.start(QStringLiteral(GATEHOUSE_REDIS_CLI), args);
    if (!p.waitForStarted(10000))
        return {};
    if (!input.isEmpty())
        p.write(input);
    p.closeWriteChannel();
    if (!waitUntil([&] { return p.state() == QProcess::NotRunning; }, timeoutMs)) {
        p.kill();
        p.waitForFinished(2000);
        return {};
    }
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2,
            p.readAllStandardOutput().trimmed()};
}

Cli nodeCli(quint16 port, const QStringList &args, int timeoutMs = 20000)
{
    return redisCli(QStringList{QStringLiteral("-p"), QString::number(port)} + args, {}, timeoutMs);
}

// The lock keys one master holds now: SCAN MATCH (never KEYS), then GET and
// PTTL of each in one pipeline. key -> token, for keys that live.
bool readLocks(quint16 port, QHash<QString, QString> *truth)
{
    const Cli scan = nodeCli(port, {QStringLiteral("--scan"), QStringLiteral("--pattern"),
                                    QStringLiteral("lock:soak:*")});
    if (scan.exitCode != 0)
        return false;
    QList<QByteArray> keys;
    for (const QByteArray &k : scan.out.split('\n')) {
        if (!k.trimmed().isEmpty())
            keys << k.trimmed();
    }
    if (keys.isEmpty())
        return true;
    QByteArray input;
    for (const QByteArray &k : std::as_const(keys))
        input += "GET " + k + "\nPTTL " + k + '\n';
    const Cli read = redisCli({QStringLiteral("-p"), QString::number(port)}, input);
    const QList<QByteArray> lines = read.out.split('\n');
    if (read.exitCode != 0 || lines.size() != 2 * keys.size())
        return false;
    for (qsizetype i = 0; i < keys.size(); ++i) {
        const QByteArray token = lines.at(2 * i).trimmed();
        const qint64 pttl = lines.at(2 * i + 1).trimmed().toLongLong();
        if (!token.isEmpty() && (pttl > 0 || pttl == -1))
            truth->insert(QString::fromLatin1(keys.at(i)), QString::fromLatin1(token));
    }
    return true;
}

// A steady writer of locks on a thread of its own (its own RedisClient, which
// follows the Sentinel master or the Cluster's slots): holders change (DEL,
// then SET NX with a new token), locks appear and are deleted, at most
// WriterRate writes a second, one operation at a time.
class Writer : public QObject
{
public:
    Writer(const RedisEndpoint &endpoint, quint32 seed)
        : m_endpoint(endpoint)
        , m_rng(seed)
    {
        moveToThread(&m_thread);
        m_thread.start();
        QMetaObject::invokeMethod(this, [this] { begin(); });
    }
    ~Writer() override
    {
        QMetaObject::invokeMethod(
            this,
            [this] {
                m_timer.reset();
                m_client.reset();
            },
            Qt::BlockingQueuedConnection);
        m_thread.quit();
        m_thread.wait();
    }

    void setPaused(bool on) { m_paused = on; }
    bool idle() const { return m_paused && m_inFlight == 0; }
    qint64 succeeded() const { return m_ok; }
    qint64 failed() const { return m_failed; }

private:
    void begin()
    {
        m_client = std::make_unique<RedisClient>(m_endpoint, &m_thread);
        m_client->open();
        m_timer = std::make_unique<QTimer>();
        m_timer->setInterval(1000 / WriterRate);
        connect(m_timer.get(), &QTimer::timeout, this, [this] { step(); });
        m_timer->start();
    }

    void done(const RedisValue &v)
    {
        if (v.isError() || v.isFailed())
            ++m_failed;
        else
            ++m_ok;
    }

    void step()
    {
        if (m_paused || m_inFlight > 0 || m_client->state() != RedisConnection::State::Ready)
            return;
        const QByteArray key = "lock:soak:" + QByteArray::number(m_rng.bounded(LockKeys));
        const QByteArray token = newToken(m_rng);
        const int dice = int(m_rng.bounded(100));
        m_inFlight = 1;
        if (dice < 20) { // a new lock, if free
            m_client->command({"SET", key, token, "NX", "PX", "600000"}, this,
                              [this](const RedisValue &v) {
                                  done(v);
                                  m_inFlight = 0;
                              });
        } else if (dice < 35) { // released
            m_client->command({"DEL", key}, this, [this](const RedisValue &v) {
                done(v);
                m_inFlight = 0;
            });
        } else { // another holder: released, then taken
            m_client->command({"DEL", key}, this, [this, key, token](const RedisValue &v) {
                done(v);
                m_client->command({"SET", key, token, "NX", "PX", "600000"}, this,
                                  [this](const RedisValue &w) {
                                      done(w);
                                      m_inFlight = 0;
                                  });
            });
        }
    }

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
constexpr int FaultTypes = 9;

// Where a line shows each lock:soak: key that is not in its locks (a
// candidate, an ordinary key), and its world; for a failure's message.
QString whereShown(const QJsonObject &line)
{
    QStringList out;
    for (auto it = line.constBegin(); it != line.constEnd(); ++it) {
        if (!it.value().isArray() || it.key() == QLatin1String("locks"))
            continue;
        for (const QJsonValue &v : it.value().toArray()) {
            const QString text
                = QString::fromUtf8(QJsonDocument(v.toObject()).toJson(QJsonDocument::Compact));
            if (text.contains(QLatin1String("lock:soak")))
                out << it.key() + QLatin1String(": ") + text.left(3000);
        }
    }
    const QJsonObject server = line.value(QLatin1String("server")).toObject();
    out << QStringLiteral("world %1, refresh %2")
               .arg(QString::fromUtf8(QJsonDocument(server.value(QLatin1String("world")).toObject())
                                          .toJson(QJsonDocument::Compact)),
                    QString::fromUtf8(
                        QJsonDocument(server.value(QLatin1String("refresh")).toObject())
                            .toJson(QJsonDocument::Compact)));
    return out.join(QStringLiteral("; "));
}

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

} // namespace

class tst_Soak : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void soak();
    void cleanupTestCase();

private:
    struct Deployment
    {
        QString name;
        QString url; // the watch's and the actions'
        std::unique_ptr<Writer> writer;
        std::unique_ptr<WatchProcess> watch;
        QString actionToken;           // on ActionKey now
        bool actionReplicated = false; // a replica acknowledged it (WAIT), or none can take over
        QString actionJob;             // in JobProcessingKey now
        bool jobReplicated = false;
    };

    bool healthy(Deployment &d, int timeoutMs);
    bool sentinelHealthy();
    bool clusterHealthy();
    QList<quint16> masterPorts(const Deployment &d);
    quint16 masterFor(const Deployment &d, const QByteArray &key);
    bool plantAction(Deployment &d);
    bool plantJob(Deployment &d);
    bool readJob(const Deployment &d, const QString &job, int *inQueue, int *inProcessing);
    QString jobOutcome(const ActionRun &run, int code, const QString &err, bool *violation);
    bool inject(Fault fault, QString *name, QString *deployment);
    QList<Check> checkAll();
    bool waitWritesResume(int timeoutMs);
    void startAction(const QString &deployment);
    void finishActions(const QHash<QString, QHash<QString, QString>> &truths);

    std::unique_ptr<RedisSentinel> m_sentinel;
    std::unique_ptr<RedisCluster> m_cluster;
    std::unique_ptr<RedisServer> m_single;
    std::unique_ptr<TcpProxy> m_proxy;
    std::vector<Deployment> m_deployments; // sentinel, cluster, proxy
    QRandomGenerator m_rng;
    quint32 m_seed = 1;
    std::vector<ActionRun> m_actions; // during the fault under way

    // Figures.
    QMap<QString, int> m_injected;    // by fault name
    QMap<QString, int> m_notInjected; // refused by the deployment (retried later)
    int m_survived = 0;               // every watch exact at the bound after it
    qint64 m_longestMs = 0;           // longest T0 -> first exact line
    int m_lost = 0;
    int m_invented = 0;
    int m_stale = 0;
    int m_checks = 0;
    int m_pastBound = 0;      // checks whose bound line was not exact
    int m_neverConverged = 0; // ... nor any line within ConvergeMs
    QMap<QString, int> m_actionOutcomes;
    int m_actionViolations = 0;
    QStringList m_failures;
};

void tst_Soak::initTestCase()
{
    m_seed = quint32(envNumber("GATEHOUSE_SOAK_SEED", 1));
    m_rng.seed(m_seed);
    qInfo("soak: seed %u (GATEHOUSE_SOAK_SEED)", m_seed);

    m_sentinel = std::make_unique<RedisSentinel>(1, QStringLiteral("soak"));
    m_sentinel->setNodeConfig(NodeConfig);
    QVERIFY2(m_sentinel->start(), qPrintable(m_sentinel->errorString()));
    m_cluster = std::make_unique<RedisCluster>(NodeConfig);
    QVERIFY2(m_cluster->start(), qPrintable(m_cluster->errorString()));
    RedisServer::Options single;
    single.config = NodeConfig;
    m_single = std::make_unique<RedisServer>(single);
    QVERIFY2(m_single->start(), qPrintable(m_single->errorString()));
    m_proxy = std::make_unique<TcpProxy>(m_single->port());
    QVERIFY(m_proxy->start());

    QString error;
    const auto sentinelEp = RedisEndpoint::fromUrl(m_sentinel->url(), &error);
    QVERIFY2(sentinelEp, qPrintable(error));
    RedisEndpoint clusterEp = m_cluster->endpoint(0);
    clusterEp.discoverTopology = true;
    const QString urls[] = {m_sentinel->url(), m_cluster->url(0),
                            QStringLiteral("redis://127.0.0.1:%1").arg(m_proxy->port())};
    const RedisEndpoint endpoints[] = {*sentinelEp, clusterEp, m_single->endpoint()};
    const QString names[]
        = {QStringLiteral("sentinel"), QStringLiteral("cluster"), QStringLiteral("proxy")};
    for (int i = 0; i < 3; ++i) {
        Deployment d;
        d.name = names[i];
        d.url = urls[i];
        d.writer = std::make_unique<Writer>(endpoints[i], m_seed * 7919 + quint32(i));
        m_deployments.push_back(std::move(d));
    }
    // Some locks before the watches start, and the action lock.
    QVERIFY(waitWritesResume(30000));
    QTest::qWait(2000);
    for (Deployment &d : m_deployments) {
        QVERIFY2(plantAction(d), qPrintable(d.name));
        QVERIFY2(plantJob(d), qPrintable(d.name));
        d.watch = std::make_unique<WatchProcess>(QStringLiteral(GATEHOUSE_CLI),
                                                 QStringList{QStringLiteral("--url"), d.url,
                                                             QStringLiteral("--interval"),
                                                             QString::number(IntervalMs)});
        QVERIFY(d.watch->started());
    }
    // Every watch has found the locks before the first fault; the
    // autodetector's behaviour watch (20 ticks) has run on them.
    const QList<Check> first = checkAll();
    for (const Check &c : first)
        QVERIFY2(c.firstEqualMs >= 0, qPrintable(c.deployment + QLatin1String(": ") + c.detail));
}

void tst_Soak::cleanupTestCase()
{
    m_actions.clear();
    for (Deployment &d : m_deployments) {
        d.watch.reset();
        d.writer.reset();
    }
    m_deployments.clear();
    m_proxy.reset();
    m_single.reset();
    m_cluster.reset();
    m_sentinel.reset();
    QCOMPARE(RedisServer::runningChildren(), 0);
}

bool tst_Soak::waitWritesResume(int timeoutMs)
{
    QList<qint64> before;
    for (const Deployment &d : std::as_const(m_deployments))
        before << d.writer->succeeded();
    return waitUntil(
        [&] {
            for (size_t i = 0; i < m_deployments.size(); ++i) {
                if (m_deployments.at(i).writer->succeeded() < before.at(i) + 3)
                    return false;
            }
            return true;
        },
        timeoutMs);
}

QList<quint16> tst_Soak::masterPorts(const Deployment &d)
{
    if (d.name == QLatin1String("sentinel")) {
        const int m = m_sentinel->currentMaster();
        return m >= 0 ? QList<quint16>{m_sentinel->node(m).port()} : QList<quint16>{};
    }
    if (d.name == QLatin1String("cluster")) {
        QList<quint16> ports;
        for (int i = 0; i < m_cluster->size(); ++i) {
            if (m_cluster->node(i).isRunning()
                && nodeCli(m_cluster->node(i).port(), {QStringLiteral("ROLE")})
                       .out.startsWith("master"))
                ports << m_cluster->node(i).port();
        }
        return ports;
    }
    return {m_single->port()};
}

bool tst_Soak::sentinelHealthy()
{
    const int m = m_sentinel->currentMaster();
    if (m < 0 || !m_sentinel->node(m).isRunning()
        || !nodeCli(m_sentinel->node(m).port(), {QStringLiteral("ROLE")}).out.startsWith("master"))
        return false;
    // Every sentinel names it; the replica follows it, in sync, and the
    // sentinels see that (a SENTINEL FAILOVER needs a good replica).
    for (int s = 0; s < RedisSentinel::SentinelCount; ++s) {
        const Cli addr
            = nodeCli(m_sentinel->sentinel(s).port(),
                      {QStringLiteral("SENTINEL"), QStringLiteral("GET-MASTER-ADDR-BY-NAME"),
                       m_sentinel->masterName()});
        if (!addr.out.endsWith(QByteArray::number(m_sentinel->node(m).port())))
            return false;
    }
    for (int i = 0; i < m_sentinel->nodeCount(); ++i) {
        if (i == m)
            continue;
        if (!m_sentinel->node(i).isRunning())
            return false;
        const Cli info = nodeCli(m_sentinel->node(i).port(),
                                 {QStringLiteral("INFO"), QStringLiteral("replication")});
        if (!info.out.contains("master_link_status:up")
            || !info.out.contains(QByteArray(QByteArray("master_port:")
                                             + QByteArray::number(m_sentinel->node(m).port()))))
            return false;
    }
    const Cli replicas = nodeCli(
        m_sentinel->sentinel(0).port(),
        {QStringLiteral("SENTINEL"), QStringLiteral("REPLICAS"), m_sentinel->masterName()});
    const QList<QByteArray> lines = replicas.out.split('\n');
    int good = 0;
    for (qsizetype i = 0; i + 1 < lines.size(); ++i) {
        if (lines.at(i).trimmed() == "flags" && lines.at(i + 1).trimmed() == "slave")
            ++good;
    }
    return good == m_sentinel->nodeCount() - 1;
}

bool tst_Soak::clusterHealthy()
{
    int masters = 0;
    for (int i = 0; i < m_cluster->size(); ++i) {
        const quint16 port = m_cluster->node(i).port();
        const Cli info = nodeCli(port, {QStringLiteral("CLUSTER"), QStringLiteral("INFO")});
        if (!info.out.contains("cluster_state:ok") || !info.out.contains("cluster_known_nodes:6"))
            return false;
        const Cli repl = nodeCli(port, {QStringLiteral("INFO"), QStringLiteral("replication")});
        if (repl.out.contains("role:master"))
            ++masters;
        else if (!repl.out.contains("master_link_status:up"))
            return false;
        // No slot half-way through a migration.
        const Cli nodes = nodeCli(port, {QStringLiteral("CLUSTER"), QStringLiteral("NODES")});
        if (nodes.out.contains("->-") || nodes.out.contains("-<-") || nodes.out.contains("fail"))
            return false;
    }
    return masters == RedisCluster::NodeCount / 2;
}

bool tst_Soak::healthy(Deployment &d, int timeoutMs)
{
    QElapsedTimer clock;
    clock.start();
    while (clock.elapsed() < timeoutMs) {
        bool ok = true;
        if (d.name == QLatin1String("sentinel"))
            ok = sentinelHealthy();
        else if (d.name == QLatin1String("cluster"))
            ok = clusterHealthy();
        if (ok)
            return true;
        QTest::qWait(200);
    }
    return false;
}

quint16 tst_Soak::masterFor(const Deployment &d, const QByteArray &key)
{
    if (d.name == QLatin1String("cluster")) {
        const int master = m_cluster->masterOf(keyHashSlot(key));
        return master >= 0 ? m_cluster->node(master).port() : 0;
    }
    return masterPorts(d).value(0);
}

bool tst_Soak::plantAction(Deployment &d)
{
    d.actionToken = QString::fromLatin1(newToken(m_rng));
    const quint16 port = masterFor(d, ActionKey);
    const QStringList args{QStringLiteral("-p"), QString::number(port)};
    // Then WAIT: a lock the master took but no replica has could vanish in
    // the next fault's failover, which would look like a release that ran.
    const QByteArray input
        = "SET " + ActionKey + ' ' + d.actionToken.toLatin1() + " PX 600000\nWAIT 1 2000\n";
    const QList<QByteArray> replies = redisCli(args, input).out.split('\n');
    d.actionReplicated
        = d.name == QLatin1String("proxy") || replies.value(1).trimmed().toInt() >= 1;
    return replies.value(0).trimmed() == "OK";
}

// A queue with one job waiting and one in flight (the one the CLI requeues),
// then WAIT as for the lock.
bool tst_Soak::plantJob(Deployment &d)
{
    d.actionJob = QStringLiteral("job-%1").arg(m_rng.generate64(), 0, 16);
    const quint16 port = masterFor(d, JobQueueKey);
    const QByteArray input = "DEL " + JobQueueKey + ' ' + JobProcessingKey + "\nRPUSH "
                             + JobQueueKey + " waiting-job\nRPUSH " + JobProcessingKey + ' '
                             + d.actionJob.toLatin1() + "\nWAIT 1 2000\n";
    const QList<QByteArray> replies
        = redisCli({QStringLiteral("-p"), QString::number(port)}, input).out.split('\n');
    d.jobReplicated = d.name == QLatin1String("proxy") || replies.value(3).trimmed().toInt() >= 1;
    return replies.value(2).trimmed() == "1";
}

// Where the job is now on the master of its slot: copies in the queue and in
// the processing list (both lists hold at most two entries).
bool tst_Soak::readJob(const Deployment &d, const QString &job, int *inQueue, int *inProcessing)
{
    for (int attempt = 0; attempt < 5; ++attempt) {
        const quint16 port = masterFor(d, JobQueueKey);
        if (port == 0) {
            QTest::qWait(500);
            continue;
        }
        const Cli queue = nodeCli(port, {QStringLiteral("LRANGE"), QString::fromLatin1(JobQueueKey),
                                         QStringLiteral("0"), QStringLiteral("-1")});
        const Cli processing
            = nodeCli(port, {QStringLiteral("LRANGE"), QString::fromLatin1(JobProcessingKey),
                             QStringLiteral("0"), QStringLiteral("-1")});
        if (queue.exitCode != 0 || processing.exitCode != 0 || queue.out.startsWith("MOVED")
            || processing.out.startsWith("MOVED")) {
            QTest::qWait(500);
            continue;
        }
        const auto count = [&job](const QByteArray &out) {
            int n = 0;
            for (const QByteArray &line : out.split('\n'))
                n += line.trimmed() == job.toLatin1() ? 1 : 0;
            return n;
        };
        *inQueue = count(queue.out);
        *inProcessing = count(processing.out);
        return true;
    }
    return false;
}

// A job requeue started during the fault: the job is where it was (in
// flight) or where the reply says (back in the queue), exactly once.
QString tst_Soak::jobOutcome(const ActionRun &run, int code, const QString &err, bool *violation)
{
    const auto d = std::find_if(m_deployments.begin(), m_deployments.end(),
                                [&run](const Deployment &x) { return x.name == run.deployment; });
    int inQueue = 0;
    int inProcessing = 0;
    if (d == m_deployments.end() || !readJob(*d, run.job, &inQueue, &inProcessing)) {
        m_failures
            << QStringLiteral("%1: where job %2 is could not be read").arg(run.deployment, run.job);
        return QStringLiteral("job requeue: truth not read");
    }
    const int copies = inQueue + inProcessing;
    const QString where = inQueue == 1 && inProcessing == 0   ? QStringLiteral("in the queue")
                          : inProcessing == 1 && inQueue == 0 ? QStringLiteral("in flight")
                          : copies == 0                       ? QStringLiteral("gone")
                                        : QStringLiteral("%1 copies").arg(copies);
    // Never two copies; never gone once a replica had it (a failover may
    // lose a plant no replica had yet: said so, not counted).
    *violation = copies > 1 || (copies == 0 && run.replicated);
    QString outcome;
    if (code == 0) {
        outcome = QStringLiteral("job requeued: %1").arg(where);
        if (inProcessing == 1 && inQueue == 0)
            outcome += QStringLiteral(" (requeue lost by failover)");
    } else if (code == 3) {
        outcome = QStringLiteral("job not requeued: %1").arg(where);
        *violation = *violation || inQueue > 0; // refused, yet moved
    } else if (err.contains(QLatin1String("may or may not have run"))) {
        outcome = QStringLiteral("job requeue may or may not have run: %1").arg(where);
    } else {
        outcome = QStringLiteral("job requeue failed: %1").arg(where);
        *violation = *violation || inQueue > 0; // "failed" means nothing ran
    }
    if (copies == 0 && !run.replicated)
        outcome += QStringLiteral(" (planted before the fault, not yet on a replica)");
    return outcome;
}

void tst_Soak::startAction(const QString &deployment)
{
    const auto start = [this](ActionRun run, const QStringList &args) {
        run.process = std::make_unique<QProcess>();
        run.process->setChildProcessModifier([] { ::prctl(PR_SET_PDEATHSIG, SIGTERM); });
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove(QStringLiteral("REDISCLI_AUTH"));
        run.process->setProcessEnvironment(env);
        run.process->start(QStringLiteral(GATEHOUSE_CLI), args);
        m_actions.push_back(std::move(run));
    };
    for (Deployment &d : m_deployments) {
        if (d.name != deployment || d.actionToken.isEmpty())
            continue;
        start({nullptr, d.name, d.actionToken, {}, d.actionReplicated},
              {QStringLiteral("--url"), d.url, QStringLiteral("lock"), QStringLiteral("release"),
               QString::fromLatin1(ActionKey), QStringLiteral("--token"), d.actionToken});
        if (!d.actionJob.isEmpty())
            start({nullptr, d.name, {}, d.actionJob, d.jobReplicated},
                  {QStringLiteral("--url"), d.url, QStringLiteral("queue"),
                   QStringLiteral("requeue"), QString::fromLatin1(JobQueueKey),
                   QStringLiteral("--job"), d.actionJob});
    }
}

// The actions started during the fault: every lock where it was (the same
// token) or where the reply says (gone after "released"), never another token;
// every job once, where it was or where the reply says (jobOutcome).
void tst_Soak::finishActions(const QHash<QString, QHash<QString, QString>> &truths)
{
    for (ActionRun &run : m_actions) {
        QProcess &p = *run.process;
        waitUntil([&] { return p.state() == QProcess::NotRunning; }, 60000);
        const int code = p.state() == QProcess::NotRunning && p.exitStatus() == QProcess::NormalExit
                             ? p.exitCode()
                             : -1;
        const QString err = QString::fromUtf8(p.readAllStandardError() + p.readAllStandardOutput());
        if (code == -1) {
            p.kill();
            p.waitForFinished(5000);
        }
        if (!run.job.isEmpty()) {
            bool violation = false;
            QString outcome = jobOutcome(run, code, err, &violation);
            if (violation) {
                ++m_actionViolations;
                outcome += QStringLiteral(" VIOLATION");
                m_failures << QStringLiteral("%1: job requeue exit %2 left job %3 %4: %5")
                                  .arg(run.deployment)
                                  .arg(code)
                                  .arg(run.job, outcome, err.trimmed());
            }
            ++m_actionOutcomes[outcome];
            qInfo("soak:   action on %s: job requeue exit %d -> %s (%s)",
                  qPrintable(run.deployment), code, qPrintable(outcome),
                  qPrintable(err.trimmed().section(QLatin1Char('\n'), 0, 0)));
            continue;
        }
        const QHash<QString, QString> &truth = truths.value(run.deployment);
        const QString key = QString::fromLatin1(ActionKey);
        const bool present = truth.contains(key);
        const bool same = present && truth.value(key) == run.token;
        QString outcome;
        bool violation = present && !same;
        if (code == 0) {
            outcome = same ? QStringLiteral("released, lock still held (release lost by failover)")
                           : QStringLiteral("released, gone");
        } else if (code == 3) {
            outcome = QStringLiteral("not released, lock held");
            violation = violation || !present;
        } else if (err.contains(QLatin1String("may or may not have run"))) {
            outcome = same ? QStringLiteral("may or may not have run: held")
                           : QStringLiteral("may or may not have run: gone");
        } else {
            outcome = QStringLiteral("failed (exit %1): %2")
                          .arg(code)
                          .arg(same ? QStringLiteral("held") : QStringLiteral("gone"));
            // "Failed" means nothing ran: a lock gone that a replica had is
            // a release that ran and was reported as not run.
            if (!same && !present && run.replicated)
                violation = true;
            else if (!same && !present)
                outcome += QStringLiteral(" (set before the fault, not yet on a replica)");
        }
        if (violation) {
            ++m_actionViolations;
            outcome += QStringLiteral(" VIOLATION");
            m_failures << QStringLiteral("%1: lock release exit %2 left %3 (token %4, expected %5 "
                                         "or gone): %6")
                              .arg(run.deployment)
                              .arg(code)
                              .arg(key, truth.value(key), run.token, err.trimmed());
        }
        ++m_actionOutcomes[outcome];
        qInfo("soak:   action on %s: lock release exit %d -> %s (%s)", qPrintable(run.deployment),
              code, qPrintable(outcome),
              qPrintable(err.trimmed().section(QLatin1Char('\n'), 0, 0)));
    }
    m_actions.clear();
}

// Pauses every writer, reads the truth from every master, notes T0 and
// compares each watch's first line printed at least BoundMs after T0; then
// follows each watch until it equals the truth (at most ConvergeMs).
QList<Check> tst_Soak::checkAll()
{
    for (Deployment &d : m_deployments)
        d.writer->setPaused(true);
    QList<Check> checks;
    QHash<QString, QHash<QString, QString>> truths;
    const bool idle = waitUntil(
        [&] {
            return std::all_of(m_deployments.cbegin(), m_deployments.cend(),
                               [](const Deployment &d) { return d.writer->idle(); });
        },
        30000);
    if (!idle)
        m_failures << QStringLiteral("a writer did not finish its last write within 30 s");
    for (Deployment &d : m_deployments) {
        QHash<QString, QString> truth;
        bool read = false;
        for (int attempt = 0; attempt < 5 && !read; ++attempt) {
            truth.clear();
            const QList<quint16> ports = masterPorts(d);
            read = !ports.isEmpty();
            for (quint16 port : ports)
                read = read && readLocks(port, &truth);
        }
        if (!read)
            m_failures << QStringLiteral("%1: the truth could not be read").arg(d.name);
        truths.insert(d.name, truth);
    }
    QElapsedTimer t0;
    t0.start();
    QList<qsizetype> boundLine;
    for (Deployment &d : m_deployments) {
        d.watch->poll();
        Check c;
        c.deployment = d.name;
        checks << c;
        boundLine << -1;
    }
    const auto compare
        = [&](const QJsonObject &line, const QHash<QString, QString> &truth, Check *c) {
              QHash<QString, QString> shown;
              int stale = 0;
              for (const QJsonValue &v : line.value(QLatin1String("locks")).toArray()) {
                  const QJsonObject o = v.toObject();
                  const QString key = o.value(QLatin1String("key")).toString();
                  if (!key.startsWith(QLatin1String("lock:soak:"))
                      || o.value(QLatin1String("gone")).toBool())
                      continue;
                  shown.insert(key, o.value(QLatin1String("token")).toString());
                  if (o.value(QLatin1String("stale")).toBool())
                      ++stale;
              }
              int lost = 0;
              int invented = 0;
              QStringList detail;
              for (auto it = truth.cbegin(); it != truth.cend(); ++it) {
                  if (!shown.contains(it.key())) {
                      ++lost;
                      detail << QStringLiteral("lost %1").arg(it.key());
                  }
              }
              for (auto it = shown.cbegin(); it != shown.cend(); ++it) {
                  if (truth.value(it.key()) != it.value()) {
                      ++invented;
                      detail << QStringLiteral("%1 shown %2, holds %3")
                                    .arg(it.key(), it.value(),
                                         truth.value(it.key(), QStringLiteral("nothing")));
                  }
              }
              if (c) {
                  c->lost = lost;
                  c->invented = invented;
                  c->stale = stale;
                  c->detail = detail.mid(0, 6).join(QStringLiteral("; "));
              }
              return lost == 0 && invented == 0 && stale == 0;
          };
    // The bound line of each watch, and the first exact line.
    waitUntil(
        [&] {
            bool pending = false;
            for (size_t i = 0; i < m_deployments.size(); ++i) {
                Deployment &d = m_deployments[i];
                Check &c = checks[i];
                const qsizetype before = d.watch->snapshots().size();
                d.watch->poll();
                const QList<QJsonObject> &lines = d.watch->snapshots();
                const QHash<QString, QString> &truth = truths.value(d.name);
                for (qsizetype l = before; l < lines.size(); ++l) {
                    if (c.firstEqualMs < 0 && compare(lines.at(l), truth, nullptr))
                        c.firstEqualMs = t0.elapsed();
                    if (boundLine.at(i) < 0 && t0.elapsed() >= BoundMs) {
                        boundLine[i] = l;
                        c.exact = compare(lines.at(l), truth, &c);
                    }
                }
                if (boundLine.at(i) < 0 || (!c.exact && c.firstEqualMs < 0))
                    pending = true;
            }
            return !pending;
        },
        ConvergeMs);
    for (size_t i = 0; i < m_deployments.size(); ++i) {
        Check &c = checks[i];
        c.convergedLater = !c.exact && c.firstEqualMs >= 0;
        if (c.firstEqualMs < 0 && c.detail.isEmpty())
            c.detail = QStringLiteral("no line printed");
        if (!c.exact)
            c.detail
                += QStringLiteral(" | last line: ") + whereShown(m_deployments[i].watch->latest());
    }
    finishActions(truths);
    // The action lock back for the next fault (the writers stay paused).
    for (Deployment &d : m_deployments) {
        if (!truths.value(d.name).contains(QString::fromLatin1(ActionKey))
            || truths.value(d.name).value(QString::fromLatin1(ActionKey)) != d.actionToken)
            plantAction(d);
        plantJob(d); // a new job in flight for the next fault
    }
    for (Deployment &d : m_deployments)
        d.writer->setPaused(false);
    return checks;
}

bool tst_Soak::inject(Fault fault, QString *name, QString *deployment)
{
    const auto pick = [this](const QList<quint16> &ports) {
        return ports.value(int(m_rng.bounded(int(std::max<qsizetype>(1, ports.size())))));
    };
    switch (fault) {
    case Fault::SentinelFailover: {
        *name = QStringLiteral("sentinel.failover");
        *deployment = QStringLiteral("sentinel");
        startAction(*deployment);
        return m_sentinel->failover() >= 0;
    }
    case Fault::SentinelKillMaster: {
        *name = QStringLiteral("sentinel.kill-master");
        *deployment = QStringLiteral("sentinel");
        startAction(*deployment);
        const int killed = m_sentinel->killMaster();
        if (killed < 0)
            return false;
        const int promoted = m_sentinel->waitNewMaster(killed, 30000);
        // Back, as a replica of the new master (the sentinels turn it).
        return m_sentinel->node(killed).start() && promoted >= 0;
    }
    case Fault::ClusterFailover: {
        *name = QStringLiteral("cluster.failover");
        *deployment = QStringLiteral("cluster");
        QList<int> replicas;
        for (int i = 0; i < m_cluster->size(); ++i) {
            if (nodeCli(m_cluster->node(i).port(), {QStringLiteral("ROLE")})
                    .out.startsWith("slave"))
                replicas << i;
        }
        if (replicas.isEmpty())
            return false;
        const int r = replicas.at(int(m_rng.bounded(int(replicas.size()))));
        startAction(*deployment);
        if (nodeCli(m_cluster->node(r).port(),
                    {QStringLiteral("CLUSTER"), QStringLiteral("FAILOVER")})
                .out
            != "OK")
            return false;
        return waitUntil(
            [&] {
                return nodeCli(m_cluster->node(r).port(), {QStringLiteral("ROLE")})
                    .out.startsWith("master");
            },
            20000);
    }
    case Fault::ClusterKillMaster: {
        // A master crashes (SIGKILL): its replica is promoted once the others
        // mark it failed (cluster-node-timeout 1 s); it comes back as a replica.
        *name = QStringLiteral("cluster.kill-master");
        *deployment = QStringLiteral("cluster");
        // Only with every replica in sync: a master whose replica still
        // resyncs after an earlier kill could not fail over.
        const QList<int> masters = m_cluster->masters();
        if (masters.size() < 3 || !m_cluster->replicasInSync())
            return false;
        const int victim = masters.at(int(m_rng.bounded(int(masters.size()))));
        startAction(*deployment);
        m_cluster->node(victim).kill();
        const bool promoted = waitUntil(
            [&] {
                const QList<int> now = m_cluster->masters();
                return now.size() >= 3 && !now.contains(victim);
            },
            30000);
        return m_cluster->node(victim).start() && promoted;
    }
    case Fault::ClusterReshard: {
        *name = QStringLiteral("cluster.reshard");
        *deployment = QStringLiteral("cluster");
        QList<quint16> masters = masterPorts(m_deployments[1]);
        if (masters.size() < 2)
            return false;
        const quint16 from = masters.takeAt(int(m_rng.bounded(int(masters.size()))));
        const quint16 to = pick(masters);
        const QByteArray fromId
            = nodeCli(from, {QStringLiteral("CLUSTER"), QStringLiteral("MYID")}).out;
        const QByteArray toId
            = nodeCli(to, {QStringLiteral("CLUSTER"), QStringLiteral("MYID")}).out;
        const int slotCount = 5 + int(m_rng.bounded(20));
        startAction(*deployment);
        const Cli run
            = redisCli({QStringLiteral("--cluster"), QStringLiteral("reshard"),
                        QStringLiteral("127.0.0.1:%1").arg(from), QStringLiteral("--cluster-from"),
                        QString::fromLatin1(fromId), QStringLiteral("--cluster-to"),
                        QString::fromLatin1(toId), QStringLiteral("--cluster-slots"),
                        QString::number(slotCount), QStringLiteral("--cluster-yes")},
                       {}, 120000);
        if (run.exitCode != 0) {
            // Leave no slot half-moved for the next fault.
            redisCli({QStringLiteral("--cluster"), QStringLiteral("fix"),
                      QStringLiteral("127.0.0.1:%1").arg(from), QStringLiteral("--cluster-yes")},
                     {}, 120000);
            return false;
        }
        return true;
    }
    case Fault::PubsubKill:
    case Fault::EventsOff:
    case Fault::DebugSleep: {
        const bool onSentinel = m_rng.bounded(2) == 0;
        Deployment &d = m_deployments[onSentinel ? 0 : 1];
        *deployment = d.name;
        const quint16 port = pick(masterPorts(d));
        if (port == 0)
            return false;
        startAction(*deployment);
        if (fault == Fault::PubsubKill) {
            *name = d.name + QStringLiteral(".pubsub-kill");
            return nodeCli(port, {QStringLiteral("CLIENT"), QStringLiteral("KILL"),
                                  QStringLiteral("TYPE"), QStringLiteral("pubsub")})
                       .exitCode
                   == 0;
        }
        if (fault == Fault::EventsOff) {
            *name = d.name + QStringLiteral(".events-off");
            const QStringList set{QStringLiteral("CONFIG"), QStringLiteral("SET"),
                                  QStringLiteral("notify-keyspace-events")};
            if (nodeCli(port, set + QStringList{QString()}).out != "OK")
                return false;
            QTest::qWait(2000 + int(m_rng.bounded(3000)));
            return nodeCli(port, set + QStringList{QStringLiteral("KEA")}).out == "OK";
        }
        *name = d.name + QStringLiteral(".debug-sleep");
        return nodeCli(port,
                       {QStringLiteral("DEBUG"), QStringLiteral("SLEEP"), QStringLiteral("2")})
                   .out
               == "OK";
    }
    case Fault::ProxyStall:
        *name = QStringLiteral("proxy.stall");
        *deployment = QStringLiteral("proxy");
        startAction(*deployment);
        m_proxy->setStalled(true);
        QTest::qWait(1000 + int(m_rng.bounded(4000)));
        m_proxy->setStalled(false);
        return true;
    }
    return false;
}

void tst_Soak::soak()
{
    const qint64 seconds = envNumber("GATEHOUSE_SOAK_SECONDS", 60);
    const qint64 minFaults = envNumber("GATEHOUSE_SOAK_FAULTS", FaultTypes);
    qInfo("soak: at least %lld s and %lld faults", seconds, minFaults);
    QElapsedTimer clock;
    clock.start();
    int faults = 0;
    QList<Fault> round;
    while (clock.elapsed() < seconds * 1000 || faults < minFaults) {
        // Each round: every type once, in a seeded random order.
        if (round.isEmpty()) {
            for (int t = 0; t < FaultTypes; ++t)
                round.insert(int(m_rng.bounded(int(round.size()) + 1)), Fault(t));
        }
        const Fault fault = round.takeFirst();
        QString name;
        QString deployment;
        QElapsedTimer faultClock;
        faultClock.start();
        const bool injected = inject(fault, &name, &deployment);
        if (injected)
            ++m_injected[name];
        else
            ++m_notInjected[name];
        // Healthy again, writes succeed, two seconds of writes.
        for (Deployment &d : m_deployments) {
            if (!healthy(d, 90000))
                m_failures << QStringLiteral("%1 not healthy 90 s after %2").arg(d.name, name);
        }
        if (!waitWritesResume(60000))
            m_failures << QStringLiteral("writes did not resume after %1").arg(name);
        QTest::qWait(2000);
        const QList<Check> checks = checkAll();
        bool survived = true;
        for (const Check &c : checks) {
            ++m_checks;
            m_lost += c.lost;
            m_invented += c.invented;
            m_stale += c.stale;
            if (c.firstEqualMs >= 0)
                m_longestMs = std::max(m_longestMs, c.firstEqualMs);
            if (!c.exact) {
                survived = false;
                ++m_pastBound;
                if (c.firstEqualMs < 0)
                    ++m_neverConverged;
                m_failures
                    << QStringLiteral("after %1 (fault %2): %3 at %4 ms: %5 lost, %6 "
                                      "invented, %7 stale; %8 (%9)")
                           .arg(name)
                           .arg(faults + 1)
                           .arg(c.deployment)
                           .arg(BoundMs)
                           .arg(c.lost)
                           .arg(c.invented)
                           .arg(c.stale)
                           .arg(c.convergedLater
                                    ? QStringLiteral("exact %1 ms after T0").arg(c.firstEqualMs)
                                    : QStringLiteral("not exact within %1 ms").arg(ConvergeMs),
                                c.detail);
            }
        }
        if (injected && survived)
            ++m_survived;
        ++faults;
        if (!survived) {
            // Printed now: a run cut by CTest's timeout still shows what differed.
            for (const Check &c : checks) {
                if (c.exact)
                    continue;
                QStringList events;
                for (const Deployment &d : std::as_const(m_deployments)) {
                    if (d.name != c.deployment)
                        continue;
                    for (const QJsonObject &e : d.watch->allEvents().mid(
                             std::max<qsizetype>(0, d.watch->allEvents().size() - 8)))
                        events << QString::fromUtf8(
                            QJsonDocument(e).toJson(QJsonDocument::Compact));
                }
                qWarning("soak: fault %d %s: %s not exact: %s\nsoak:   its last events: %s", faults,
                         qPrintable(name), qPrintable(c.deployment), qPrintable(c.detail),
                         qPrintable(events.join(QStringLiteral("\nsoak:     "))));
            }
        }
        QStringList figures;
        for (const Check &c : checks)
            figures << QStringLiteral("%1 %2").arg(
                c.deployment, c.exact ? QStringLiteral("exact@%1ms").arg(c.firstEqualMs)
                                      : QStringLiteral("DIFFERENT"));
        qInfo("soak: fault %d %s%s (%lld ms): %s", faults, qPrintable(name),
              injected ? "" : " (not injected)", faultClock.elapsed(),
              qPrintable(figures.join(QStringLiteral(", "))));
        // A watch that never equalled the truth will not be told apart by more faults,
        // and each further check would wait ConvergeMs: end here with the summary.
        if (std::any_of(checks.cbegin(), checks.cend(),
                        [](const Check &c) { return c.firstEqualMs < 0; })) {
            m_failures << QStringLiteral("the run ended after fault %1: a watch never equalled "
                                         "the truth")
                              .arg(faults);
            break;
        }
    }

    // The summary, and one machine-readable line.
    QJsonObject byType;
    int injectedTotal = 0;
    for (auto it = m_injected.cbegin(); it != m_injected.cend(); ++it) {
        byType.insert(it.key(), it.value());
        injectedTotal += it.value();
    }
    QJsonObject notInjected;
    for (auto it = m_notInjected.cbegin(); it != m_notInjected.cend(); ++it)
        notInjected.insert(it.key(), it.value());
    QJsonObject actions;
    int actionsTotal = 0;
    for (auto it = m_actionOutcomes.cbegin(); it != m_actionOutcomes.cend(); ++it) {
        actions.insert(it.key(), it.value());
        actionsTotal += it.value();
    }
    qint64 writes = 0;
    qint64 writeFailures = 0;
    for (const Deployment &d : std::as_const(m_deployments)) {
        writes += d.writer->succeeded();
        writeFailures += d.writer->failed();
    }
    const QJsonObject summary{
        {QStringLiteral("seed"), qint64(m_seed)},
        {QStringLiteral("seconds"), clock.elapsed() / 1000},
        {QStringLiteral("faults"), injectedTotal},
        {QStringLiteral("faultsByType"), byType},
        {QStringLiteral("notInjected"), notInjected},
        {QStringLiteral("survived"), m_survived},
        {QStringLiteral("checks"), m_checks},
        {QStringLiteral("boundMs"), BoundMs},
        {QStringLiteral("longestDifferentMs"), m_longestMs},
        {QStringLiteral("pastBound"), m_pastBound},
        {QStringLiteral("neverConverged"), m_neverConverged},
        {QStringLiteral("lost"), m_lost},
        {QStringLiteral("invented"), m_invented},
        {QStringLiteral("stale"), m_stale},
        {QStringLiteral("actions"), actionsTotal},
        {QStringLiteral("actionOutcomes"), actions},
        {QStringLiteral("actionViolations"), m_actionViolations},
        {QStringLiteral("writes"), writes},
        {QStringLiteral("writesRefused"), writeFailures},
    };
    qInfo("soak: ---- summary (seed %u) ----", m_seed);
    qInfo("soak: %lld s, %d faults injected, %d survived (every watch exact %d ms after the "
          "truth was read)",
          clock.elapsed() / 1000, injectedTotal, m_survived, BoundMs);
    for (auto it = m_injected.cbegin(); it != m_injected.cend(); ++it)
        qInfo("soak:   %-22s %d", qPrintable(it.key()), it.value());
    for (auto it = m_notInjected.cbegin(); it != m_notInjected.cend(); ++it)
        qInfo("soak:   %-22s %d refused by the deployment", qPrintable(it.key()), it.value());
    qInfo("soak: checks %d; longest shown different after the server was reachable: %lld ms; "
          "past the bound %d (never converged %d)",
          m_checks, m_longestMs, m_pastBound, m_neverConverged);
    qInfo("soak: objects lost %d, invented %d, stale %d (at the bound line)", m_lost, m_invented,
          m_stale);
    qInfo("soak: actions %d, violations %d", actionsTotal, m_actionViolations);
    for (auto it = m_actionOutcomes.cbegin(); it != m_actionOutcomes.cend(); ++it)
        qInfo("soak:   %-52s %d", qPrintable(it.key()), it.value());
    qInfo("soak: writes %lld acknowledged, %lld refused or lost in faults", writes, writeFailures);
    qInfo("SOAK %s", QJsonDocument(summary).toJson(QJsonDocument::Compact).constData());

    QVERIFY2(m_failures.isEmpty(), qPrintable(m_failures.join(QLatin1Char('\n'))));
    QCOMPARE(m_pastBound, 0);
    QCOMPARE(m_lost, 0);
    QCOMPARE(m_invented, 0);
    QCOMPARE(m_actionViolations, 0);
    QVERIFY(injectedTotal > 0);
}

int main(int argc, char **argv)
{
    // The run is one test function: Qt Test's watchdog (5 minutes by
    // default, QTEST_FUNCTION_TIMEOUT in ms) waits for the whole of it.
    if (!qEnvironmentVariableIsSet("QTEST_FUNCTION_TIMEOUT"))
        qputenv("QTEST_FUNCTION_TIMEOUT",
                QByteArray::number((2 * envNumber("GATEHOUSE_SOAK_SECONDS", 60) + 900) * 1000));
    QCoreApplication app(argc, argv);
    tst_Soak test;
    QTEST_SET_MAIN_SOURCE_PATH
    return QTest::qExec(&test, argc, argv);
}
#include "tst_soak.moc"
