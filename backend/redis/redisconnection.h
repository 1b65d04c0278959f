// SPDX-License-Identifier: MIT
#pragma once

#include "connectionstate.h"
#include "redisendpoint.h"
#include "redisvalue.h"
#include "respreader.h"

#include <QObject>
#include <QPointer>

#include <deque>
#include <functional>
#include <memory>

class QAbstractSocket;
class QIODevice;
class QLocalSocket;
class QSslError;
class QTimer;

namespace gatehouse {

class RedisScript;
class SentinelResolver;

// One connection to one Redis node. Lives on, and must only be used from, the
// thread it belongs to (a worker thread; RedisClient is the thread-safe front).
//
// Commands are pipelined: send() appends to the socket's write buffer at once
// and replies are matched to requests in order. While a connection attempt is
// running, requests are held and written once the handshake (AUTH, SELECT,
// CLIENT SETNAME) is done. When the connection is lost every written or held
// request fails with RedisValue::Type::Failed; nothing is replayed. With
// auto-reconnect on, the connection then retries with exponential backoff and
// jitter (100 ms doubling to 1 s), so it is ready within ~1 s of the server
// coming back. Authentication and TLS verification failures are final.
class RedisConnection : public QObject
{
    Q_OBJECT
public:
    using State = ConnectionState;
    using ErrorKind = ConnectionErrorKind;

    // Subscriber: after the handshake every reply is a push (pub/sub message
    // or subscription confirmation) delivered by pushReceived().
    enum class Mode { Commands, Subscriber };

    // Called on the connection's thread, once per request, with the reply or
    // the failure.
    using Callback = std::function<void(const RedisValue &)>;

    explicit RedisConnection(RedisEndpoint endpoint, QObject *parent = nullptr);
    ~RedisConnection() override;

    void setMode(Mode mode) { m_mode = mode; }
    void setAutoReconnect(bool on) { m_autoReconnect = on; }

    void open();
    // Fails what is pending with "closed", stops reconnecting.
    void close();

    State state() const { return m_state; }
    QString errorString() const { return m_error; }
    ErrorKind errorKind() const { return m_errorKind; }
    const RedisEndpoint &endpoint() const { return m_endpoint; }

    void send(const QList<QByteArray> &args, Callback callback);
    // EVALSHA with the locally computed SHA; on NOSCRIPT (script cache flushed,
    // failover, new node) the same call is sent again as EVAL, which runs the
    // script and loads it into the cache, so the caller sees one reply. On an
    // ACL refusal of EVALSHA (NOPERM) likewise, and from then on this
    // connection sends every script as EVAL.
    void sendScript(const RedisScript &script, const QList<QByteArray> &keys,
                    const QList<QByteArray> &args, Callback callback);
    // Many commands, one write, one callback with every reply in order.
    using BatchCallback = std::function<void(QList<RedisValue>)>;
    void sendBatch(const QList<QList<QByteArray>> &commands, BatchCallback callback);
    // Hands written bytes to the kernel now instead of on the next event
    // loop turn; callers that just queued a burst call this once.
    void flush();
    // Subscriber mode: written without a reply slot (SUBSCRIBE, PSUBSCRIBE...);
    // dropped unless Ready, since the subscriber restores its set on ready().
    void sendPush(const QList<QByteArray> &args);

    // Drops the connection as if it were lost (what was written "may or may
    // not have run") and, with auto-reconnect, connects again: for Sentinel,
    // after a switch of master, to the new one.
    void reconnect(const QString &why);

    // Requests written and not yet answered.
    qsizetype pendingCount() const { return qsizetype(m_pending.size()); }

Q_SIGNALS:
    // message: the sentence for the operator ("Connection refused… Next
    // attempt in 800 ms."); nextAttemptAtMs: Reconnecting, when the next
    // attempt starts (local epoch ms), -1 otherwise; kind: what message is about.
    void stateChanged(gatehouse::RedisConnection::State state, const QString &message,
                      qint64 nextAttemptAtMs, gatehouse::RedisConnection::ErrorKind kind);
    void ready(); // after every successful handshake
    void pushReceived(const gatehouse::RedisValue &message);

private:
    struct Batch
    {
        QList<RedisValue> replies;
        qsizetype remaining;
        BatchCallback callback;
    };
    struct Pending
    {
        Pending(Callback cb = {}, QByteArray source = {}, QList<QByteArray> tail = {})
            : callback(std::move(cb))
            , scriptSource(std::move(source))
            , evalTail(std::move(tail))
        {}
        Callback callback;
        std::shared_ptr<Batch> batch; // set instead of callback for sendBatch()
        qsizetype index = 0;          // this reply's place in the batch
        QByteArray scriptSource;      // set for EVALSHA, so NOSCRIPT can fall back to EVAL
        QList<QByteArray> evalTail;   // numkeys, keys..., args... for that fallback
    };

    void startAttempt();
    void connectTransport();
    void onTransportConnected();
    void onReadyRead();
    void onSocketError();
    void onSslErrors(const QList<QSslError> &errors);
    void dispatch(const RedisValue &reply);
    static void complete(Pending &pending, const RedisValue &reply);
    void submit(const QList<QByteArray> &args, Pending pending);
    void writeCommand(const QList<QByteArray> &args, Pending pending);
    void becomeReady();
    void handshakeFailed(const QString &message, ErrorKind kind);
    // Tears the socket down, fails every request, then reconnects or fails.
    void handleLoss(const QString &message, bool final, ErrorKind kind);
    void failAll(std::deque<Pending> &queue, const QString &message);
    void setState(State state, const QString &message, qint64 nextAttemptAtMs = -1,
                  ErrorKind kind = ErrorKind::None);
    QString describeSocketError() const;
    ErrorKind socketErrorKind() const;

    RedisEndpoint m_endpoint;
    Mode m_mode = Mode::Commands;
    bool m_autoReconnect = true;
    bool m_evalOnly = false; // EVALSHA was refused by ACL: scripts go as EVAL
    State m_state = State::Disconnected;
    QString m_error;
    ErrorKind m_errorKind = ErrorKind::None;

    QIODevice *m_io = nullptr;        // the transport below, owned by this
    QAbstractSocket *m_tcp = nullptr; // set for Tcp and Tls
    QLocalSocket *m_local = nullptr;  // set for Unix
    QString m_sslProblem;             // verification errors of the current attempt
    quint64 m_generation = 0;         // bumped on every loss; stale callbacks stop

    RespReader m_reader;
    std::deque<Pending> m_pending; // written, awaiting replies, in order
    std::deque<Pending> m_held;    // submitted while connecting
    QByteArray m_heldBytes;        // their encoding
    bool m_handshaking = false;

    SentinelResolver *m_resolver = nullptr; // a child while the sentinels are asked
    QTimer *m_connectTimer = nullptr;
    QTimer *m_retryTimer = nullptr;
    int m_attempt = 0;
};

} // namespace gatehouse
