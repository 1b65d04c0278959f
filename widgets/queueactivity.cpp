// SPDX-License-Identifier: MIT
#include "queueactivity.h"

#include <panels/panelregistry.h>

#include <patterns/patternunit.h>

#include <QMap>

#include <algorithm>
#include <cmath>

namespace gatehouse {

namespace {

const QString Stuck = QStringLiteral("stuck");
const QString InFlight = QStringLiteral("inFlight");
const QString Processed = QStringLiteral("processed");

// The live history's span: the charts' live range.
constexpr qint64 LiveMs = 15 * 60 * 1000;
// The most queues a history range sums (each is one read of the file).
constexpr int MaxQueuesRead = 500;
// The most queue names kept to tell a new queue from one seen before.
constexpr qsizetype MaxKnownQueues = 100'000;

// The figures a queue's throughput chart charts per minute (its done and
// failed counts): their sum is the jobs it has finished.
QStringList doneFigures(PatternKind kind)
{
    QStringList ids;
    for (const Chart &c : PatternUnit::of(kind).charts()) {
        for (const Chart::Series &s : c.series) {
            if (s.perMinute && !ids.contains(s.figure))
                ids << s.figure;
        }
    }
    return ids;
}

} // namespace

// Only ever in the snapshots the Overview makes for its chart (with no
// object in them), so it cannot meet a Redis key; it names exported files.
const QByteArray QueueActivity::Key = QByteArrayLiteral("every-queue");

QueueActivity::QueueActivity()
    : m_shared(std::make_shared<Shared>())
{
    auto empty = std::make_shared<ObjectHistory>();
    empty->figures = {Stuck, InFlight, Processed};
    empty->series.resize(3);
    m_published = empty;
}

QList<Chart> QueueActivity::charts()
{
    return {{QStringLiteral("Stuck and in flight"),
             QStringLiteral("jobs"),
             {{Stuck, QStringLiteral("stuck")}, {InFlight, QStringLiteral("in flight")}}},
            {QStringLiteral("Throughput"),
             QStringLiteral("jobs/min"),
             {{Processed, QStringLiteral("finished /min"), 1.0, true}}}};
}

QueueActivity::Sums QueueActivity::sum(const Snapshot &snapshot)
{
    Sums sums;
    const qint64 at = snapshot.server.timeMs;
    sums.atMs = at;
    // The section and done figures per kind, asked once per kind: the
    // objects of a kind share its id's pointer, so most objects cost a
    // pointer compare.
    const char *lastKind = nullptr;
    bool lastIsQueue = false;
    QHash<PatternKind, QStringList> figuresOf;
    for (const ObjectState &o : snapshot.objects) {
        if (o.object->kind.name() != lastKind) {
            lastKind = o.object->kind.name();
            lastIsQueue = PanelRegistry::instance().inQueueActivity(o.object->kind);
        }
        if (!lastIsQueue || o.gone)
            continue;
        sums.queues.append({o.object->key, o.object->kind});
        const Reading r = o.reading.at(at);
        sums.stuck += double(std::max<qint64>(0, r.queue().stuck));
        sums.inFlight += double(std::max<qint64>(0, r.queue().inFlight));
        auto f = figuresOf.find(o.object->kind);
        if (f == figuresOf.end())
            f = figuresOf.insert(o.object->kind, doneFigures(o.object->kind));
        if (f->isEmpty()) {
            if (o.throughputPerS > 0 && std::isfinite(o.throughputPerS))
                sums.donePerS += o.throughputPerS;
            continue;
        }
        double done = 0;
        for (const Figure &figure : PatternUnit::of(o.object->kind).figures()) {
            if (f->contains(figure.id)) {
                const double v = figure.value(r, at);
                if (!std::isnan(v))
                    done += v;
            }
        }
        sums.done.insert(o.object->key, done);
    }
    return sums;
}

bool QueueActivity::add(const Sums &sums)
{
    const qint64 at = sums.atMs;
    if (at <= 0 || at <= m_lastAtMs)
        return false;
    // A queue that keeps no count of finished jobs (a hand-written reliable
    // queue) finished its rate times the time since the last sums: without
    // it the Overview said "0 throughout" while the Queues page said 2 /s.
    if (m_lastAtMs > 0)
        m_done += sums.donePerS * double(at - m_lastAtMs) / 1000.0;
    m_lastAtMs = at;
    // What each queue finished since the last sums; a queue seen for the
    // first time only sets where it starts (its past is not this moment's).
    for (auto it = sums.done.cbegin(); it != sums.done.cend(); ++it) {
        const auto last = m_lastDone.constFind(it.key());
        if (last != m_lastDone.cend())
            m_done += std::max(0.0, it.value() - last.value());
    }
    m_lastDone = sums.done;
    // Queues come and go (a drained list's key is deleted): a queue seen
    // before is not new when it comes back. Bounded: a keyspace of
    // short-lived queue names starts the set again.
    if (m_known.size() > MaxKnownQueues)
        m_known.clear();
    bool gained = false;
    for (const auto &queue : sums.queues) {
        if (!m_known.contains(queue.first)) {
            m_known.insert(queue.first);
            gained = true;
        }
    }
    {
        QMutexLocker lock(&m_shared->mutex);
        m_shared->queues = sums.queues;
    }
    auto next = std::make_shared<ObjectHistory>(*m_published);
    const double values[3] = {sums.stuck, sums.inFlight, m_done};
    for (int f = 0; f < 3; ++f) {
        QList<QPointF> &points = next->series[f];
        points.append(QPointF(double(at), values[f]));
        const auto old = std::find_if(points.cbegin(), points.cend(), [at](const QPointF &p) {
            return p.x() >= double(at - LiveMs);
        });
        points.erase(points.cbegin(), old);
    }
    m_published = next;
    return gained;
}

QueueActivity::Reader QueueActivity::reader() const
{
    return [shared = m_shared](const QString &path, const QByteArray &, qint64 fromMs,
                               qint64 toMs) -> std::optional<HistoryRange> {
        QList<QPair<QByteArray, PatternKind>> queues;
        {
            QMutexLocker lock(&shared->mutex);
            queues = shared->queues;
        }
        // Ticks write every object at once, so the queues' points share
        // their times: sums by time.
        QMap<qint64, double> stuck, inFlight, rises;
        bool any = false;
        for (int q = 0; q < queues.size() && q < MaxQueuesRead; ++q) {
            QString error;
            const std::optional<HistoryRange> range
                = HistoryStore::read(path, queues.at(q).first, fromMs, toMs, &error);
            if (!range)
                return std::nullopt;
            any = true;
            for (const QPointF &p : range->points(Stuck))
                if (!std::isnan(p.y()))
                    stuck[qint64(p.x())] += p.y();
            for (const QPointF &p : range->points(InFlight))
                if (!std::isnan(p.y()))
                    inFlight[qint64(p.x())] += p.y();
            QMap<qint64, double> done;
            for (const QString &figure : doneFigures(queues.at(q).second)) {
                for (const QPointF &p : range->points(figure))
                    if (!std::isnan(p.y()))
                        done[qint64(p.x())] += p.y();
            }
            double last = qQNaN();
            for (auto it = done.cbegin(); it != done.cend(); ++it) {
                rises[it.key()] += std::isnan(last) ? 0.0 : std::max(0.0, it.value() - last);
                last = it.value();
            }
        }
        HistoryRange out;
        out.key = QueueActivity::Key;
        out.figures = {Stuck, InFlight, Processed};
        if (!any)
            return out;
        QMap<qint64, bool> times;
        for (const auto *m : {&stuck, &inFlight, &rises})
            for (auto it = m->cbegin(); it != m->cend(); ++it)
                times.insert(it.key(), true);
        out.values.resize(3);
        double total = 0;
        for (auto it = times.cbegin(); it != times.cend(); ++it) {
            out.times.append(it.key());
            out.values[0].append(float(stuck.value(it.key())));
            out.values[1].append(float(inFlight.value(it.key())));
            total += rises.value(it.key());
            out.values[2].append(float(total));
        }
        return out;
    };
}

} // namespace gatehouse
