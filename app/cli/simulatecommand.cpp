// SPDX-License-Identifier: MIT
#include "simulatecommand.h"

#include "exitcodes.h"

#include <QTextStream>

namespace gatehouse::cli {

SimulateCommand::SimulateCommand(const RedisEndpoint &endpoint, Simulator::Options options,
                                 bool json, QObject *parent)
    : QObject(parent)
    , m_client(endpoint)
    , m_simulator(&m_client, std::move(options))
    , m_json(json)
{
    m_client.setAutoReconnect(false);
    connect(&m_client, &RedisClient::stateChanged, this,
            [this](RedisConnection::State state, const QString &message) {
                if (state == RedisConnection::State::Failed)
                    fail(message);
            });
    connect(&m_client, &RedisClient::ready, this, [this] { m_simulator.start(); });
    connect(&m_simulator, &Simulator::finished, this, &SimulateCommand::report);
    connect(&m_simulator, &Simulator::failed, this, &SimulateCommand::fail);
}

void SimulateCommand::start()
{
    m_client.open();
}

void SimulateCommand::fail(const QString &message)
{
    if (m_done)
        return;
    m_done = true;
    QTextStream(stderr) << "gatehouse-cli: simulate against " << m_client.endpoint().displayUrl()
                        << " failed: " << message << Qt::endl;
    Q_EMIT finished(ExitFailure);
}

void SimulateCommand::report(const SimulatorCensus &census)
{
    if (m_done)
        return;
    m_done = true;
    QTextStream out(stdout);
    if (m_json) {
        out << census.toJson();
    } else {
        out << "Simulated traffic against " << m_client.endpoint().displayUrl() << " ("
            << census.commands << " requests). Left in Redis:\n";
        for (auto it = census.objects.cbegin(); it != census.objects.cend(); ++it) {
            out << "  " << qSetFieldWidth(18) << Qt::left << it.key() << qSetFieldWidth(0)
                << it.value().size();
            const qsizetype shown = std::min<qsizetype>(3, it.value().size());
            for (qsizetype i = 0; i < shown; ++i)
                out << (i == 0 ? "  e.g. " : ", ") << QString::fromUtf8(it.value().at(i));
            if (it.key() == QLatin1String("token-family")) {
                out << "  (";
                bool first = true;
                for (auto t = census.tokenCounts.cbegin(); t != census.tokenCounts.cend(); ++t) {
                    out << (first ? "" : ", ") << t.key() << "* " << t.value() << " live";
                    first = false;
                }
                out << ')';
            }
            out << '\n';
        }
    }
    out.flush();
    Q_EMIT finished(ExitOk);
}

} // namespace gatehouse::cli
