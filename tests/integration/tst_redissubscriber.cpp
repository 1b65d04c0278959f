// SPDX-License-Identifier: MIT
#include <redis/redisclient.h>
#include <redis/redissubscriber.h>

#include "redisserver.h"

#include <QSignalSpy>
#include <QTest>

using namespace gatehouse;
using gatehouse::test::call;
using gatehouse::test::RedisServer;
using gatehouse::test::waitReady;
using State = ConnectionState;

class tst_RedisSubscriber : public QObject
{
    Q_OBJECT

private slots:
    void cleanupTestCase() { QCOMPARE(RedisServer::runningChildren(), 0); }

    void messagesAndResubscribeAfterRestart()
    {
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        RedisClient publisher(server.endpoint());
        publisher.open();
        QVERIFY(waitReady(publisher));

        RedisSubscriber subscriber(server.endpoint());
        QSignalSpy confirmed(&subscriber, &RedisSubscriber::subscribed);
        QSignalSpy messages(&subscriber, &RedisSubscriber::message);
        QSignalSpy patternMessages(&subscriber, &RedisSubscriber::patternMessage);
        subscriber.subscribe({"news"});
        subscriber.psubscribe({"__keyspace@0__:lock:*"});
        subscriber.open();
        QTRY_COMPARE(confirmed.size(), 2);

        const QByteArray binary("pay\0load\r\n", 10);
        QCOMPARE(call(publisher, {"PUBLISH", "news", binary}).toInteger(), 1);
        QTRY_COMPARE(messages.size(), 1);
        QCOMPARE(messages.first().at(0).toByteArray(), QByteArray("news"));
        QCOMPARE(messages.first().at(1).toByteArray(), binary);

        // Keyspace notifications are the reason this type exists.
        // K$: string commands only (SET ... PX would add an "expire" event with g).
        call(publisher, {"CONFIG", "SET", "notify-keyspace-events", "K$"});
        call(publisher, {"SET", "lock:a", "t", "PX", "10000"});
        QTRY_COMPARE(patternMessages.size(), 1);
        QCOMPARE(patternMessages.first().at(0).toByteArray(), QByteArray("__keyspace@0__:lock:*"));
        QCOMPARE(patternMessages.first().at(1).toByteArray(), QByteArray("__keyspace@0__:lock:a"));
        QCOMPARE(patternMessages.first().at(2).toByteArray(), QByteArray("set"));

        // After a crash and restart the subscriptions come back by themselves.
        server.kill();
        QTRY_COMPARE(subscriber.state(), State::Reconnecting);
        confirmed.clear();
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        QTRY_COMPARE_WITH_TIMEOUT(confirmed.size(), 2, 5000);
        QVERIFY(waitReady(publisher));
        QTRY_COMPARE(publisher.state(), State::Ready);
        QCOMPARE(call(publisher, {"PUBLISH", "news", "again"}).toInteger(), 1);
        QTRY_COMPARE(messages.size(), 2);
        QCOMPARE(messages.last().at(1).toByteArray(), QByteArray("again"));

        // Unsubscribed channels stay quiet, also after a reconnect.
        subscriber.unsubscribe({"news"});
        QTRY_COMPARE(call(publisher, {"PUBLISH", "news", "x"}).toInteger(), 0);
    }
};

QTEST_GUILESS_MAIN(tst_RedisSubscriber)
#include "tst_redissubscriber.moc"
