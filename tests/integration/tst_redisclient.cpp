// SPDX-License-Identifier: MIT
#include <redis/redisclient.h>
#include <redis/redisscript.h>

#include "redisserver.h"

#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>
#include <QThread>
#include <QTimer>

using namespace gatehouse;
using gatehouse::test::call;
using gatehouse::test::RedisServer;
using gatehouse::test::waitReady;
using State = ConnectionState;

namespace {
// A handler whose context is deleted before the reply never runs.
bool handlerOfDeletedContextRuns(RedisClient &client)
{
    auto *context = new QObject;
    bool called = false;
    client.command({"PING"}, context, [&](const RedisValue &) { called = true; });
    delete context;
    return call(client, {"PING"}) != RedisValue::status("PONG") || called;
}
} // namespace

class tst_RedisClient : public QObject
{
    Q_OBJECT

private:
    RedisServer m_server;
    std::unique_ptr<RedisClient> m_client;

private slots:
    void initTestCase()
    {
        QVERIFY2(m_server.start(), qPrintable(m_server.errorString()));
        m_client = std::make_unique<RedisClient>(m_server.endpoint());
        QSignalSpy states(m_client.get(), &RedisClient::stateChanged);
        m_client->open();
        QVERIFY(waitReady(*m_client));
        QCOMPARE(states.first().first().value<State>(), State::Connecting);
        QCOMPARE(states.last().first().value<State>(), State::Ready);
    }

    void cleanupTestCase()
    {
        m_client.reset();
        m_server.stop();
        QCOMPARE(RedisServer::runningChildren(), 0);
    }

    void namesItselfForOperators()
    {
        const RedisValue list = call(*m_client, {"CLIENT", "LIST"});
        QVERIFY2(list.bytes().contains("name=gatehouse"), qPrintable(list.toDebugString()));
    }

    void binaryRoundTrip_data()
    {
        QTest::addColumn<QByteArray>("key");
        QTest::addColumn<QByteArray>("value");
        QTest::newRow("nul") << QByteArray("k\0nul", 5) << QByteArray("v\0\0v", 4);
        QTest::newRow("crlf") << QByteArray("k\r\nk") << QByteArray("*1\r\n$3\r\nGET\r\n");
        QTest::newRow("invalid utf-8")
            << QByteArray("\xff\xfe\xc3") << QByteArray("\xc3\x28\xa0\xa1");
        QTest::newRow("empty value") << QByteArray("empty") << QByteArray("");
        QByteArray all;
        for (int i = 0; i < 256; ++i)
            all += char(i);
        QTest::newRow("every byte") << all << all.repeated(1000);
    }

    void binaryRoundTrip()
    {
        QFETCH(QByteArray, key);
        QFETCH(QByteArray, value);
        QCOMPARE(call(*m_client, {"SET", key, value}), RedisValue::status("OK"));
        QCOMPARE(call(*m_client, {"GET", key}), RedisValue::bulk(value));
        QCOMPARE(call(*m_client, {"STRLEN", key}).toInteger(), value.size());
        QCOMPARE(call(*m_client, {"DEL", key}).toInteger(), 1);
    }

    void nestedArraysAndErrors()
    {
        const RedisValue nested = call(
            *m_client,
            {"EVAL", "return {1, {'a', {2, false}}, redis.error_reply('MYERR inner')}", "0"});
        QVERIFY2(nested.isArray(), qPrintable(nested.toDebugString()));
        QCOMPARE(nested.size(), 3);
        QCOMPARE(nested.at(0), RedisValue::integer(1));
        QCOMPARE(nested.at(1).at(0), RedisValue::bulk("a"));
        QCOMPARE(nested.at(1).at(1).at(0), RedisValue::integer(2));
        QVERIFY(nested.at(1).at(1).at(1).isNil());
        QCOMPARE(nested.at(2).errorCode(), QByteArray("MYERR"));

        call(*m_client, {"RPUSH", "a:list", "x"});
        const RedisValue wrong = call(*m_client, {"GET", "a:list"});
        QCOMPARE(wrong.type(), RedisValue::Type::Error);
        QCOMPARE(wrong.errorCode(), QByteArray("WRONGTYPE"));
        // An error does not disturb the replies that follow it.
        QCOMPARE(call(*m_client, {"LLEN", "a:list"}).toInteger(), 1);
    }

    // 100,000 commands, each with its own handler, replies in order.
    void hundredThousandPipelinedInOrder()
    {
        const int n = 100000;
        QObject context;
        QList<int> order;
        order.reserve(n);
        int mismatches = 0;
        for (int i = 0; i < n; ++i) {
            m_client->command({"ECHO", QByteArray::number(i)}, &context,
                              [&, i](const RedisValue &v) {
                                  if (v.bytes().toInt() != i)
                                      ++mismatches;
                                  order << i;
                              });
        }
        QTRY_COMPARE_WITH_TIMEOUT(order.size(), n, 60000);
        QCOMPARE(mismatches, 0);
        for (int i = 0; i < n; ++i)
            QCOMPARE(order.at(i), i);
    }

    void batchApiDeliversAllRepliesAtOnce()
    {
        const int n = 100000;
        call(*m_client, {"DEL", "batch:counter"});
        QList<RedisClient::Command> commands;
        commands.reserve(n);
        for (int i = 0; i < n; ++i)
            commands.append(RedisClient::Command{"INCR", "batch:counter"});
        QObject context;
        QList<RedisValue> replies;
        int calls = 0;
        m_client->pipeline(commands, &context, [&](const QList<RedisValue> &r) {
            replies = r;
            ++calls;
        });
        QTRY_COMPARE_WITH_TIMEOUT(calls, 1, 60000);
        QCOMPARE(replies.size(), n);
        for (int i = 0; i < n; ++i)
            QCOMPARE(replies.at(i).toInteger(), qint64(i + 1));
    }

    // A 50 MB reply is read and parsed on the worker: the caller's event loop
    // keeps turning while it arrives.
    void largeBulkDoesNotBlockCaller()
    {
        const qsizetype size = 50 * 1024 * 1024;
        QByteArray big(size, Qt::Uninitialized);
        for (qsizetype i = 0; i < size; ++i)
            big[i] = char('a' + (i * 7) % 26);
        QCOMPARE(call(*m_client, {"SET", "big", big}, 60000), RedisValue::status("OK"));

        QTimer ticker;
        ticker.setInterval(5);
        QElapsedTimer clock;
        qint64 last = 0;
        qint64 maxGap = 0;
        int ticks = 0;
        connect(&ticker, &QTimer::timeout, this, [&] {
            const qint64 now = clock.elapsed();
            maxGap = qMax(maxGap, now - last);
            last = now;
            ++ticks;
        });
        QObject context;
        RedisValue reply;
        bool done = false;
        clock.start();
        ticker.start();
        m_client->command({"GET", "big"}, &context, [&](const RedisValue &v) {
            reply = v;
            done = true;
        });
        QTRY_VERIFY_WITH_TIMEOUT(done, 60000);
        const qint64 elapsed = clock.elapsed();
        ticker.stop();
        QCOMPARE(reply.bytes().size(), size);
        QVERIFY(reply.bytes() == big);
        qInfo("50 MB GET took %lld ms; caller timer fired %d times, longest gap %lld ms", elapsed,
              ticks, maxGap);
        // Had the caller parsed or waited, the timer would have stalled for
        // the whole transfer.
        QVERIFY2(ticks >= 2, "the caller's event loop did not run during the transfer");
        QVERIFY2(maxGap < qMax<qint64>(100, elapsed / 2),
                 "the caller's event loop stalled during the transfer");
        call(*m_client, {"DEL", "big"});
    }

    void scriptShaMatchesServer()
    {
        const RedisScript script = RedisScript::fromResource(QStringLiteral("lock_release"));
        QVERIFY(script.isValid());
        const RedisValue sha = call(*m_client, {"SCRIPT", "LOAD", script.source()});
        QCOMPARE(sha.bytes(), script.sha1());
    }

    void noscriptFallback()
    {
        const RedisScript script = RedisScript::fromResource(QStringLiteral("lock_release"));
        call(*m_client, {"SET", "lock:a", "token-1"});
        QCOMPARE(call(*m_client, {"SCRIPT", "FLUSH"}), RedisValue::status("OK"));
        QCOMPARE(call(*m_client, {"SCRIPT", "EXISTS", script.sha1()}).at(0).toInteger(), 0);

        // Several calls pipelined into an empty script cache all succeed.
        QObject context;
        QList<RedisValue> replies;
        for (int i = 0; i < 3; ++i) {
            call(*m_client, {"SET", "lock:b" + QByteArray::number(i), "t"});
        }
        call(*m_client, {"SCRIPT", "FLUSH"});
        m_client->script(script, {"lock:a"}, {"wrong-token"}, &context,
                         [&](const RedisValue &v) { replies << v; });
        for (int i = 0; i < 3; ++i)
            m_client->script(script, {"lock:b" + QByteArray::number(i)}, {"t"}, &context,
                             [&](const RedisValue &v) { replies << v; });
        m_client->script(script, {"lock:a"}, {"token-1"}, &context,
                         [&](const RedisValue &v) { replies << v; });
        QTRY_COMPARE(replies.size(), 5);
        // Not released: the token differs; the holder's value and its length.
        QCOMPARE(replies.at(0),
                 RedisValue::array({RedisValue::bulk("token-1"), RedisValue::integer(7)}));
        QCOMPARE(replies.at(1), RedisValue::integer(1));
        QCOMPARE(replies.at(4), RedisValue::integer(1));
        QCOMPARE(call(*m_client, {"EXISTS", "lock:a"}).toInteger(), 0);
        // The fallback loaded the script again: the next call is a plain EVALSHA.
        QCOMPARE(call(*m_client, {"SCRIPT", "EXISTS", script.sha1()}).at(0).toInteger(), 1);
    }

    void destroyedContextDropsHandler()
    {
        QVERIFY(!handlerOfDeletedContextRuns(*m_client));

        QObject alive;
        bool cancelledCalled = false;
        RequestHandle handle = m_client->command(
            {"PING"}, &alive, [&](const RedisValue &) { cancelledCalled = true; });
        QVERIFY(handle.isActive());
        handle.cancel();
        QVERIFY(!handle.isActive());
        QCOMPARE(call(*m_client, {"PING"}), RedisValue::status("PONG"));
        QVERIFY(!cancelledCalled);

        RequestHandle done = m_client->command({"PING"}, &alive, [](const RedisValue &) {});
        QTRY_VERIFY(!done.isActive());
    }

    // The CLI's and the monitor's mode: the connection on the caller's own
    // thread. Order, chained requests, dropped handlers, a server loss and the
    // client going away with requests in flight all behave as with a worker.
    void sameThreadMode()
    {
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        auto client = std::make_unique<RedisClient>(server.endpoint(), QThread::currentThread());
        client->open();
        QVERIFY(waitReady(*client));

        QObject context;
        QList<int> order;
        int wrongThread = 0;
        for (int i = 0; i < 10000; ++i) {
            if (i == 5000) {
                client->pipeline({{"ECHO", "p1"}, {"ECHO", "p2"}}, &context,
                                 [&](const QList<RedisValue> &r) {
                                     if (r.size() == 2 && r.at(1).bytes() == "p2")
                                         order << -1;
                                 });
            }
            client->command({"ECHO", QByteArray::number(i)}, &context, [&, i](const RedisValue &v) {
                if (QThread::currentThread() != thread())
                    ++wrongThread;
                order << (v.bytes().toInt() == i ? i : -2);
            });
        }
        QTRY_COMPARE_WITH_TIMEOUT(order.size(), 10001, 20000);
        QCOMPARE(order.at(5000), -1);
        order.removeAt(5000);
        for (int i = 0; i < 10000; ++i)
            QCOMPARE(order.at(i), i);
        QCOMPARE(wrongThread, 0);

        // Lock-step: each reply sends the next request.
        int chained = 0;
        std::function<void(const RedisValue &)> next = [&](const RedisValue &v) {
            if (v.toInteger() == ++chained && chained < 200)
                client->command({"INCR", "chain"}, &context, next);
        };
        client->command({"INCR", "chain"}, &context, next);
        QTRY_COMPARE_WITH_TIMEOUT(chained, 200, 10000);

        QVERIFY(!handlerOfDeletedContextRuns(*client));

        // A loss fails what was in flight, then the client reconnects.
        QList<RedisValue> failed;
        client->command({"BLPOP", "never", "0"}, &context,
                        [&](const RedisValue &v) { failed << v; });
        QTest::qWait(100);
        server.kill();
        QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 1, 10000);
        QVERIFY(failed.first().errorMessage().contains(QLatin1String("may or may not have run")));
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        QTRY_COMPARE_WITH_TIMEOUT(client->state(), State::Ready, 5000);
        QCOMPARE(call(*client, {"PING"}), RedisValue::status("PONG"));

        // Gone with requests in flight: no handler runs, nothing crashes.
        bool late = false;
        for (int i = 0; i < 100; ++i)
            client->command({"PING"}, &context, [&](const RedisValue &) { late = true; });
        client.reset();
        QTest::qWait(100);
        QVERIFY(!late);
    }

    // Same-thread mode writes what reply handlers send when they return. A
    // handler that waits for a reply in a nested event loop must still get it,
    // and a handler may delete the client.
    void sameThreadHandlersMayWaitOrDeleteTheClient()
    {
        auto client = std::make_unique<RedisClient>(m_server.endpoint(), QThread::currentThread());
        client->open();
        QVERIFY(waitReady(*client));
        QObject context;
        RedisValue nested;
        RedisValue after;
        client->command({"PING"}, &context, [&](const RedisValue &) {
            client->command({"SET", "nested:a", "1"}, &context, [](const RedisValue &) {});
            nested = call(*client, {"GET", "nested:a"}, 5000); // a nested event loop
            client->command({"ECHO", "after"}, &context, [&](const RedisValue &v) { after = v; });
        });
        QTRY_COMPARE_WITH_TIMEOUT(after.bytes(), QByteArray("after"), 10000);
        QCOMPARE(nested.bytes(), QByteArray("1"));

        bool secondRan = false;
        client->command({"PING"}, &context, [&](const RedisValue &) {
            client->command({"PING"}, &context, [&](const RedisValue &) { secondRan = true; });
            client.reset(); // its own handler deletes the client
        });
        client->command({"PING"}, &context, [&](const RedisValue &) { secondRan = true; });
        QTRY_VERIFY_WITH_TIMEOUT(!client, 5000);
        QTest::qWait(50);
        QVERIFY(!secondRan);
    }

    void selectsDatabase()
    {
        RedisEndpoint ep = m_server.endpoint();
        ep.db = 3;
        RedisClient client(ep);
        client.open();
        QVERIFY(waitReady(client));
        QVERIFY(call(client, {"CLIENT", "INFO"}).bytes().contains(" db=3 "));
        call(client, {"SET", "in-db-3", "x"});
        QCOMPARE(call(*m_client, {"EXISTS", "in-db-3"}).toInteger(), 0);
        QCOMPARE(call(*m_client, {"SELECT", "3"}), RedisValue::status("OK"));
        QCOMPARE(call(*m_client, {"EXISTS", "in-db-3"}).toInteger(), 1);
        call(*m_client, {"SELECT", "0"});
    }

    void refusedGivesClearFailure()
    {
        QTcpServer closed;
        QVERIFY(closed.listen(QHostAddress::LocalHost, 0));
        RedisEndpoint ep;
        ep.port = closed.serverPort();
        closed.close();
        RedisClient client(ep);
        client.setAutoReconnect(false);
        client.open();
        QVERIFY(!waitReady(client));
        QCOMPARE(client.state(), State::Failed);
        QVERIFY2(client.errorString().contains(QLatin1String("connection refused")),
                 qPrintable(client.errorString()));
        QVERIFY(client.errorString().contains(QString::number(ep.port)));
        // Requests made while failed are answered at once, with the reason.
        const RedisValue v = call(client, {"PING"});
        QVERIFY(v.isFailed());
        QVERIFY(v.errorMessage().contains(QLatin1String("connection refused")));
    }

    // A peer that accepts but never answers: the connect timeout covers the
    // handshake, and says what happened.
    void silentPeerTimesOut()
    {
        QTcpServer silent;
        QVERIFY(silent.listen(QHostAddress::LocalHost, 0));
        RedisEndpoint ep;
        ep.port = silent.serverPort();
        ep.connectTimeoutMs = 300;
        RedisClient client(ep);
        client.setAutoReconnect(false);
        client.open();
        QVERIFY(!waitReady(client));
        QVERIFY2(client.errorString().contains(QLatin1String("no answer within 300 ms")),
                 qPrintable(client.errorString()));
    }

    // A peer that is not Redis (here: an HTTP server's answer).
    void nonRespPeerIsReported()
    {
        QTcpServer http;
        QVERIFY(http.listen(QHostAddress::LocalHost, 0));
        connect(&http, &QTcpServer::newConnection, this, [&http] {
            QTcpSocket *s = http.nextPendingConnection();
            s->write("HTTP/1.1 400 Bad Request\r\n\r\n");
        });
        RedisEndpoint ep;
        ep.port = http.serverPort();
        RedisClient client(ep);
        client.setAutoReconnect(false);
        client.open();
        QVERIFY(!waitReady(client));
        QVERIFY2(client.errorString().contains(QLatin1String("not RESP")),
                 qPrintable(client.errorString()));
    }

    // Kill the server with requests in flight: each fails with a clear error,
    // none is replayed, and the client is ready within 2 s of the restart.
    void killMidPipelineThenRecover()
    {
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        RedisClient client(server.endpoint());
        client.open();
        QVERIFY(waitReady(client));
        RedisClient observer(server.endpoint());
        observer.open();
        QVERIFY(waitReady(observer));

        QObject context;
        QList<RedisValue> replies;
        // BLPOP holds the connection, so everything behind it is in flight.
        client.command({"BLPOP", "never", "0"}, &context,
                       [&](const RedisValue &v) { replies << v; });
        for (int i = 0; i < 1000; ++i)
            client.command({"INCR", "n"}, &context, [&](const RedisValue &v) { replies << v; });
        QTRY_VERIFY_WITH_TIMEOUT(
            call(observer, {"INFO", "clients"}).bytes().contains("blocked_clients:1"), 10000);

        server.kill();
        QTRY_COMPARE_WITH_TIMEOUT(replies.size(), 1001, 10000);
        for (const RedisValue &v : std::as_const(replies)) {
            QVERIFY(v.isFailed());
            QVERIFY2(v.errorMessage().contains(QLatin1String("may or may not have run")),
                     qPrintable(v.errorMessage()));
        }
        QTRY_COMPARE(client.state(), State::Reconnecting);
        QVERIFY(!client.errorString().isEmpty());
        // While down, requests fail at once instead of waiting.
        const RedisValue whileDown = call(client, {"PING"}, 2000);
        QVERIFY(whileDown.isFailed());
        QVERIFY(whileDown.errorMessage().contains(QLatin1String("Not connected")));

        QVERIFY2(server.start(), qPrintable(server.errorString()));
        QElapsedTimer sinceRestart;
        sinceRestart.start();
        QTRY_COMPARE_WITH_TIMEOUT(client.state(), State::Ready, 2000);
        qInfo("ready again %lld ms after the server came back", sinceRestart.elapsed());

        // Not replayed: no BLPOP waits on the new server, no INCR ran.
        QCOMPARE(call(client, {"GET", "n"}), RedisValue::nil());
        QCOMPARE(call(client, {"LPUSH", "never", "x"}).toInteger(), 1);
        QCOMPARE(call(client, {"LLEN", "never"}).toInteger(), 1);
        QVERIFY(call(client, {"INFO", "clients"}).bytes().contains("blocked_clients:0"));
    }

    void unixSocket()
    {
        RedisServer::Options options;
        options.unixSocket = true;
        RedisServer server(options);
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        QString error;
        const auto ep = RedisEndpoint::fromUrl(
            QStringLiteral("unix://") + server.socketPath() + QStringLiteral("?db=1"), &error);
        QVERIFY2(ep, qPrintable(error));
        RedisClient client(*ep);
        client.open();
        QVERIFY2(waitReady(client), qPrintable(client.errorString()));
        QCOMPARE(call(client, {"PING"}), RedisValue::status("PONG"));
        QVERIFY(call(client, {"CLIENT", "INFO"}).bytes().contains("db=1"));

        RedisEndpoint missing = *ep;
        missing.socketPath = server.dir() + QStringLiteral("/nope.sock");
        RedisClient failing(missing);
        failing.setAutoReconnect(false);
        failing.open();
        QVERIFY(!waitReady(failing));
        QVERIFY2(failing.errorString().contains(QLatin1String("no socket at that path")),
                 qPrintable(failing.errorString()));
    }
};

QTEST_GUILESS_MAIN(tst_RedisClient)
#include "tst_redisclient.moc"
