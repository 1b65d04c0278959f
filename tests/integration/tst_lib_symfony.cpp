// SPDX-License-Identifier: MIT
// Symfony Messenger's Redis transport (Debian php-symfony-redis-messenger
// 5.4), driven for real: its own Connection's add, get and ack
// (tests/libraries/symfony_app.php) over phpredis, on the transport's
// defaults (stream "messages", group "symfony", delayed set
// "messages__queue"), against a private redis-server. A consumer is killed
// with SIGKILL in the middle of a message: the stream pattern shows the
// stream as Symfony Messenger's with that consumer's pending entry, which
// is claimed to another consumer; the delayed set is shown with its own
// count and released into the stream through the CLI, and a real consumer
// then handles every message once.
#include <redis/redisclient.h>

#include "librarytest.h"
#include "otherlibraries.h"
#include "phpapp.h"
#include "redisserver.h"

#include <QDateTime>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTest>

using namespace gatehouse;
using gatehouse::test::call;
using gatehouse::test::CliRun;
using gatehouse::test::RedisServer;

namespace {

const QString LibrariesDir = QStringLiteral(GATEHOUSE_LIBRARIES_DIR);
const QString Php = gatehouse::test::PhpApp::php();

QJsonObject objectOf(const QJsonObject &snapshot, const QString &key)
{
    for (const QJsonValue &q : snapshot.value(QStringLiteral("queues")).toArray()) {
        if (q[QStringLiteral("key")].toString() == key)
            return q.toObject();
    }
    return {};
}

} // namespace

class tst_LibSymfony : public QObject
{
    Q_OBJECT

private:
    CliRun cli(const RedisServer &server, QStringList args)
    {
        return gatehouse::test::libraryCli(QStringLiteral(GATEHOUSE_CLI), server, args);
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(QFile::exists(Php), "/usr/bin/php is missing: run .ci/install-deps");
        QVERIFY2(QFile::exists(QStringLiteral("/usr/share/php/Symfony/Component/Messenger/"
                                              "Bridge/Redis/Transport/Connection.php")),
                 "php-symfony-redis-messenger is missing: run .ci/install-deps");
    }

    void killedConsumerAndDelayedMessages()
    {
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        std::unique_ptr<RedisClient> connected = gatehouse::test::connectedClient(server);
        QVERIFY(connected);
        RedisClient &client = *connected;
        const gatehouse::test::PhpApp app{LibrariesDir + QStringLiteral("/symfony_app.php"),
                                          {server.url()}};

        QCOMPARE(app.run({QStringLiteral("produce-blocking"), QStringLiteral("a")}), QString());
        QCOMPARE(app.run({QStringLiteral("produce"), QStringLiteral("b")}), QString());
        QCOMPARE(app.run({QStringLiteral("later"), QStringLiteral("600000"), QStringLiteral("c")}),
                 QString());
        auto hung = app.start({QStringLiteral("work"), QStringLiteral("c1")});
        QVERIFY2(gatehouse::test::pollUntil(
                     [&] {
                         return call(client, {"LLEN", "taken"}).toInteger() == 1;
                     },
                     30000),
                 "the consumer never took a");
        hung->kill(); // SIGKILL
        QVERIFY(hung->waitForFinished(10000));
        hung.reset();
        const QJsonObject symfony = app.counts();

        // The stream through the stream pattern, named as Symfony Messenger's,
        // with the killed consumer's pending entry; the delayed set with its
        // own count; nothing else.
        const QJsonObject snap = gatehouse::test::snapshotOf(
            cli(server, {QStringLiteral("snapshot"), QStringLiteral("--json")}));
        const QJsonObject stream = objectOf(snap, QStringLiteral("messages"));
        QCOMPARE(stream[QStringLiteral("pattern")].toString(), QStringLiteral("stream-group"));
        // The same library name as the delayed set's, in the Library column.
        QCOMPARE(stream[QStringLiteral("library")][QStringLiteral("layout")].toString(),
                 QStringLiteral("symfony-messenger"));
        QCOMPARE(stream[QStringLiteral("length")].toInt(),
                 symfony[QStringLiteral("stream")].toInt());
        QCOMPARE(stream[QStringLiteral("inFlight")].toInt(), 1);
        QCOMPARE(stream[QStringLiteral("inFlight")].toInt(),
                 symfony[QStringLiteral("pending")].toInt());
        const QJsonObject group = stream[QStringLiteral("groups")].toArray().first().toObject();
        QCOMPARE(group[QStringLiteral("name")].toString(), QStringLiteral("symfony"));
        const QJsonArray pending = stream[QStringLiteral("pendingEntries")].toArray();
        QCOMPARE(pending.size(), 1);
        QCOMPARE(pending.first()[QStringLiteral("consumer")].toString(), QStringLiteral("c1"));

        const QJsonObject delayed = objectOf(snap, QStringLiteral("messages__queue"));
        QCOMPARE(delayed[QStringLiteral("pattern")].toString(), QStringLiteral("symfony-delayed"));
        QCOMPARE(delayed[QStringLiteral("counts")][QStringLiteral("delayed")].toInt(),
                 symfony[QStringLiteral("delayed")].toInt());
        QCOMPARE(delayed[QStringLiteral("library")][QStringLiteral("layoutKnown")].toBool(), true);
        QCOMPARE(delayed[QStringLiteral("dueCount")].toInt(), 0);
        // Every object shown (objectsBesides no queue).
        QStringList shown = gatehouse::test::objectsBesides(snap, QString());
        shown.sort();
        QCOMPARE(shown, (QStringList{QStringLiteral("queues messages"),
                                     QStringLiteral("queues messages__queue")}));

        // Released now through the CLI: in the stream, as the transport's
        // get() moves a due message.
        CliRun run = cli(server, {QStringLiteral("queue"), QStringLiteral("release"),
                                  QStringLiteral("messages__queue"), QStringLiteral("--all")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QVERIFY2(run.out.contains(QLatin1String("Moved 1 delayed")), qPrintable(run.out));
        QJsonObject after = app.counts();
        QCOMPARE(after[QStringLiteral("delayed")].toInt(), 0);
        QCOMPARE(after[QStringLiteral("stream")].toInt(), 3);

        // The killed consumer's entry claimed to c2 (the stream pattern's
        // claim); c2 then handles it (its second delivery), b and the
        // released c, once each, and acknowledges them.
        run = cli(server,
                  {QStringLiteral("queue"), QStringLiteral("claim"), QStringLiteral("messages"),
                   QStringLiteral("--group"), QStringLiteral("symfony"), QStringLiteral("--to"),
                   QStringLiteral("c2"), QStringLiteral("--idle"), QStringLiteral("0")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
        auto worker = app.start({QStringLiteral("work"), QStringLiteral("c2")});
        QVERIFY2(gatehouse::test::pollUntil(
                     [&] {
                         return call(client, {"LLEN", "ran"}).toInteger() >= 3;
                     },
                     30000),
                 "c2 did not handle the messages");
        gatehouse::test::stopProcess(worker);
        QStringList ran;
        const RedisValue ranList = call(client, {"LRANGE", "ran", "0", "-1"});
        for (const RedisValue &v : ranList.elements())
            ran << QString::fromUtf8(v.bytes());
        ran.sort();
        QCOMPARE(ran, (QStringList{"a", "b", "c"}));
        after = app.counts();
        QCOMPARE(after[QStringLiteral("pending")].toInt(), 0);
    }

    // The job browser's reads through the CLI: `queue search` finds a
    // delayed message by a word of its body, and `queue job` shows it by
    // its uniqid.
    void delayedSearchedAndShown()
    {
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        std::unique_ptr<RedisClient> c = gatehouse::test::connectedClient(server);
        QVERIFY(c);
        const gatehouse::test::PhpApp app{LibrariesDir + QStringLiteral("/symfony_app.php"),
                                          {server.url()}};
        QCOMPARE(app.run({QStringLiteral("produce"), QStringLiteral("now")}), QString());
        QCOMPARE(app.run({QStringLiteral("later"), QStringLiteral("600000"),
                          QStringLiteral("weekly-digest")}),
                 QString());
        QCOMPARE(app.run({QStringLiteral("later"), QStringLiteral("900000"),
                          QStringLiteral("monthly-report")}),
                 QString());
        const QString digest = QJsonDocument::fromJson(
                                   call(*c, {"ZRANGE", "messages__queue", "0", "0"}).at(0).bytes())
                                   .object()[QStringLiteral("uniqid")]
                                   .toString();
        QVERIFY(!digest.isEmpty());
        const CliRun run = cli(server, {QStringLiteral("queue"), QStringLiteral("search"),
                                        QStringLiteral("messages__queue"),
                                        QStringLiteral("weekly-digest"), QStringLiteral("--json")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
        const QJsonArray hits
            = QJsonDocument::fromJson(run.out.toUtf8()).object()[QStringLiteral("hits")].toArray();
        QCOMPARE(hits.size(), 1);
        QCOMPARE(hits.first()[QStringLiteral("state")].toString(), QStringLiteral("delayed"));
        QCOMPARE(hits.first()[QStringLiteral("id")].toString(), digest);

        const CliRun job = cli(server, {QStringLiteral("queue"), QStringLiteral("job"),
                                        QStringLiteral("messages__queue"), digest});
        QVERIFY2(job.exitCode == 0, qPrintable(job.err + job.out));
        QVERIFY2(job.out.contains(QLatin1String("run:weekly-digest")), qPrintable(job.out));
        QVERIFY2(!job.out.contains(QLatin1String("monthly-report")), qPrintable(job.out));
    }

    // Sets that resemble the transport's delayed set: "<name>__queue" scored
    // in epoch ms but holding no messages, and one of messages whose
    // "<name>" is a hash, not a stream. Each is shown read-only, saying why,
    // and releasing is refused with nothing moved.
    void resemblingDelayedSetsReadOnly()
    {
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        std::unique_ptr<RedisClient> c = gatehouse::test::connectedClient(server);
        QVERIFY(c);
        // Due a second ago, in epoch ms as the transport scores (the server is
        // on this machine: its clock).
        const QByteArray due = QByteArray::number(QDateTime::currentMSecsSinceEpoch() - 1000);
        call(*c, {"ZADD", "jobs__queue", due, "plain-1", due, "plain-2"});
        const QByteArray message = "{\"body\":\"O:36:\\\"Symfony\\\\Component\\\\Messenger"
                                   "\\\\Envelope\\\":0:{}\",\"headers\":[],\"uniqid\":\"a1\"}";
        call(*c, {"ZADD", "orders__queue", due, message});
        call(*c, {"HSET", "orders", "open", "3"});

        const QJsonObject snap = gatehouse::test::snapshotOf(
            cli(server, {QStringLiteral("snapshot"), QStringLiteral("--json")}));
        const QJsonObject plain = objectOf(snap, QStringLiteral("jobs__queue"));
        QCOMPARE(plain[QStringLiteral("pattern")].toString(), QStringLiteral("symfony-delayed"));
        QCOMPARE(plain[QStringLiteral("library")][QStringLiteral("layoutKnown")].toBool(), false);
        QVERIFY2(plain[QStringLiteral("message")].toString().contains(
                     QLatin1String("are not Symfony Messenger messages")),
                 qPrintable(plain[QStringLiteral("message")].toString()));
        const QJsonObject typed = objectOf(snap, QStringLiteral("orders__queue"));
        QCOMPARE(typed[QStringLiteral("pattern")].toString(), QStringLiteral("symfony-delayed"));
        QCOMPARE(typed[QStringLiteral("library")][QStringLiteral("layoutKnown")].toBool(), false);
        QVERIFY2(typed[QStringLiteral("message")].toString().contains(QLatin1String("a hash")),
                 qPrintable(typed[QStringLiteral("message")].toString()));

        for (const QString &set :
             {QStringLiteral("jobs__queue"), QStringLiteral("orders__queue")}) {
            const CliRun run = cli(server, {QStringLiteral("queue"), QStringLiteral("release"), set,
                                            QStringLiteral("--all")});
            QCOMPARE(run.exitCode, 3);
            QVERIFY2(run.err.contains(QLatin1String("read-only")), qPrintable(run.err + run.out));
        }
        QCOMPARE(call(*c, {"ZCARD", "jobs__queue"}).toInteger(), qint64(2));
        QCOMPARE(call(*c, {"ZCARD", "orders__queue"}).toInteger(), qint64(1));
        QCOMPARE(call(*c, {"EXISTS", "jobs"}).toInteger(), qint64(0));
        QCOMPARE(call(*c, {"TYPE", "orders"}).bytes(), QByteArray("hash"));
    }

    // Every other library's real state beside the transport's stream and
    // delayed set, among it sorted sets named as the transport names its
    // delayed set: an RQ queue "reports__queue" (its registries
    // "rq:finished:reports__queue" and "rq:failed:reports__queue", scored in
    // epoch seconds, with no stream of their name), a Laravel queue
    // "emails__queue", and a redis-semaphore "exports__queue" (its holders
    // scored in epoch ms as the transport scores, but with the TTL every
    // acquire sets); and streams with consumer groups that carry no
    // Symfony messages. Only the transport's set is Symfony's, only its
    // stream is named Symfony Messenger's, and each other library's is shown
    // as its own.
    void notTakenForOtherLibraries()
    {
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        std::unique_ptr<RedisClient> c = gatehouse::test::connectedClient(server);
        QVERIFY(c);
        gatehouse::test::OtherLibraries libraries(server, *c);
        libraries.symfony();
        libraries.rq(QStringLiteral("reports__queue"));
        libraries.laravel(QStringLiteral("laravel_database_"), QStringLiteral("emails__queue"));
        libraries.semaphore(QStringLiteral("exports__queue"));
        libraries.rest();
        QVERIFY2(libraries.failures().isEmpty(), qPrintable(libraries.failures().join(u'\n')));
        for (const char *registry : {"rq:finished:reports__queue", "rq:failed:reports__queue"})
            QCOMPARE(call(*c, {"TYPE", registry}).bytes(), QByteArray("zset"));
        QCOMPARE(call(*c, {"TYPE", "laravel_database_queues:emails__queue"}).bytes(),
                 QByteArray("list"));

        const QJsonObject snap = gatehouse::test::snapshotOf(
            cli(server, {QStringLiteral("snapshot"), QStringLiteral("--json")}));
        QCOMPARE(gatehouse::test::keysShownAs(snap, QStringLiteral("symfony-delayed")).join(u' '),
                 QStringLiteral("messages__queue"));
        QStringList named;
        for (const QString &key :
             gatehouse::test::keysShownAs(snap, QStringLiteral("stream-group"))) {
            if (objectOf(snap, key)[QStringLiteral("library")][QStringLiteral("layout")].toString()
                == QLatin1String("symfony-messenger"))
                named << key;
        }
        QCOMPARE(named.join(u' '), QStringLiteral("messages"));
        QCOMPARE(gatehouse::test::notShownAsTheirs(snap, libraries.planted()).join(u'\n'),
                 QString());
    }
};

QTEST_GUILESS_MAIN(tst_LibSymfony)
#include "tst_lib_symfony.moc"
