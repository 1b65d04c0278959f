// SPDX-License-Identifier: MIT
// BehaviourWatch: single-instance candidates read on a real server while
// their keys change, and confirmed (shown) or kept as candidates with the
// verdict; keyspace events noted for the right keys only; and what the
// watch decided applied to a rescan's lists (README, "Autodetection").
#include <monitor/behaviourwatch.h>
#include <patterns/keyclassifier.h>
#include <redis/redisclient.h>

#include "monitortest.h"
#include "redisserver.h"

#include <QDateTime>
#include <QTest>

using namespace gatehouse;
using gatehouse::test::call;
using gatehouse::test::RedisServer;
using gatehouse::test::monitortest::behaviourWeight;

namespace {

const PatternKind Lock{"lock"};

// A single-instance lock candidate: its name is its one piece of evidence
// (under AutoDetector::Threshold; a confirmation lifts it over).
Candidate lockCandidate(const QByteArray &key, int count = 1)
{
    PatternObject o;
    o.kind = Lock;
    o.key = key;
    o.source = QStringLiteral("autodetected");
    o.evidence = {{Evidence::Kind::Name, 2, QStringLiteral("named like a lock")}};
    Candidate c;
    c.kind = Lock;
    c.family = familyOf(key);
    c.count = count;
    c.keys = count;
    c.score = evidenceScore(o.evidence);
    c.sampleKeys = {key};
    c.evidence = o.evidence;
    c.example = o;
    return c;
}

// The watch on a connection, with what it told its host.
struct Watch
{
    explicit Watch(RedisClient *client)
        : watch(client, &context, host())
    {}

    BehaviourWatch::Host host()
    {
        BehaviourWatch::Host h;
        h.serverNow = [] {
            return QDateTime::currentMSecsSinceEpoch();
        };
        h.eventsHeardSince = [this](qint64) {
            return eventsLive;
        };
        h.unconfirmed = [this](const PatternObject &o) {
            unconfirmed.append(o);
        };
        h.confirmed = [this](const PatternObject &o, const BehaviourTrack &b, qint64 until) {
            confirmed.append(o);
            behaviour = b;
            confirmedUntil = until;
        };
        return h;
    }

    // One reading of every candidate watched, its reply handled.
    bool readOnce()
    {
        watch.read();
        return QTest::qWaitFor([this] { return !watch.reading(); }, 5000);
    }

    QObject context;
    bool eventsLive = false;
    QList<PatternObject> unconfirmed;
    QList<PatternObject> confirmed;
    BehaviourTrack behaviour;
    qint64 confirmedUntil = 0;
    BehaviourWatch watch;
};

qint64 inAMinute()
{
    return QDateTime::currentMSecsSinceEpoch() + 60000;
}

} // namespace

class tst_BehaviourWatch : public QObject
{
    Q_OBJECT

private:
    RedisServer m_server;
    std::unique_ptr<RedisClient> m_client;

    void take(const QByteArray &key, const QByteArray &token)
    {
        call(*m_client, {"SET", key, token, "PX", "600000"});
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(m_server.start(), qPrintable(m_server.errorString()));
        m_client = gatehouse::test::connectedClient(m_server);
        QVERIFY(m_client);
    }

    void init() { call(*m_client, {"FLUSHALL"}); }

    // Single instances only, each once, never one demoted, at most MaxWatched.
    void watchesSingleInstancesOnce()
    {
        Watch w(m_client.get());
        PatternObject demoted = lockCandidate("lock:demoted").example;
        w.watch.demoted(demoted);
        QVERIFY(w.watch.isDemoted("lock:demoted"));
        const QList<Candidate> scan{lockCandidate("lock:one"), lockCandidate("lock:family:1", 40),
                                    lockCandidate("lock:demoted")};
        w.watch.watch(scan, inAMinute());
        QCOMPARE(w.watch.watched(), 1);
        w.watch.watch(scan, inAMinute()); // a rescan finds it again: not twice
        QCOMPARE(w.watch.watched(), 1);

        QList<Candidate> many;
        for (int n = 0; n < BehaviourWatch::MaxWatched + 10; ++n)
            many << lockCandidate("lock:many:" + QByteArray::number(n));
        w.watch.watch(many, inAMinute());
        QCOMPARE(w.watch.watched(), BehaviourWatch::MaxWatched);
    }

    // Released before its TTL ran out and taken again with a new token, as a
    // lock is: confirmed, handed to the host to show, watched no more, and
    // no longer a candidate in a rescan's lists.
    void confirmedByWhatItDoes()
    {
        take("lock:c:1", "holder-a");
        Watch w(m_client.get());
        const qint64 until = inAMinute();
        w.watch.watch({lockCandidate("lock:c:1")}, until);
        QVERIFY(w.readOnce());
        call(*m_client, {"DEL", "lock:c:1"});
        QVERIFY(w.readOnce());
        QVERIFY(w.confirmed.isEmpty());
        take("lock:c:1", "holder-b");
        QVERIFY(w.readOnce());
        QCOMPARE(w.confirmed.size(), 1);
        const PatternObject &o = w.confirmed.first();
        QCOMPARE(o.key, QByteArray("lock:c:1"));
        QCOMPARE(behaviourWeight(o.evidence), BehaviourTrack::ConfirmWeight);
        QVERIFY(evidenceScore(o.evidence) >= AutoDetector::Threshold);
        QVERIFY(w.behaviour.confirms >= 1);
        QCOMPARE(w.confirmedUntil, until);
        QVERIFY(w.unconfirmed.isEmpty());
        QCOMPARE(w.watch.watched(), 0);

        QList<Candidate> candidates{lockCandidate("lock:c:1"), lockCandidate("lock:c:2")};
        QList<OtherFamily> other;
        w.watch.applyVerdicts(candidates, other);
        QCOMPARE(candidates.size(), 1);
        QCOMPARE(candidates.first().example.key, QByteArray("lock:c:2"));
        QVERIFY(other.isEmpty());
    }

    // Overwritten in place while it lives, again and again (a cache under a
    // lock's name): the verdict against it goes with the candidate; it is
    // never shown.
    void overwrittenInPlaceStaysACandidate()
    {
        take("lock:cache:1", "v0");
        Watch w(m_client.get());
        w.watch.watch({lockCandidate("lock:cache:1")}, inAMinute());
        QVERIFY(w.readOnce());
        for (int n = 1; n <= BehaviourTrack::MinAgainst; ++n) {
            take("lock:cache:1", "v" + QByteArray::number(n));
            QVERIFY(w.readOnce());
        }
        QVERIFY(w.confirmed.isEmpty());
        QVERIFY(!w.unconfirmed.isEmpty());
        QCOMPARE(behaviourWeight(w.unconfirmed.last().evidence), BehaviourTrack::AgainstWeight);
        QCOMPARE(w.watch.watched(), 1); // watched on until its time is up
    }

    // With events live, a deletion heard for the candidate's key confirms
    // it even when every holder writes the same value; one heard for
    // another key does not.
    void eventsNotedForTheirKeyOnly()
    {
        take("lock:same:1", "tok");
        Watch w(m_client.get());
        w.eventsLive = true;
        w.watch.watch({lockCandidate("lock:same:1")}, inAMinute());
        QVERIFY(w.readOnce());
        w.watch.noteEvent("lock:other:1", "del");
        QVERIFY(w.readOnce());
        QVERIFY(w.confirmed.isEmpty());
        w.watch.noteEvent("lock:same:1", "del");
        QVERIFY(w.readOnce());
        QCOMPARE(w.confirmed.size(), 1);
        QVERIFY(w.confirmed.first().evidence.last().reason.contains(
            QLatin1String("deleted and taken again")));
    }

    // Another server: what the candidate did before counts for nothing, and
    // its last reading (another server's) is not compared with the next.
    void newWorldForgetsWhatWasSeen()
    {
        take("lock:w:1", "holder-a");
        Watch w(m_client.get());
        w.watch.watch({lockCandidate("lock:w:1")}, inAMinute());
        QVERIFY(w.readOnce());
        call(*m_client, {"DEL", "lock:w:1"}); // the old master's release
        QVERIFY(w.readOnce());
        w.watch.newWorld();
        take("lock:w:1", "holder-b");
        QVERIFY(w.readOnce()); // a first reading again: nothing compared
        QVERIFY(w.readOnce());
        QVERIFY(w.confirmed.isEmpty());
        QVERIFY(w.unconfirmed.isEmpty());
    }

    // Candidates whose time is up are let go without a read.
    void letGoWhenTimeIsUp()
    {
        take("lock:t:1", "holder-a");
        Watch w(m_client.get());
        w.watch.watch({lockCandidate("lock:t:1")}, QDateTime::currentMSecsSinceEpoch() - 1);
        w.watch.read();
        QVERIFY(!w.watch.reading());
        QCOMPARE(w.watch.watched(), 0);
    }

    // What the watch demoted is listed where a rescan would not find it: a
    // candidate while evidence remains, else an ordinary key in its family.
    void demotedListedAsTheWatchLeftThem()
    {
        Watch w(m_client.get());
        PatternObject weak = lockCandidate("lock:weak:1").example;
        weak.evidence.append(
            {Evidence::Kind::Behaviour, BehaviourTrack::AgainstWeight, QStringLiteral("watched")});
        PatternObject some = lockCandidate("lock:some:1").example;
        some.evidence = {{Evidence::Kind::Name, 2, QStringLiteral("named like a lock")}};
        w.watch.demoted(weak);
        w.watch.demoted(some);
        QList<Candidate> candidates;
        QList<OtherFamily> other;
        w.watch.applyVerdicts(candidates, other);
        QCOMPARE(candidates.size(), 1);
        QCOMPARE(candidates.first().example.key, QByteArray("lock:some:1"));
        QCOMPARE(other.size(), 1);
        QCOMPARE(other.first().family, familyOf("lock:weak:1"));
        QCOMPARE(other.first().sampleKeys, QList<QByteArray>{"lock:weak:1"});
        // Listed already (a rescan found it): not twice.
        w.watch.applyVerdicts(candidates, other);
        QCOMPARE(candidates.size(), 1);
        QCOMPARE(other.size(), 1);
    }
};

QTEST_GUILESS_MAIN(tst_BehaviourWatch)
#include "tst_behaviourwatch.moc"
