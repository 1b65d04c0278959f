// SPDX-License-Identifier: MIT
#include "simulatecommand.h"

#include "exitcodes.h"

#include <QTextStream>

#include <algorithm>

namespace gatehouse::cli {

SimulateCommand::SimulateCommand(const RedisEndpoint &endpoint, Simulator::Options options,
                                 bool json, bool allowNonEmpty, QObject *parent)
    : Session(endpoint, parent)
    , m_simulator(&client(), options)
    , m_preflight(&client(), options.prefix)
    , m_prefix(options.prefix)
    , m_json(json)
    , m_allowNonEmpty(allowNonEmpty)
{
    connect(&m_preflight, &SimulatorPreflight::finished, this,
            [this](const SimulatorPreflight::Verdict &verdict) {
                if (verdict.own) {
                    m_simulator.start();
                    return;
                }
                // Could not check: a failure (1); foreign keys: refused (3).
                fail(verdict.refusal(client().endpoint().displayUrl(), client().endpoint().db,
                                     m_prefix),
                     verdict.error.isEmpty() ? ExitNothingDone : ExitFailure);
            });
    connect(&m_simulator, &Simulator::finished, this, &SimulateCommand::report);
    connect(&m_simulator, &Simulator::failed, this, [this](const QString &message) {
        fail(QStringLiteral("simulate against %1 failed: %2")
                 .arg(client().endpoint().displayUrl(), message));
    });
}

void SimulateCommand::onReady()
{
    if (m_allowNonEmpty)
        m_simulator.start();
    else
        m_preflight.start(); // reads only; the simulator starts if the database is its own
}

void SimulateCommand::report(const SimulatorCensus &census)
{
    if (isDone())
        return;
    QTextStream out(stdout);
    if (m_json) {
        out << census.toJson();
    } else {
        out << "Simulated traffic against " << client().endpoint().displayUrl();
        if (const Topology &t = client().topology(); t.isCluster())
            out << " (a Cluster of " << t.masters().size() << " masters, keys hash-tagged)";
        out << " (" << census.commands << " requests, " << census.failedCommands
            << " failed). Left in Redis:\n";
        qsizetype width = 0; // the longest pattern id, and two spaces
        for (auto it = census.objects.cbegin(); it != census.objects.cend(); ++it)
            width = std::max(width, it.key().size() + 2);
        for (auto it = census.objects.cbegin(); it != census.objects.cend(); ++it) {
            out << "  " << qSetFieldWidth(int(width)) << Qt::left << it.key() << qSetFieldWidth(0)
                << it.value().size();
            const qsizetype shown = std::min<qsizetype>(3, it.value().size());
            for (qsizetype i = 0; i < shown; ++i)
                out << (i == 0 ? "  e.g. " : ", ") << QString::fromUtf8(it.value().at(i));
            // The pattern whose objects are the counted token families
            // (their prefixes) gets the live token counts.
            const bool counted
                = std::any_of(it.value().cbegin(), it.value().cend(), [&](const QByteArray &k) {
                      return census.tokenCounts.contains(QString::fromUtf8(k));
                  });
            if (counted) {
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
    if (census.failedCommands > 0) {
        // Every failed request counts: a Cluster node down, a refused
        // script. The run is not a success.
        fail(QStringLiteral("%1 of %2 requests against %3 failed; the first: %4")
                 .arg(census.failedCommands)
                 .arg(census.commands)
                 .arg(client().endpoint().displayUrl(), census.firstError));
        return;
    }
    done(ExitOk);
}

} // namespace gatehouse::cli
