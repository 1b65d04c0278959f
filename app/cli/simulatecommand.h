// SPDX-License-Identifier: MIT
#pragma once

#include <redis/redisclient.h>
#include <sim/simulator.h>

#include <QObject>

namespace gatehouse::cli {

// `gatehouse-cli simulate`: run the traffic simulator against --url for
// --seconds, then print what it left (keys per pattern; JSON with --json).
class SimulateCommand : public QObject
{
    Q_OBJECT
public:
    SimulateCommand(const RedisEndpoint &endpoint, Simulator::Options options, bool json,
                    QObject *parent = nullptr);
    void start();

Q_SIGNALS:
    void finished(int exitCode);

private:
    void report(const SimulatorCensus &census);
    void fail(const QString &message);

    RedisClient m_client;
    Simulator m_simulator;
    bool m_json = false;
    bool m_done = false;
};

} // namespace gatehouse::cli
