// SPDX-License-Identifier: MIT
// The monitor's probes: a run's objects sent in pipelined batches (paced
// with budgeted polling), their replies read by each object's unit.
#include "monitor.h"
#include "rereadcheck.h"
#include "transientreply.h"

#include <patterns/behaviourreadings.h>
#include <patterns/objectread.h>
#include <redis/redisclient.h>
#include <redis/serverinfo.h>

#include <QDateTime>

#include <algorithm>
#include <cmath>

namespace gatehouse {

void Monitor::probe(const QList<int> &indices, bool fullTick, bool paced)
{
    if (!m_awaited.address.isEmpty())
        return; // a read now may reach the demoted master (awaitMaster)
    if (fullTick) {
        if (m_tickInFlight)
            return; // the server is slower than the interval: skip, never pile up
        m_tickInFlight = true;
        m_tickClock.start();
        m_lastRoundTrips = 0;
        m_lastCommands = 0;
        m_lastObjectsRead = int(indices.size());
        // A large pass replaces as many states; refreshing adaptively, the
        // ticks after it read few (MemoryTrim).
        m_trim.armForPass(indices.size(),
                          m_options.adaptive
                              && (m_server.eventsLive || m_options.budgetPercent > 0),
                          indices.isEmpty() ? ObjectList::Ptr() : m_states.at(indices.first()));
    }
    ++m_runsInFlight; // until finishRun: the run holds indices into m_tracked
    auto run = std::make_shared<ProbeRun>();
    run->indices = indices;
    run->fullTick = fullTick;
    run->paced = paced;
    run->world = m_server.world.generation;
    if (paced) {
        // Spread over 70 % of the interval, so the tick is done before the next.
        const qsizetype batches = (indices.size() + PacedBatchObjects - 1) / PacedBatchObjects;
        run->spacingMs = batches <= 1 ? 0 : m_options.intervalMs * 7 / 10 / batches;
    }
    // A few batches in flight keep the pipe full without queueing a whole
    // tick on the server (other clients interleave) or in memory; paced,
    // one at a time.
    const int window = fullTick && !paced ? 2 : 1;
    for (int i = 0; i < window && (run->next < run->indices.size() || (fullTick && i == 0)); ++i)
        sendBatch(run);
}

void Monitor::sendBatch(const std::shared_ptr<ProbeRun> &run)
{
    const qsizetype chunk
        = run->paced ? std::min<qsizetype>(PacedBatchObjects, std::max(1, m_options.batchObjects))
                     : std::max(1, m_options.batchObjects);
    SentBatch sent;
    sent.indices = run->indices.mid(run->next, chunk);
    ++run->batchesSent;
    sent.sentNs = m_clock.nsecsElapsed();
    sent.withTime = run->fullTick && run->next == 0;
    run->next += chunk;
    sent.sentAt = QDateTime::currentMSecsSinceEpoch();
    const qint64 now = sent.sentAt + m_offsetMs;
    QList<RedisClient::Command> commands;
    sent.probed.reserve(sent.indices.size());
    if (sent.withTime) {
        commands.append({"TIME"});
        sent.readyEpoch = m_readyEpoch;
        // FLUSHALL, FLUSHDB and SWAPDB publish no keyspace event: the key
        // count and the command counts tell (noteKeyspace), read ahead of
        // the tick's probes on the same connection.
        if (m_options.singleReading) {
            // One reading: nothing to compare it with.
        } else if (keyspaceInTick()) {
            sent.withDbSize = !m_dbSizeRefused;
            sent.withCommandStats = !m_commandStatsRefused;
            if (sent.withDbSize)
                commands.append({"DBSIZE"});
            if (sent.withCommandStats)
                commands.append(RedisClient::Command{"INFO", "commandstats"});
        } else {
            readNodeKeyspaces();
        }
    }
    for (int i : std::as_const(sent.indices)) {
        Tracked &t = m_tracked[i];
        run->carriesWrites |= t.dirty; // a keyspace event said it was written
        t.dirty = false;
        if (t.behaviour)
            readingSent(*t.behaviour, !t.track.everRead);
        const PatternObject &object = objectAt(i);
        ProbeContext ctx;
        ctx.nowMs = now;
        ctx.detail = !m_detailKey.isEmpty() && object.key == m_detailKey;
        ctx.track = t.track.ownPart();
        const auto cmds = t.unit->probe(object, ctx);
        sent.probed.append(m_states.at(i));
        commands.append(cmds);
        sent.counts.append(int(cmds.size()));
        sent.contexts.append(ctx);
    }
    if (run->fullTick) {
        ++m_lastRoundTrips;
        m_lastCommands += commands.size();
    }
    ++run->outstanding;
    RedisClient *client = m_client;
    if (!run->fullTick && m_eventClient && m_eventClient->state() == RedisConnection::State::Ready)
        client = m_eventClient.get();
    client->pipeline(commands, &m_context, [this, run, sent](const QList<RedisValue> &replies) {
        receiveBatch(run, sent, replies);
    });
}

void Monitor::receiveBatch(const std::shared_ptr<ProbeRun> &run, const SentBatch &sent,
                           const QList<RedisValue> &replies)
{
    qsizetype at = 0;
    const qint64 arrived = m_clock.elapsed();
    if (run->paced) {
        const qint64 rttNs = m_clock.nsecsElapsed() - sent.sentNs;
        run->busyNs += rttNs;
        run->trips.append({sent.indices.size(), double(rttNs) / 1000.0});
    }
    // Answered far later than planned (below): not taken.
    bool late = false;
    if (sent.withTime) {
        if (replies.value(0).isFailed())
            run->failed = true;
        const qint64 serverMs = serverTimeMs(replies.value(0));
        // Sent before the last reconnect (held while connecting): its round
        // trip spans the outage, and may reach another server.
        if (serverMs > 0 && sent.readyEpoch != m_readyEpoch) {
            late = true;
        } else if (serverMs > 0) {
            setServerClock(serverMs, sent.sentAt, QDateTime::currentMSecsSinceEpoch());
            late = !sent.contexts.isEmpty() && serverMs - sent.contexts.first().nowMs > LateReplyMs;
        } else if (!replies.value(0).isFailed()) {
            m_server.timeMs = serverNow(); // TIME refused: the local clock, as the notes say
        }
        at = 1;
        const RedisValue dbSize = sent.withDbSize ? replies.value(at++) : RedisValue();
        const RedisValue commandStats = sent.withCommandStats ? replies.value(at++) : RedisValue();
        // A FLUSHALL seen here begins a new world: this run's readings are
        // then discarded (ProbeRun::world) and every object is read again.
        if ((sent.withDbSize || sent.withCommandStats) && run->world == m_server.world.generation
            && sent.readyEpoch == m_readyEpoch)
            noteKeyspace(QString(), dbSize, commandStats);
    }
    // Answered late (a stalled or sleeping server runs what waited when it
    // wakes; a batch held while reconnecting): the replies are as of when
    // it ran them, by its TIME just before, but the probes were planned for
    // the tick's time (a window counted as of then, a TTL read long after):
    // not taken. Those objects stay as they were, stale, and are read again
    // at once, on time; the tick leaves no history sample (ProbeRun::failed).
    if (late) {
        for (int i : sent.indices)
            m_tracked[i].dirty = true;
        m_fullPassDue = true;
        run->failed = true;
        if (!m_eventTimer.isActive())
            m_eventTimer.start();
        --run->outstanding;
        continueRun(run);
        return;
    }
    const SentBatch &batch = sent;
    ObjectReplies parts;
    parts.reserve(batch.indices.size());
    for (qsizetype b = 0; b < batch.indices.size(); ++b) {
        parts.append(replies.mid(at, batch.counts.at(b)));
        at += batch.counts.at(b);
    }
    // The follow-ups the replies call for (a page's members' fields), in a
    // second round trip of their own; none for a world already gone.
    FollowUps more;
    if (run->world == m_server.world.generation) {
        QList<ObjectProbe> probes;
        probes.reserve(batch.indices.size());
        for (qsizetype b = 0; b < batch.indices.size(); ++b)
            probes.append({m_tracked.at(batch.indices.at(b)).unit, batch.probed.at(b)->object,
                           batch.contexts.at(b)});
        more = followUpsOf(probes, parts);
    }
    if (more.isEmpty()) {
        absorbBatch(run, batch, parts, arrived);
        return;
    }
    if (run->fullTick) {
        ++m_lastRoundTrips;
        m_lastCommands += more.commands.size();
    }
    m_client->pipeline(more.commands, &m_context,
                       [this, run, batch, parts, more](const QList<RedisValue> &replies) mutable {
                           appendFollowUps(parts, more, replies);
                           absorbBatch(run, batch, parts, m_clock.elapsed());
                       });
}

void Monitor::absorbBatch(const std::shared_ptr<ProbeRun> &run, const SentBatch &sent,
                          const ObjectReplies &parts, qint64 arrived)
{
    // A server busy with a script (BUSY) or loading its data (LOADING): a
    // state of the whole node that passes, unlike a slot moving (TRYAGAIN)
    // or a replica without its master (MASTERDOWN), which may last.
    const auto busy = [](const RedisValue &v) {
        return isTransientRefusal(v) && (v.errorCode() == "BUSY" || v.errorCode() == "LOADING");
    };
    for (qsizetype b = 0; b < sent.indices.size(); ++b) {
        const QList<RedisValue> &part = parts.at(b);
        // No reply (connection lost): the last reading stays. Sent
        // before a new world began: it may be the old server's.
        if (run->world != m_server.world.generation
            || std::any_of(part.cbegin(), part.cend(),
                           [](const RedisValue &v) { return v.isFailed(); })) {
            run->failed = true;
            continue;
        }
        Tracked &t = m_tracked[sent.indices.at(b)];
        // Its node busy or loading: an object read before keeps that
        // reading, ageing into stale, as after a lost reply (the tick is not
        // whole). Any other refusal is read as the error it says; so is
        // one of an object never read.
        if (t.track.everRead && std::any_of(part.cbegin(), part.cend(), busy)) {
            run->failed = true;
            continue;
        }
        t.freshAtMs = arrived;
        t.readAtServerMs = sent.contexts.at(b).nowMs;
        m_lastReplyAtMs = arrived;
        absorb(sent.indices.at(b), sent.probed.at(b)->object, part, sent.contexts.at(b));
    }
    --run->outstanding;
    continueRun(run);
}

void Monitor::continueRun(const std::shared_ptr<ProbeRun> &run)
{
    if (run->next < run->indices.size() && run->world != m_server.world.generation) {
        // A new world began: the rest would be read in vain (its replies are
        // not taken), and the new world's full pass waits for this run.
        run->next = run->indices.size();
        run->failed = true;
    }
    if (run->next < run->indices.size() && run->paced) {
        // The next batch at its slot; stopped meanwhile:
        // the rest of the tick is not sent.
        const qint64 due = run->batchesSent * run->spacingMs - m_tickClock.elapsed();
        QTimer::singleShot(std::max<qint64>(0, due), &m_context, [this, run] {
            if (m_started && !m_paused) {
                sendBatch(run);
                return;
            }
            run->next = run->indices.size();
            run->failed = true;
            if (run->outstanding == 0)
                finishRun(*run);
        });
        return;
    }
    if (run->next < run->indices.size()) {
        sendBatch(run);
        return;
    }
    if (run->outstanding == 0)
        finishRun(*run);
}

void Monitor::absorb(int index, const PatternObject &object, const QList<RedisValue> &replies,
                     const ProbeContext &ctx)
{
    Tracked &t = m_tracked[index];
    Reading reading = t.unit->read(object, replies, ctx);
    // Behaviour: what the keys did since the last reading.
    // Not across a new world: the reading before is another server's.
    const bool observed = t.observeUntilMs > 0 && t.behaviour && t.track.everRead
                          && t.world == m_server.world.generation;
    t.world = m_server.world.generation;
    if (observed) {
        // Certain only if events were heard since the earlier reading was
        // sent: a subscription renewed meanwhile missed what came before it.
        t.behaviour->eventsLive = eventsHeardSince(m_states.at(index)->reading.atMs);
        t.unit->observeBehaviour(*t.behaviour, object, m_states.at(index)->reading, reading,
                                 replies);
        ++t.behaviour->steps;
    }
    if (t.behaviour)
        readingTaken(*t.behaviour, !t.track.everRead);
    const PatternObject &current = objectAt(index);
    std::optional<PatternObject> changed = t.unit->afterRead(object, current, replies);
    if (changed) {
        // Forget the keys it no longer has (a family's used, revoked and
        // expired tokens): a family sees a stream of new keys, and the index
        // must not grow with it.
        const QList<QByteArray> kept = changed->keys();
        const QSet<QByteArray> keep(kept.cbegin(), kept.cend());
        for (const QByteArray &k : current.keys()) {
            if (!keep.contains(k))
                m_byKey.remove(k);
        }
    }
    // Budgeted polling reads hot objects every tick: one whose reading is
    // not what its last one projects to now (something wrote it) stays hot
    // for HotTicks ticks.
    const bool budgetOn = m_options.adaptive && m_options.budgetPercent > 0 && !m_server.eventsLive;
    bool hot = false;
    // Left out of takeReplaced()'s list: a re-read that only confirms the
    // last state (checked once someone takes the list).
    bool confirms = false;
    if (budgetOn && t.track.everRead) {
        const Reading projected = m_states.at(index)->reading.at(reading.atMs);
        const QList<Figure> &figures = m_figures.value(t.kind);
        hot = rereadWritten(figures, projected, reading, DurationSlackMs);
        confirms = !hot && !changed && m_replaced.taken()
                   && rereadConfirms(figures, projected, reading, DurationSlackMs);
    }
    t.unit->track(t.track, reading, ctx.nowMs);
    t.track.everRead = true;
    t.validUntilMs = t.unit->validUntilMs(object, reading);
    restate(index, std::move(reading), std::move(changed), !confirms);
    if (observed)
        applyBehaviour(index);
    if (t.observeUntilMs > 0 && ctx.nowMs > t.observeUntilMs) {
        t.observeUntilMs = 0; // watched long enough: its verdict stays in its evidence
        t.behaviour.reset();
    }
    // ... and so does one needing an operator (near its limit, work stuck).
    // A lock held is routine (its attention is how long): a new holder or a
    // moved TTL is a change, caught above.
    if (!hot && budgetOn) {
        const auto attention = t.unit->attention(*m_states.at(index), ctx.nowMs);
        hot = attention && !attention->routine;
    }
    if (hot)
        t.hotUntilMs = ctx.nowMs + qint64(HotTicks) * m_options.intervalMs;
}

} // namespace gatehouse
