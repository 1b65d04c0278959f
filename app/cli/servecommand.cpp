// SPDX-License-Identifier: MIT
#include "servecommand.h"

#include "exitcodes.h"

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

ServeCommand::ServeCommand(const QList<Deployment::Options> &deployments, Options options,
                           QObject *parent)
    : Command(parent)
    , m_options(options)
{
    MetricsExposition exposition;
    exposition.maxObjectsPerPattern = m_options.maxObjectsPerPattern;
    m_server.setExposition(exposition);
    m_deploymentOptions = deployments;
    for (const Deployment::Options &d : deployments) {
        m_sources << m_server.addSource(d.name);
        m_lastFailure << QString();
        m_deployments.emplace_back();
        m_feeds.emplace_back();
    }
    for (int i = 0; i < int(deployments.size()); ++i)
        make(i);
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

void ServeCommand::make(int i)
{
    m_feeds[i].reset(); // before the deployment it follows
    m_deployments[i] = std::make_unique<Deployment>(m_deploymentOptions.at(i));
    Deployment *w = m_deployments[i].get();
    const QString prefix = QStringLiteral("gatehouse-cli: ") + w->sentencePrefix();
    connect(w, &Deployment::failed, this, [this, i](const QString &why) { failed(i, why); });
    connect(w, &Deployment::started, this, [this, i, prefix] {
        if (!m_lastFailure.at(i).isEmpty())
            QTextStream(stderr) << prefix << "connected" << Qt::endl;
        m_lastFailure[i].clear();
    });
    connect(w, &Deployment::connectionLost, this, [prefix](const QString &why) {
        QTextStream(stderr) << prefix << QDateTime::currentDateTimeUtc().toString(Qt::ISODate)
                            << " connection lost: " << why
                            << " Reconnecting; the metrics keep the last reading "
                               "(gatehouse_reading_age_seconds grows)."
                            << Qt::endl;
    });
    connect(w, &Deployment::reconnected, this, [prefix](qint64 gapMs) {
        QTextStream(stderr) << prefix << "reconnected after "
                            << QString::number(double(gapMs) / 1000.0, 'f', 1) << " s" << Qt::endl;
    });
    connect(w, &Deployment::historyProblem, this, [prefix](const QString &message) {
        QTextStream(stderr) << prefix << message << Qt::endl;
    });
    m_feeds[i] = std::make_unique<MetricsFeed>(w, &m_server, m_sources.at(i));
}

void ServeCommand::failed(int i, const QString &why)
{
    Deployment *w = m_deployments.at(i).get();
    if (m_deployments.size() == 1) {
        fail(w->sentencePrefix() + why);
        return;
    }
    // One of several: the others are served; this one is made again, and
    // its samples appear once it is read (absent until then: a deployment
    // that failed after it served does not keep its last reading).
    m_feeds[i].reset();
    m_server.clearSnapshotOf(m_sources.at(i));
    if (why != m_lastFailure.at(i))
        QTextStream(stderr) << "gatehouse-cli: " << w->sentencePrefix() << why
                            << " Trying again every " << RetryMs / 1000
                            << " s; its samples are absent until it is read; the other "
                               "deployments are served meanwhile."
                            << Qt::endl;
    m_lastFailure[i] = why;
    QTimer::singleShot(RetryMs, this, [this, i] {
        if (isDone())
            return;
        make(i);
        m_deployments.at(i)->start();
    });
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

void ServeCommand::start()
{
    for (const auto &d : m_deployments)
        d->start();
}

void ServeCommand::onSignal()
{
    char c = 0;
    [[maybe_unused]] const auto n = ::read(s_signalFds[1], &c, 1);
    m_server.close();
    done(ExitOk);
}

} // namespace gatehouse::cli
