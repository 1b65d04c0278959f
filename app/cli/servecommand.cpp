// SPDX-License-Identifier: MIT
#include "servecommand.h"

#include "exitcodes.h"
#include <history/historyfeed.h>

#include <QDateTime>
#include <QTextStream>

#include <csignal>
#include <sys/socket.h>
#include <unistd.h>

namespace gatehouse::cli {

namespace {

// SIGINT and SIGTERM reach the event loop through a socket pair: a signal
// handler may only write(2) (Qt's "Calling Qt Functions From Unix Signal
// Handlers").
int s_signalFds[2] = {-1, -1};

void onUnixSignal(int)
{
    const char c = 1;
    [[maybe_unused]] const auto n = ::write(s_signalFds[0], &c, 1);
}

} // namespace

ServeCommand::ServeCommand(const RedisEndpoint &endpoint, Monitor::Options monitorOptions,
                           Options options, QObject *parent)
    : Session(endpoint, parent)
    , m_monitorOptions(std::move(monitorOptions))
    , m_options(options)
{
    setReconnecting(true);
    MetricsExposition exposition;
    exposition.maxObjectsPerPattern = m_options.maxObjectsPerPattern;
    m_server.setExposition(exposition);
    if (::socketpair(AF_UNIX, SOCK_STREAM, 0, s_signalFds) == 0) {
        m_signals = std::make_unique<QSocketNotifier>(s_signalFds[1], QSocketNotifier::Read);
        connect(m_signals.get(), &QSocketNotifier::activated, this, &ServeCommand::onSignal);
        struct sigaction action = {};
        action.sa_handler = onUnixSignal;
        sigemptyset(&action.sa_mask);
        action.sa_flags = SA_RESTART;
        sigaction(SIGINT, &action, nullptr);
        sigaction(SIGTERM, &action, nullptr);
    }
    m_stopTimer.setSingleShot(true);
    connect(&m_stopTimer, &QTimer::timeout, this, [this] { done(ExitOk); });
}

ServeCommand::~ServeCommand()
{
    if (m_signals) {
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        m_signals.reset();
        ::close(s_signalFds[0]);
        ::close(s_signalFds[1]);
    }
}

bool ServeCommand::listen()
{
    QString error;
    if (!m_server.listen(m_options.address, m_options.allowRemote, &error)) {
        QTextStream(stderr) << "gatehouse-cli: " << error << Qt::endl;
        return false;
    }
    if (!MetricsServer::isLoopback(m_options.address.host))
        QTextStream(stderr) << "gatehouse-cli: warning: the metrics endpoint listens on "
                            << m_options.address.host.toString()
                            << ", not loopback: anyone who reaches this address reads the key "
                               "names and figures of this Redis."
                            << Qt::endl;
    // The first line on stdout is where to scrape (a port of 0 picked one).
    QTextStream(stdout) << "Serving metrics at " << m_server.url() << Qt::endl;
    if (m_options.seconds > 0)
        m_stopTimer.start(m_options.seconds * 1000);
    return true;
}

void ServeCommand::onSignal()
{
    char c = 0;
    [[maybe_unused]] const auto n = ::read(s_signalFds[1], &c, 1);
    m_server.close();
    done(ExitOk);
}

void ServeCommand::onReady()
{
    m_monitor = std::make_unique<Monitor>(&client(), m_monitorOptions);
    m_discovered = false;
    connect(m_monitor.get(), &Monitor::failed, this, [this](const QString &m) { fail(m); });
    connect(m_monitor.get(), &Monitor::discoveryFinished, this, [this](bool) {
        m_discovered = true;
        m_monitor->refreshNow();
    });
    // Every snapshot the monitor publishes (at most ten a second) replaces
    // the one served; a scrape renders the latest once.
    connect(m_monitor.get(), &Monitor::snapshotReady, &m_server, &MetricsServer::setSnapshot);
    connect(m_monitor.get(), &Monitor::tickOverdue, &m_server, &MetricsServer::setSnapshot);
    // The tick's cost, complete when it finished (the counters restart with
    // the next tick).
    connect(m_monitor.get(), &Monitor::tickFinished, this, [this] {
        m_server.setTickCost({m_monitor->lastTickWallMs(), m_monitor->lastTickCommands(),
                              m_monitor->lastTickRoundTrips(), m_monitor->lastTickObjectsRead()});
    });
    if (!m_options.historyFile.isEmpty()) {
        // As watch --history: what the console would chart, written on the
        // store's own thread. Opened once; after a reconnect the new
        // monitor's ticks go on into the same file.
        if (!m_history) {
            m_history
                = std::make_unique<HistoryStore>(m_options.historyFile, m_options.historyOptions);
            connect(m_history.get(), &HistoryStore::problem, this, [](const QString &message) {
                QTextStream(stderr) << "gatehouse-cli: " << message << Qt::endl;
            });
            m_history->open();
        }
        // Only what the monitor replaced since the last tick is compared:
        // an idle object costs this thread nothing (feedHistory).
        connect(m_monitor.get(), &Monitor::tickFinished, this, [this](const Snapshot &s) {
            feedHistory(*m_monitor, *m_history, s, m_discovered);
        });
        // The objects get their ids in the file as discovery finds them
        // (HistoryStore::registerObjects): the first tick after it writes
        // their records only.
        connect(m_monitor.get(), &Monitor::objectsFound, this,
                [this](const QList<PatternObject> &objects) {
                    if (!m_discovered)
                        m_history->registerObjects(objects);
                });
    }
    m_monitor->start();
}

void ServeCommand::onConnectionLost(const QString &why)
{
    QTextStream(stderr) << "gatehouse-cli: "
                        << QDateTime::currentDateTimeUtc().toString(Qt::ISODate)
                        << " connection lost: " << why
                        << " Reconnecting; the metrics keep the last reading "
                           "(gatehouse_reading_age_seconds grows)."
                        << Qt::endl;
}

void ServeCommand::onReconnected(qint64 gapMs)
{
    QTextStream(stderr) << "gatehouse-cli: reconnected after "
                        << QString::number(double(gapMs) / 1000.0, 'f', 1) << " s" << Qt::endl;
}

} // namespace gatehouse::cli
