// SPDX-License-Identifier: MIT
#include "demoserver.h"

#include <QStandardPaths>
#include <QTcpServer>
#include <QTimer>

namespace gatehouse {

DemoServer::DemoServer(QObject *parent)
    : QObject(parent)
{}

DemoServer::~DemoServer()
{
    stop();
}

void DemoServer::start()
{
    const QString program = QStandardPaths::findExecutable(QStringLiteral("redis-server"));
    if (program.isEmpty()) {
        QTimer::singleShot(0, this, [this] {
            Q_EMIT failed(tr("The demo needs redis-server, which is not on PATH. Install the "
                             "Debian package redis-server (apt-get install redis-server)."));
        });
        return;
    }
    if (!m_dir.isValid()) {
        QTimer::singleShot(0, this, [this] {
            Q_EMIT failed(tr("Cannot create a temporary directory for the demo server: %1.")
                              .arg(m_dir.errorString()));
        });
        return;
    }
    {
        QTcpServer probe; // a free port, released just before redis takes it
        probe.listen(QHostAddress::LocalHost, 0);
        m_port = probe.serverPort();
    }
    m_process = std::make_unique<QProcess>();
    m_process->setProcessChannelMode(QProcess::MergedChannels);
    connect(m_process.get(), &QProcess::readyRead, this, [this] {
        m_log += m_process->readAll();
        if (!m_ready && m_log.contains("Ready to accept connections")) {
            m_ready = true;
            Q_EMIT ready();
        }
    });
    connect(m_process.get(), &QProcess::finished, this, [this](int code) {
        if (!m_ready)
            Q_EMIT failed(tr("The demo redis-server exited (code %1): %2")
                              .arg(code)
                              .arg(QString::fromUtf8(m_log.trimmed().right(400))));
    });
    connect(m_process.get(), &QProcess::errorOccurred, this, [this](QProcess::ProcessError) {
        if (!m_ready)
            Q_EMIT failed(
                tr("Cannot start the demo redis-server: %1.").arg(m_process->errorString()));
    });
    m_process->start(program,
                     {QStringLiteral("--port"), QString::number(m_port), QStringLiteral("--bind"),
                      QStringLiteral("127.0.0.1"), QStringLiteral("--dir"), m_dir.path(),
                      QStringLiteral("--save"), QString(), QStringLiteral("--appendonly"),
                      QStringLiteral("no"), QStringLiteral("--notify-keyspace-events"),
                      QStringLiteral("KEA"), QStringLiteral("--logfile"), QString()});
}

void DemoServer::stop()
{
    if (!m_process)
        return;
    m_process->disconnect(this);
    if (m_process->state() != QProcess::NotRunning) {
        m_process->terminate();
        if (!m_process->waitForFinished(5000)) {
            m_process->kill();
            m_process->waitForFinished(2000);
        }
    }
    m_process.reset();
}

RedisEndpoint DemoServer::endpoint() const
{
    RedisEndpoint ep;
    ep.host = QStringLiteral("127.0.0.1");
    ep.port = m_port;
    return ep;
}

bool DemoServer::serves(const RedisEndpoint &endpoint) const
{
    // Only this machine's loopback reaches the private server: the same port
    // on another host is another server.
    static const QStringList loopback{QStringLiteral("127.0.0.1"), QStringLiteral("localhost"),
                                      QStringLiteral("::1")};
    return m_ready && m_process && m_process->state() == QProcess::Running
           && endpoint.transport == RedisEndpoint::Transport::Tcp && endpoint.port == m_port
           && endpoint.db == 0 && loopback.contains(endpoint.host.toLower());
}

DemoServer::Console DemoServer::consoleFor(const RedisEndpoint &endpoint,
                                           const QString &chosenProfile) const
{
    Console console;
    console.demo = serves(endpoint);
    console.profile
        = console.demo && chosenProfile.isEmpty() ? QStringLiteral("demo") : chosenProfile;
    return console;
}

} // namespace gatehouse
