// SPDX-License-Identifier: MIT
// The soak's kit: redis-cli runs, the lock reader, the writer of locks and
// where a watch line shows a key, for a failure's message.
#include "soakkit.h"

#include "redisserver.h"

#include <QJsonArray>
#include <QJsonDocument>

#include <sys/prctl.h>

#include <csignal>

namespace gatehouse::test::soak {

qint64 envNumber(const char *name, qint64 fallback)
{
    bool ok = false;
    const qint64 v = qEnvironmentVariable(name).toLongLong(&ok);
    return ok ? v : fallback;
}

QByteArray newToken(QRandomGenerator &rng)
{
    return "tok" + QByteArray::number(rng.generate64(), 16);
}

Cli redisCli(const QStringList &args, const QByteArray &input, int timeoutMs)
{
    QProcess p;
    p.setChildProcessModifier([] { ::prctl(PR_SET_PDEATHSIG, SIGTERM); });
    p.start(QStringLiteral(GATEHOUSE_REDIS_CLI), args);
    if (!p.waitForStarted(10000))
        return {};
    if (!input.isEmpty())
        p.write(input);
    p.closeWriteChannel();
    if (!waitUntil([&] { return p.state() == QProcess::NotRunning; }, timeoutMs)) {
        p.kill();
        p.waitForFinished(2000);
        return {};
    }
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2,
            p.readAllStandardOutput().trimmed()};
}

Cli nodeCli(quint16 port, const QStringList &args, int timeoutMs)
{
    return redisCli(QStringList{QStringLiteral("-p"), QString::number(port)} + args, {}, timeoutMs);
}

bool readLocks(quint16 port, QHash<QString, QString> *truth)
{
    const Cli scan = nodeCli(port, {QStringLiteral("--scan"), QStringLiteral("--pattern"),
                                    QStringLiteral("lock:soak:*")});
    if (scan.exitCode != 0)
        return false;
    QList<QByteArray> keys;
    for (const QByteArray &k : scan.out.split('\n')) {
        if (!k.trimmed().isEmpty())
            keys << k.trimmed();
    }
    if (keys.isEmpty())
        return true;
    QByteArray input;
    for (const QByteArray &k : std::as_const(keys))
        input += "GET " + k + "\nPTTL " + k + '\n';
    const Cli read = redisCli({QStringLiteral("-p"), QString::number(port)}, input);
    const QList<QByteArray> lines = read.out.split('\n');
    if (read.exitCode != 0 || lines.size() != 2 * keys.size())
        return false;
    for (qsizetype i = 0; i < keys.size(); ++i) {
        const QByteArray token = lines.at(2 * i).trimmed();
        const qint64 pttl = lines.at(2 * i + 1).trimmed().toLongLong();
        if (!token.isEmpty() && (pttl > 0 || pttl == -1))
            truth->insert(QString::fromLatin1(keys.at(i)), QString::fromLatin1(token));
    }
    return true;
}

Writer::Writer(const RedisEndpoint &endpoint, quint32 seed)
    : m_endpoint(endpoint)
    , m_rng(seed)
{
    moveToThread(&m_thread);
    m_thread.start();
    QMetaObject::invokeMethod(this, [this] { begin(); });
}

Writer::~Writer()
{
    QMetaObject::invokeMethod(
        this,
        [this] {
            m_timer.reset();
            m_client.reset();
        },
        Qt::BlockingQueuedConnection);
    m_thread.quit();
    m_thread.wait();
}

void Writer::begin()
{
    m_client = std::make_unique<RedisClient>(m_endpoint, &m_thread);
    m_client->open();
    m_timer = std::make_unique<QTimer>();
    m_timer->setInterval(1000 / WriterRate);
    connect(m_timer.get(), &QTimer::timeout, this, [this] { step(); });
    m_timer->start();
}

void Writer::done(const RedisValue &v)
{
    if (v.isError() || v.isFailed())
        ++m_failed;
    else
        ++m_ok;
}

void Writer::step()
{
    if (m_paused || m_inFlight > 0 || m_client->state() != ConnectionState::Ready)
        return;
    const QByteArray key = "lock:soak:" + QByteArray::number(m_rng.bounded(LockKeys));
    const QByteArray token = newToken(m_rng);
    const int dice = int(m_rng.bounded(100));
    m_inFlight = 1;
    if (dice < 20) { // a new lock, if free
        m_client->command({"SET", key, token, "NX", "PX", "600000"}, this,
                          [this](const RedisValue &v) {
                              done(v);
                              m_inFlight = 0;
                          });
    } else if (dice < 35) { // released
        m_client->command({"DEL", key}, this, [this](const RedisValue &v) {
            done(v);
            m_inFlight = 0;
        });
    } else { // another holder: released, then taken
        m_client->command({"DEL", key}, this, [this, key, token](const RedisValue &v) {
            done(v);
            m_client->command({"SET", key, token, "NX", "PX", "600000"}, this,
                              [this](const RedisValue &w) {
                                  done(w);
                                  m_inFlight = 0;
                              });
        });
    }
}

QString whereShown(const QJsonObject &line)
{
    QStringList out;
    for (auto it = line.constBegin(); it != line.constEnd(); ++it) {
        if (!it.value().isArray() || it.key() == QLatin1String("locks"))
            continue;
        for (const QJsonValue &v : it.value().toArray()) {
            const QString text
                = QString::fromUtf8(QJsonDocument(v.toObject()).toJson(QJsonDocument::Compact));
            if (text.contains(QLatin1String("lock:soak")))
                out << it.key() + QLatin1String(": ") + text.left(3000);
        }
    }
    const QJsonObject server = line.value(QLatin1String("server")).toObject();
    out << QStringLiteral("world %1, refresh %2")
               .arg(QString::fromUtf8(QJsonDocument(server.value(QLatin1String("world")).toObject())
                                          .toJson(QJsonDocument::Compact)),
                    QString::fromUtf8(
                        QJsonDocument(server.value(QLatin1String("refresh")).toObject())
                            .toJson(QJsonDocument::Compact)));
    return out.join(QStringLiteral("; "));
}

} // namespace gatehouse::test::soak
