// SPDX-License-Identifier: MIT
#pragma once

#include "session.h"

#include <sim/simulator.h>
#include <sim/simulatorpreflight.h>

namespace gatehouse::cli {

// `gatehouse-cli simulate`: run the traffic simulator against --url for
// --seconds, then print what it left (keys per pattern; JSON with --json).
class SimulateCommand : public Session
{
    Q_OBJECT
public:
    // allowNonEmpty: write even into a database holding keys other than
    // the simulator's (SimulatorPreflight); otherwise that is refused
    // before anything is written.
    SimulateCommand(const RedisEndpoint &endpoint, Simulator::Options options, bool json,
                    bool allowNonEmpty, QObject *parent = nullptr);

protected:
    void onReady() override;

private:
    void report(const SimulatorCensus &census);

    Simulator m_simulator;
    SimulatorPreflight m_preflight;
    QByteArray m_prefix;
    bool m_json = false;
    bool m_allowNonEmpty = false;
};

} // namespace gatehouse::cli
