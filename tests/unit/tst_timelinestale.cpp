// SPDX-License-Identifier: MIT
// The timeline's "readings stale" and "readings current" entries
// (ConnectionTimeline, behind the console's Timeline page and `watch
// --history`), over snapshots that share the states they did not replace, as
// the monitor's do: the count follows what each snapshot replaced, whatever
// came before.
#include <monitor/connectiontimeline.h>

#include <QDateTime>
#include <QTest>

using namespace gatehouse;

namespace {

ObjectList::Ptr state(bool stale, qint64 staleSinceMs = -1, bool gone = false)
{
    auto s = std::make_shared<ObjectState>();
    s->stale = stale;
    s->staleSinceMs = stale ? staleSinceMs : -1;
    s->gone = gone;
    return s;
}

Snapshot snapshotOf(const QList<ObjectList::Ptr> &states, qint64 atMs)
{
    Snapshot s;
    s.server.timeMs = atMs;
    for (const ObjectList::Ptr &p : states)
        s.objects.append(p);
    return s;
}

// The one entry a snapshot of these states adds, as "event: text"; empty
// when it adds none or more.
QString addedEntry(ConnectionTimeline &timeline, const QList<ObjectList::Ptr> &states, qint64 at)
{
    const QList<ConnectionTimeline::Entry> added = timeline.observe(snapshotOf(states, at), at);
    return added.size() == 1 ? added.at(0).event + QStringLiteral(": ") + added.at(0).text
                             : QString();
}

QStringList events(const QList<ConnectionTimeline::Entry> &entries)
{
    QStringList out;
    for (const ConnectionTimeline::Entry &e : entries)
        out << e.event;
    return out;
}

} // namespace

class tst_TimelineStale : public QObject
{
    Q_OBJECT

private slots:
    // One state replaced by a stale one, the rest shared: the entry says how
    // many and since when; more going stale adds nothing; every one read
    // again says the readings are current.
    void staleThenCurrentAcrossSharedSnapshots()
    {
        const qint64 t = 1'700'000'000'000;
        QList<ObjectList::Ptr> states{state(false), state(false), state(false), state(false)};
        ConnectionTimeline timeline;
        QCOMPARE(events(timeline.observe(snapshotOf(states, t), t)), QStringList());

        states[2] = state(true, t - 5000);
        const QString first = addedEntry(timeline, states, t + 1000);
        QVERIFY2(first.startsWith(QLatin1String("readingsStale: Stale: 1 object,")),
                 qPrintable(first));

        states[0] = state(true, t - 9000);
        states[3] = state(true, t - 4000);
        QCOMPARE(events(timeline.observe(snapshotOf(states, t + 2000), t + 2000)), QStringList());

        // Read again one by one: current only once the last one is.
        states[0] = state(false);
        states[2] = state(false);
        QCOMPARE(events(timeline.observe(snapshotOf(states, t + 3000), t + 3000)), QStringList());
        states[3] = state(false);
        QCOMPARE(events(timeline.observe(snapshotOf(states, t + 4000), t + 4000)),
                 QStringList{QStringLiteral("readingsCurrent")});
    }

    // The count and the oldest reading of the objects stale when it begins,
    // wherever they are; a gone object is not stale.
    void countsEveryStaleObjectAndTheOldestReading()
    {
        const qint64 t = 1'700'000'000'000;
        QList<ObjectList::Ptr> states{state(false), state(false), state(false)};
        ConnectionTimeline timeline;
        timeline.observe(snapshotOf(states, t), t);
        states[0] = state(true, t - 3000);
        states[1] = state(true, t - 60000, true); // gone: not stale
        states[2] = state(true, t - 7000);
        const QString added = addedEntry(timeline, states, t + 1000);
        const QString oldest
            = QDateTime::fromMSecsSinceEpoch(t - 7000).toString(QStringLiteral("HH:mm:ss"));
        QVERIFY2(added.startsWith(QLatin1String("readingsStale: Stale: 2 objects,"))
                     && added.contains(QStringLiteral("since ") + oldest),
                 qPrintable(added));
    }

    // Objects coming or going change every place: the next snapshot is
    // counted whole, and a stale object among new ones is still seen.
    void objectsComingAndGoingAreCountedWhole()
    {
        const qint64 t = 1'700'000'000'000;
        const ObjectList::Ptr staleOne = state(true, t - 2000);
        ConnectionTimeline timeline;
        timeline.observe(snapshotOf({state(false), staleOne}, t), t);
        // The same stale state, now third of three: still stale, no entry.
        QCOMPARE(events(timeline.observe(snapshotOf({state(false), state(false), staleOne}, t + 1),
                                         t + 1)),
                 QStringList());
        // Gone from the list: current.
        QCOMPARE(events(timeline.observe(snapshotOf({state(false), state(false)}, t + 2), t + 2)),
                 QStringList{QStringLiteral("readingsCurrent")});
    }
};

QTEST_GUILESS_MAIN(tst_TimelineStale)
#include "tst_timelinestale.moc"
