// SPDX-License-Identifier: MIT
#pragma once

#include <redis/redisendpoint.h>
#include <redis/redisvalue.h>

#include <QEventLoop>
#include <QProcess>
#include <QStringList>
#include <QTemporaryDir>

#include <functional>
#include <memory>

namespace gatehouse {
class RedisClient;
}

namespace gatehouse::test {

// A real redis-server for one test: started on a free loopback port in its own
// temporary directory, stopped (and its directory removed) on destruction.
// It can be stopped, killed and restarted on the same port.
class RedisServer
{
public:
    struct Options
    {
        bool tls = false;            // TLS only: the port speaks TLS, no plain port
        bool tlsAuthClients = false; // require a client certificate
        bool unixSocket = false;     // also listen on <dir>/redis.sock
        QStringList config;          // extra redis.conf lines (ACL users, ...)
        bool sentinel = false;       // redis-server --sentinel (config: "sentinel monitor ...")
        // TLS: the certificates (makeCertificates' files) are in this directory,
        // shared by several servers; empty: made in the server's own directory.
        QString certDir;
    };

    explicit RedisServer(Options options);
    RedisServer()
        : RedisServer(Options())
    {}
    ~RedisServer();
    RedisServer(const RedisServer &) = delete;
    RedisServer &operator=(const RedisServer &) = delete;

    // First start picks a free port; later starts reuse it. Returns once the
    // server logged that it accepts connections.
    bool start();
    void stop(); // SIGTERM, wait
    void kill(); // SIGKILL, wait: a crash
    bool isRunning() const;
    QString errorString() const { return m_error; }

    quint16 port() const { return m_port; }
    qint64 pid() const; // 0 when not running
    QString socketPath() const;
    QString dir() const { return m_dir.path(); }

    // Files made by the fixture for TLS (empty unless Options::tls).
    QString caFile() const;      // CA that signed the server and client certs
    QString otherCaFile() const; // an unrelated CA
    QString clientCertFile() const;
    QString clientKeyFile() const;

    // TCP (or TLS with caFile) endpoint to this server, default user.
    RedisEndpoint endpoint() const;
    RedisEndpoint unixEndpoint() const;
    QString url() const;

    static QString serverPath();
    // What serverPath() says it is: its product ("Redis", "Valkey") and
    // version ("7.0.15"), from its --version line; empty when unreadable.
    // Server-facing tests compare with it, so they hold for every binary
    // .ci/extra-servers runs them against.
    static QString serverProduct();
    static QString serverVersion();
    // Makes a test CA (ca.crt), an unrelated CA (other-ca.crt), a server
    // certificate for localhost and 127.0.0.1 signed by the CA (server.crt,
    // server.key) and a client certificate (client.crt, client.key) in dir
    // with openssl; true if dir already has them. Test setup: it blocks.
    static bool makeCertificates(const QString &dir, QString *error);
    // Live child processes of this test process (Qt Creator's rule: zero
    // must be left when a test ends).
    static int runningChildren();

private:
    QString certFile(const QString &name) const;
    bool writeConfig();
    bool launch();

    Options m_options;
    QTemporaryDir m_dir;
    std::unique_ptr<QProcess> m_process;
    quint16 m_port = 0;
    QString m_error;
};

// Spins the event loop until done() holds or timeoutMs pass; true if it
// holds. Unlike QTest::qWaitFor, which sleeps 10 ms between checks, it
// returns within about a millisecond: a local server answers in far less.
bool waitUntil(const std::function<bool()> &done, int timeoutMs);

// Waits for one reply handler: the handler calls finish(), which ends the
// wait at once (no polling).
class ReplyWait
{
public:
    void finish()
    {
        m_done = true;
        m_loop.quit();
    }
    // True if finish() was called, before or within timeoutMs.
    bool wait(int timeoutMs);

private:
    QEventLoop m_loop;
    bool m_done = false;
};

// Runs one command through a client and waits (spinning the test's event
// loop) for its reply; a Failed value on timeout.
RedisValue call(RedisClient &client, const QList<QByteArray> &command, int timeoutMs = 10000);

// One run of gatehouse-cli (GATEHOUSE_CLI): exit code (-2 crashed, -1 timed
// out), stdout and stderr. REDISCLI_AUTH is removed from the environment
// unless env sets it.
struct CliRun
{
    int exitCode = -1;
    QString out;
    QString err;
};
CliRun runCli(const QString &program, const QStringList &args, const QProcessEnvironment &env = {},
              int timeoutMs = 60000);

// An environment that runs a process with its clock shifted by shift (a
// libfaketime offset such as "-1h"), or an empty one when libfaketime is not
// installed (Debian package faketime). A redis-server cannot run under it:
// its jemalloc recurses into libfaketime's clock_gettime at start
// (wolfcw/libfaketime#130), so tests skew the client's clock instead; the
// server is then that much ahead of the client.
QProcessEnvironment skewedClockEnvironment(const QString &shift);

// Waits for the client to reach Ready (or a final state); true if Ready.
bool waitReady(RedisClient &client, int timeoutMs = 10000);

// A client to the server, opened and Ready; nullptr if it did not get there.
std::unique_ptr<RedisClient> connectedClient(const RedisServer &server);
// worker: as RedisClient's (none: a thread of its own; the current thread:
// the same-thread mode of the CLI and the monitor).
std::unique_ptr<RedisClient> connectedClient(const RedisEndpoint &endpoint,
                                             QThread *worker = nullptr);

} // namespace gatehouse::test
