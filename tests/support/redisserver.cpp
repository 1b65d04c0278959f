// SPDX-License-Identifier: MIT
#include "redisserver.h"
#include "loopback.h"

#include <redis/redisclient.h>

#include <QDir>
#include <QEventLoop>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QRegularExpression>
#include <QTest>
#include <QTimer>

#include <csignal>
#include <sys/prctl.h>
#include <sys/types.h>
#include <unistd.h>

namespace gatehouse::test {

namespace {

bool runOpenssl(const QStringList &args, const QString &dir, QString *error)
{
    QProcess p;
    p.setWorkingDirectory(dir);
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.start(QStringLiteral(GATEHOUSE_OPENSSL), args);
    if (!p.waitForFinished(30000) || p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) {
        *error = QStringLiteral("openssl %1 failed: %2")
                     .arg(args.join(QLatin1Char(' ')), QString::fromLocal8Bit(p.readAll()));
        return false;
    }
    return true;
}

} // namespace

RedisServer::RedisServer(Options options)
    : m_options(std::move(options))
{}

RedisServer::~RedisServer()
{
    stop();
}

QString RedisServer::serverPath()
{
    // .ci/extra-servers runs the server-facing tests against other server
    // binaries (Valkey, Redis 7.4/8 built from their release sources).
    const QString other = qEnvironmentVariable("GATEHOUSE_TEST_SERVER");
    return other.isEmpty() ? QStringLiteral(GATEHOUSE_REDIS_SERVER) : other;
}

namespace {

// "Redis server v=7.0.15 sha=..." -> {"Redis", "7.0.15"}; Valkey 7.2 prints
// "Server v=7.2.7 ...": the product is then the binary's ("valkey-server").
QStringList binaryIdentity()
{
    static const QStringList identity = [] {
        QProcess p;
        p.start(RedisServer::serverPath(), {QStringLiteral("--version")});
        if (!p.waitForFinished(10000))
            return QStringList{QString(), QString()};
        const QString line = QString::fromUtf8(p.readAllStandardOutput());
        const QRegularExpressionMatch m
            = QRegularExpression(QStringLiteral("^(?:(\\w+) )?[Ss]erver v=([0-9.]+)")).match(line);
        if (!m.hasMatch())
            return QStringList{QString(), QString()};
        QString product = m.captured(1);
        if (product.isEmpty()) {
            const QString binary = QFileInfo(RedisServer::serverPath()).fileName();
            product = binary.startsWith(QLatin1String("valkey")) ? QStringLiteral("Valkey")
                                                                 : QStringLiteral("Redis");
        }
        return QStringList{product, m.captured(2)};
    }();
    return identity;
}

} // namespace

QString RedisServer::serverProduct()
{
    return binaryIdentity().at(0);
}

QString RedisServer::serverVersion()
{
    return binaryIdentity().at(1);
}

QString RedisServer::socketPath() const
{
    return m_dir.filePath(QStringLiteral("redis.sock"));
}

QString RedisServer::certFile(const QString &name) const
{
    if (!m_options.tls)
        return QString();
    return m_options.certDir.isEmpty() ? m_dir.filePath(name)
                                       : QDir(m_options.certDir).filePath(name);
}

QString RedisServer::caFile() const
{
    return certFile(QStringLiteral("ca.crt"));
}

QString RedisServer::otherCaFile() const
{
    return certFile(QStringLiteral("other-ca.crt"));
}

QString RedisServer::clientCertFile() const
{
    return certFile(QStringLiteral("client.crt"));
}

QString RedisServer::clientKeyFile() const
{
    return certFile(QStringLiteral("client.key"));
}

RedisEndpoint RedisServer::endpoint() const
{
    RedisEndpoint ep;
    ep.host = QStringLiteral("127.0.0.1");
    ep.port = m_port;
    if (m_options.tls) {
        ep.transport = RedisEndpoint::Transport::Tls;
        ep.caFile = caFile();
    }
    return ep;
}

RedisEndpoint RedisServer::unixEndpoint() const
{
    RedisEndpoint ep;
    ep.transport = RedisEndpoint::Transport::Unix;
    ep.socketPath = socketPath();
    return ep;
}

QString RedisServer::url() const
{
    return QStringLiteral("%1://127.0.0.1:%2")
        .arg(m_options.tls ? QStringLiteral("rediss") : QStringLiteral("redis"))
        .arg(m_port);
}

bool RedisServer::makeCertificates(const QString &dir, QString *error)
{
    if (QFile::exists(QDir(dir).filePath(QStringLiteral("client.key"))))
        return true;
    const QStringList ec{QStringLiteral("-newkey"), QStringLiteral("ec"),
                         QStringLiteral("-pkeyopt"), QStringLiteral("ec_paramgen_curve:prime256v1"),
                         QStringLiteral("-nodes")};
    const auto makeCa = [&](const QString &name, const QString &cn) {
        return runOpenssl(QStringList{QStringLiteral("req"), QStringLiteral("-x509")} + ec
                              + QStringList{QStringLiteral("-keyout"),
                                            name + QStringLiteral(".key"), QStringLiteral("-out"),
                                            name + QStringLiteral(".crt"), QStringLiteral("-days"),
                                            QStringLiteral("2"), QStringLiteral("-subj"),
                                            QStringLiteral("/CN=") + cn},
                          dir, error);
    };
    const auto makeLeaf = [&](const QString &name, const QString &cn, const QString &ext) {
        QFile extFile(QDir(dir).filePath(name + QStringLiteral(".ext")));
        if (!extFile.open(QIODevice::WriteOnly))
            return false;
        extFile.write(ext.toUtf8());
        extFile.close();
        return runOpenssl(QStringList{QStringLiteral("req"), QStringLiteral("-new")} + ec
                              + QStringList{QStringLiteral("-keyout"),
                                            name + QStringLiteral(".key"), QStringLiteral("-out"),
                                            name + QStringLiteral(".csr"), QStringLiteral("-subj"),
                                            QStringLiteral("/CN=") + cn},
                          dir, error)
               && runOpenssl({QStringLiteral("x509"), QStringLiteral("-req"), QStringLiteral("-in"),
                              name + QStringLiteral(".csr"), QStringLiteral("-CA"),
                              QStringLiteral("ca.crt"), QStringLiteral("-CAkey"),
                              QStringLiteral("ca.key"), QStringLiteral("-CAcreateserial"),
                              QStringLiteral("-out"), name + QStringLiteral(".crt"),
                              QStringLiteral("-days"), QStringLiteral("2"),
                              QStringLiteral("-extfile"), name + QStringLiteral(".ext")},
                             dir, error);
    };
    return makeCa(QStringLiteral("ca"), QStringLiteral("Gatehouse Test CA"))
           && makeCa(QStringLiteral("other-ca"), QStringLiteral("Unrelated CA"))
           && makeLeaf(QStringLiteral("server"), QStringLiteral("localhost"),
                       QStringLiteral("subjectAltName=DNS:localhost,IP:127.0.0.1\n"
                                      "extendedKeyUsage=serverAuth\n"))
           && makeLeaf(QStringLiteral("client"), QStringLiteral("gatehouse-test-client"),
                       QStringLiteral("extendedKeyUsage=clientAuth\n"));
}

bool RedisServer::writeConfig()
{
    QStringList lines{
        QStringLiteral("bind 127.0.0.1"), QStringLiteral("dir \"%1\"").arg(m_dir.path()),
        QStringLiteral("save \"\""),      QStringLiteral("appendonly no"),
        QStringLiteral("logfile \"\""),   QStringLiteral("daemonize no"),
    };
    if (m_options.tls) {
        lines << QStringLiteral("port 0") << QStringLiteral("tls-port %1").arg(m_port)
              << QStringLiteral("tls-cert-file \"%1\"").arg(certFile(QStringLiteral("server.crt")))
              << QStringLiteral("tls-key-file \"%1\"").arg(certFile(QStringLiteral("server.key")))
              << QStringLiteral("tls-ca-cert-file \"%1\"").arg(caFile())
              << QStringLiteral("tls-auth-clients %1")
                     .arg(m_options.tlsAuthClients ? QStringLiteral("yes") : QStringLiteral("no"));
    } else {
        lines << QStringLiteral("port %1").arg(m_port);
    }
    if (m_options.unixSocket)
        lines << QStringLiteral("unixsocket \"%1\"").arg(socketPath())
              << QStringLiteral("unixsocketperm 700");
    lines << m_options.config;
    QFile conf(m_dir.filePath(QStringLiteral("redis.conf")));
    if (!conf.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
        m_error = QStringLiteral("cannot write %1").arg(conf.fileName());
        return false;
    }
    conf.write(lines.join(QLatin1Char('\n')).toUtf8() + '\n');
    return true;
}

bool RedisServer::launch()
{
    if (!writeConfig())
        return false;
    m_process = std::make_unique<QProcess>();
    m_process->setProcessChannelMode(QProcess::MergedChannels);
    m_process->setWorkingDirectory(m_dir.path());
    // A test or benchmark killed outright (a timeout's SIGKILL) takes its
    // server with it. Servers are started from the thread that lives as long
    // as the test, which is what the death signal follows.
    m_process->setChildProcessModifier([] { ::prctl(PR_SET_PDEATHSIG, SIGTERM); });
    QStringList args{m_dir.filePath(QStringLiteral("redis.conf"))};
    if (m_options.sentinel)
        args << QStringLiteral("--sentinel");
    m_process->start(serverPath(), args);
    if (!m_process->waitForStarted(10000)) {
        m_error = QStringLiteral("cannot start %1: %2").arg(serverPath(), m_process->errorString());
        m_process.reset();
        return false;
    }
    // Test setup, not production code: blocking here is fine.
    QByteArray log;
    QElapsedTimer clock;
    clock.start();
    while (clock.elapsed() < 15000) {
        // A sentinel logs no "Ready": it is serving once it monitors its master.
        if (log.contains(m_options.sentinel ? "+monitor master" : "Ready to accept connections"))
            return true;
        if (m_process->state() == QProcess::NotRunning)
            break;
        m_process->waitForReadyRead(100);
        log += m_process->readAll();
    }
    log += m_process->readAll();
    m_error = QStringLiteral("redis-server did not become ready on port %1:\n%2")
                  .arg(m_port)
                  .arg(QString::fromLocal8Bit(log));
    kill();
    return false;
}

bool RedisServer::start()
{
    if (!m_dir.isValid()) {
        m_error = QStringLiteral("cannot create a temporary directory");
        return false;
    }
    if (isRunning())
        return true;
    if (m_options.tls
        && !makeCertificates(m_options.certDir.isEmpty() ? m_dir.path() : m_options.certDir,
                             &m_error))
        return false;
    if (m_port != 0)
        return launch(); // a restart keeps its port
    // The free port can be taken between probe and bind; try a few. A
    // Cluster node's bus port too: a new one with each try.
    for (int attempt = 0; attempt < 5; ++attempt) {
        m_port = freeLoopbackPort();
        for (QString &line : m_options.config) {
            if (attempt > 0 && line.startsWith(QLatin1String("cluster-port ")))
                line = QStringLiteral("cluster-port %1").arg(freeLoopbackPort());
        }
        if (m_port != 0 && launch())
            return true;
    }
    return false;
}

bool RedisServer::isRunning() const
{
    return m_process && m_process->state() != QProcess::NotRunning;
}

void RedisServer::stop()
{
    if (!m_process)
        return;
    if (m_process->state() != QProcess::NotRunning) {
        m_process->terminate();
        if (!m_process->waitForFinished(10000)) {
            m_process->kill();
            m_process->waitForFinished(5000);
        }
    }
    m_process.reset();
}

void RedisServer::kill()
{
    if (!m_process)
        return;
    if (m_process->state() != QProcess::NotRunning) {
        m_process->kill();
        m_process->waitForFinished(5000);
    }
    m_process.reset();
}

int RedisServer::runningChildren()
{
    const QString self = QString::number(::getpid());
    int count = 0;
    const QStringList pids
        = QDir(QStringLiteral("/proc")).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    for (const QString &pid : pids) {
        if (!pid.front().isDigit())
            continue;
        QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
        if (!stat.open(QIODevice::ReadOnly))
            continue;
        const QByteArray line = stat.readAll();
        // pid (comm) state ppid ...; comm may contain spaces, so split after ')'.
        const qsizetype close = line.lastIndexOf(')');
        const QList<QByteArray> fields = line.mid(close + 2).split(' ');
        if (fields.size() > 1 && fields.at(1) == self.toLatin1())
            ++count;
    }
    return count;
}

bool waitUntil(const std::function<bool()> &done, int timeoutMs)
{
    if (done())
        return true;
    // done() may wait itself (a call() runs an event loop): the check timer
    // is stopped while it runs, so it is never asked inside itself, and the
    // answer is the one it gave (a condition that held once is not asked
    // again after the loop, when it may have moved on).
    bool held = false;
    QEventLoop loop;
    QTimer check;
    check.setTimerType(Qt::PreciseTimer);
    check.setSingleShot(true);
    check.setInterval(1);
    QTimer deadline;
    deadline.setSingleShot(true);
    QObject::connect(&check, &QTimer::timeout, &loop, [&] {
        held = done();
        if (held)
            loop.quit();
        else if (deadline.isActive())
            check.start();
    });
    QObject::connect(&deadline, &QTimer::timeout, &loop, &QEventLoop::quit);
    check.start();
    deadline.start(timeoutMs);
    loop.exec();
    return held || done();
}

bool ReplyWait::wait(int timeoutMs)
{
    if (!m_done) {
        QTimer deadline;
        deadline.setSingleShot(true);
        QObject::connect(&deadline, &QTimer::timeout, &m_loop, &QEventLoop::quit);
        deadline.start(timeoutMs);
        m_loop.exec();
    }
    return m_done;
}

RedisValue call(RedisClient &client, const QList<QByteArray> &command, int timeoutMs)
{
    QObject context;
    RedisValue reply = RedisValue::failed(QStringLiteral("no reply within %1 ms").arg(timeoutMs));
    ReplyWait replied;
    client.command(command, &context, [&](const RedisValue &v) {
        reply = v;
        replied.finish();
    });
    (void)replied.wait(timeoutMs);
    return reply;
}

bool waitReady(RedisClient &client, int timeoutMs)
{
    (void)QTest::qWaitFor(
        [&] {
            const auto s = client.state();
            return s == ConnectionState::Ready || s == ConnectionState::Failed;
        },
        timeoutMs);
    return client.state() == ConnectionState::Ready;
}

std::unique_ptr<RedisClient> connectedClient(const RedisServer &server)
{
    return connectedClient(server.endpoint());
}

std::unique_ptr<RedisClient> connectedClient(const RedisEndpoint &endpoint, QThread *worker)
{
    auto client = std::make_unique<RedisClient>(endpoint, worker);
    client->open();
    if (!waitReady(*client))
        return nullptr;
    return client;
}

qint64 RedisServer::pid() const
{
    return m_process ? m_process->processId() : 0;
}

CliRun runCli(const QString &program, const QStringList &args, const QProcessEnvironment &env,
              int timeoutMs)
{
    QProcess p;
    QProcessEnvironment e = QProcessEnvironment::systemEnvironment();
    e.remove(QStringLiteral("REDISCLI_AUTH"));
    for (const QString &key : env.keys())
        e.insert(key, env.value(key));
    p.setProcessEnvironment(e);
    p.start(program, args);
    CliRun r;
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
        r.err = QStringLiteral("%1 did not finish within %2 ms").arg(program).arg(timeoutMs);
        return r;
    }
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2;
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    r.err = QString::fromUtf8(p.readAllStandardError());
    return r;
}

QProcessEnvironment skewedClockEnvironment(const QString &shift)
{
    QProcessEnvironment env;
    for (const char *dir : {"/usr/lib/x86_64-linux-gnu/faketime",
                            "/usr/lib/aarch64-linux-gnu/faketime", "/usr/lib/faketime"}) {
        const QString lib = QString::fromLatin1(dir) + QStringLiteral("/libfaketime.so.1");
        if (QFileInfo::exists(lib)) {
            env.insert(QStringLiteral("LD_PRELOAD"), lib);
            env.insert(QStringLiteral("FAKETIME"), shift);
            // Under the sanitizer build the preloaded library comes before
            // ASan's runtime, which ASan refuses unless told it is intended.
            QByteArray asan = qgetenv("ASAN_OPTIONS");
            env.insert(QStringLiteral("ASAN_OPTIONS"),
                       QString::fromLocal8Bit(asan + (asan.isEmpty() ? "" : ":")
                                              + "verify_asan_link_order=0"));
            break;
        }
    }
    return env;
}

} // namespace gatehouse::test
