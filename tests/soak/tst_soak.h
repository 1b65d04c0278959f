// SPDX-License-Identifier: MIT
// The soak's test class: its deployments, the faults it injects, the actions
// it starts during them and the figures it keeps.
#pragma once

#include "soakkit.h"

#include <monitor/monitor.h>
#include <redis/redisclient.h>

#include "rediscluster.h"
#include "redissentinel.h"
#include "redisserver.h"
#include "tcpproxy.h"
#include "watchprocess.h"

#include <QList>
#include <QMap>
#include <QObject>
#include <QRandomGenerator>

#include <memory>
#include <vector>

using namespace gatehouse;
using namespace gatehouse::test::soak;
using gatehouse::test::RedisCluster;
using gatehouse::test::RedisSentinel;
using gatehouse::test::RedisServer;
using gatehouse::test::TcpProxy;
using gatehouse::test::waitUntil;
using gatehouse::test::WatchProcess;

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
        // The window's own reading: a Monitor as the console runs it (no
        // profile, the same interval), on a connection of its own.
        std::unique_ptr<RedisClient> consoleClient;
        std::unique_ptr<Monitor> console;
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
