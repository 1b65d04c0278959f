// SPDX-License-Identifier: MIT
#pragma once

#include "session.h"

#include <sim/simulator.h>

namespace gatehouse::cli {

// `gatehouse-cli simulate`: run the traffic simulator against --url for
// --seconds, then print what it left (keys per pattern; JSON with --json).
class SimulateCommand : public Session
{
    Q_OBJECT
public:
    SimulateCommand(const RedisEndpoint &endpoint, Simulator::Options options, bool json,
                    QObject *parent = nullptr);

protected:
    void onReady() override;

private:
    void report(const SimulatorCensus &census);

    Simulator m_simulator;
    bool m_json = false;
};

} // namespace gatehouse::cli
