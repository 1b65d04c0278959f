// SPDX-License-Identifier: MIT
#include "historyfeed.h"

#include <monitor/connectiontimeline.h>
#include <monitor/monitor.h>

#include <QDateTime>

namespace gatehouse {

namespace {

// What the feed's handlers share, on the monitor's thread.
struct FeedState
{
    bool discovered = false;
    ConnectionTimeline timeline;
};

// A tick's snapshot into history, with what the monitor replaced since the
// last one. Called at every tick, written or not, so that each take follows
// on from the last.
void feed(Monitor &monitor, HistoryStore &history, const Snapshot &snapshot, bool write)
{
    Monitor::Replaced taken = monitor.takeReplaced();
    if (!write)
        return;
    HistoryStore::Replaced replaced;
    replaced.source = taken.monitor;
    replaced.sinceSequence = taken.sinceSequence;
    replaced.sequence = taken.sequence;
    replaced.all = taken.all;
    replaced.indices = std::move(taken.indices);
    history.append(snapshot, replaced);
}

} // namespace

void feedHistoryFrom(Monitor *monitor, const std::shared_ptr<HistoryStore> &store)
{
    auto state = std::make_shared<FeedState>();
    const std::weak_ptr<HistoryStore> weak = store;
    QObject::connect(
        monitor, &Monitor::discoveryFinished, store.get(),
        [state](bool) { state->discovered = true; }, Qt::DirectConnection);
    QObject::connect(
        monitor, &Monitor::tickFinished, store.get(),
        [monitor, state, weak](const Snapshot &s) {
            if (const auto locked = weak.lock())
                feed(*monitor, *locked, s, state->discovered);
        },
        Qt::DirectConnection);
    QObject::connect(
        monitor, &Monitor::objectsFound, store.get(),
        [state, weak](const QList<PatternObject> &objects) {
            if (const auto locked = weak.lock(); locked && !state->discovered)
                locked->registerObjects(objects);
        },
        Qt::DirectConnection);
    QObject::connect(
        monitor, &Monitor::snapshotReady, store.get(),
        [state, weak](const Snapshot &s) {
            const QList<ConnectionTimeline::Entry> added
                = state->timeline.observe(s, QDateTime::currentMSecsSinceEpoch());
            if (const auto locked = weak.lock()) {
                for (const ConnectionTimeline::Entry &e : added)
                    locked->recordEvent(e.atMs, QByteArray(), e.historyKind(), e.text);
            }
        },
        Qt::DirectConnection);
}

} // namespace gatehouse
