// SPDX-License-Identifier: MIT
#pragma once

#include <patterns/patternobject.h>

#include <QElapsedTimer>
#include <QHash>
#include <QList>
#include <QObject>
#include <QSet>

#include <functional>
#include <memory>

namespace gatehouse {

class Discovery;

// Autodetecting, keyspace events name keys no object holds: a key written
// since the last scan is judged at once (a Discovery of just those keys)
// instead of at the next rescan. At most Batch keys every EveryMs; a family
// whose keys were judged ordinary FamilyTries times (a library's job hashes,
// a cache) and the families the last scan judged ordinary are not asked
// about again until the next scan. A key written or deleted while it is
// judged is judged again; one whose TYPE failed (a slot moving, a node
// failing over) is asked again a few times. On the monitor's thread.
class EventKeyJudge
{
public:
    static constexpr int Batch = 64;
    static constexpr int EveryMs = 200;
    static constexpr int FamilyTries = 3;
    static constexpr int UnreadTries = 5;
    static constexpr qsizetype MaxPending = 4096;

    // What the judge asks of the monitor.
    struct Host
    {
        std::function<bool(const QByteArray &key)> tracked; // an object holds key
        std::function<bool()> canRead; // started, not paused, its connection ready
        std::function<std::unique_ptr<Discovery>()> discovery; // on the monitor's client
        std::function<void(const QList<PatternObject> &objects)> found;
    };

    // Batches are scheduled on context's thread, for as long as it lives.
    EventKeyJudge(QObject *context, Host host);
    ~EventKeyJudge();

    // A keyspace event (or an action's write, "written") named key, which no
    // object holds.
    void note(const QByteArray &key, const QByteArray &event);
    // The monitor stopped: nothing pending or being judged is kept.
    void stop();
    // A new world (another master): every key is judged afresh.
    void newWorld();
    // A scan finished, finding ordinaryFamilies: keys written from now on are
    // judged afresh, except those of these families.
    void scanned(QSet<QByteArray> ordinaryFamilies);

private:
    void judgeNext();
    void judged(const QList<QByteArray> &keys, bool cancelled);
    void schedule(qint64 waitMs);
    void pend(const QByteArray &key);

    QObject *m_context;
    Host m_host;
    std::unique_ptr<Discovery> m_discovery;
    QList<QByteArray> m_pending;          // in arrival order
    QSet<QByteArray> m_pendingSet;        // the same, for lookups
    QSet<QByteArray> m_judged;            // judged since the last scan
    QHash<QByteArray, bool> m_judging;    // being judged -> written since (judge again)
    QHash<QByteArray, int> m_familyTries; // family -> keys judged ordinary since the last scan
    QSet<QByteArray> m_ordinaryFamilies;  // the last scan's ordinary families
    QHash<QByteArray, int> m_unreadTries; // key -> TYPE failures since the last scan
    QElapsedTimer m_lastBatch;
    bool m_scheduled = false;
};

} // namespace gatehouse
