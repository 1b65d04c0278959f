// SPDX-License-Identifier: MIT
#pragma once

#include "autodetector.h"

#include <patterns/behaviour.h>
#include <patterns/patternobject.h>
#include <patterns/reading.h>

#include <QList>
#include <QSet>

#include <functional>

class QObject;

namespace gatehouse {

class RedisClient;

// The behaviour watch (Monitor::Options::behaviourTicks) beyond the shown
// objects, whose own notes travel with them in the monitor: what
// autodetected candidates do, and what the watch decided. A single-instance
// candidate (a family of thousands is judged by its siblings, and one
// member's behaviour does not speak for the rest) is read every tick for as
// long as a shown object is watched, its keyspace events noted; once its
// behaviour confirms it, it is shown (and watched on as a shown object);
// a verdict against it stays with the candidate. What was demoted (a shown
// object whose behaviour argued against it) and promoted is remembered, so a
// rescan finds them as the watch left them (applyVerdicts). On the monitor's
// thread.
class BehaviourWatch
{
public:
    static constexpr qsizetype MaxWatched = 64;

    // What the watch asks of the monitor.
    struct Host
    {
        std::function<qint64()> serverNow;
        // Keyspace events were live without a break since server time atMs.
        std::function<bool(qint64 atMs)> eventsHeardSince;
        // A candidate's behaviour argues against it: o carries the verdict.
        std::function<void(const PatternObject &o)> unconfirmed;
        // A candidate's behaviour confirms it: shown from now on, watched
        // until server time untilMs, what it did so far in behaviour.
        std::function<void(const PatternObject &o, const BehaviourTrack &behaviour, qint64 untilMs)>
            confirmed;
    };

    // Candidates are read on client, their replies handled while context lives.
    BehaviourWatch(RedisClient *client, const QObject *context, Host host);

    // A keyspace event (DEL, an expiry, a write) noted for a key watched.
    static void note(BehaviourTrack &behaviour, const QByteArray &event);

    // A scan's candidates: those not seen by the watch before are watched
    // until server time untilMs (at most MaxWatched at once).
    void watch(const QList<Candidate> &candidates, qint64 untilMs);
    // Reads the candidates watched (one read in flight at most); those whose
    // time is up are let go.
    void read();
    // A keyspace event named key.
    void noteEvent(const QByteArray &key, const QByteArray &event);
    // Another server (a new world): what the candidates did before is no
    // evidence, and their last readings are another server's.
    void newWorld();

    // A shown object's behaviour argued against it: a candidate or an
    // ordinary key from now on, whatever a rescan finds.
    void demoted(const PatternObject &o);
    bool isDemoted(const QByteArray &key) const { return m_demotedKeys.contains(key); }
    // A scan's (or the current) lists as the watch left them: the demoted
    // objects among the candidates or the ordinary keys, without the
    // candidates it promoted.
    void applyVerdicts(QList<Candidate> &candidates, QList<OtherFamily> &other) const;

    qsizetype watched() const { return m_watched.size(); }
    bool reading() const { return m_readInFlight; } // a read is in flight

private:
    struct Watched
    {
        SharedObject object; // the candidate's example, its evidence as judged
        BehaviourTrack behaviour;
        Reading last;
        bool read = false;
        qint64 untilMs = 0; // server ms
    };

    RedisClient *m_client;
    const QObject *m_context;
    Host m_host;
    QList<Watched> m_watched;
    QSet<QByteArray> m_seen; // watched once: not again after a rescan
    bool m_readInFlight = false;
    QList<PatternObject> m_demoted;
    QSet<QByteArray> m_demotedKeys;
    QSet<QByteArray> m_promotedKeys;
};

} // namespace gatehouse
