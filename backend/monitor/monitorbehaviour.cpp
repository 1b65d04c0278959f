// SPDX-License-Identifier: MIT
// The monitor's behaviour watch (Monitor::Options::behaviourTicks): the
// verdicts of what autodetected objects' keys did over their first ticks,
// demotions of shown objects and promotions of candidates. The monitor's
// other roles only call in here.
#include "monitor.h"

#include <patterns/behaviourreadings.h>
#include <patterns/objectread.h>
#include <patterns/patternregistry.h>

#include <algorithm>
#include <functional>

namespace gatehouse {

void Monitor::noteEvent(BehaviourTrack &behaviour, const QByteArray &event) const
{
    // DEL and UNLINK publish "del"; a key's TTL running out "expired", the
    // memory policy "evicted" (not the application's doing: as an expiry).
    if (event == "del")
        behaviour.deletedSinceRead = true;
    else if (event == "expired" || event == "evicted")
        behaviour.expiredSinceRead = true;
    else if (event == "set" || event == "incrby" || event == "incrbyfloat" || event == "append"
             || event == "setrange")
        behaviour.writtenSinceRead = true;
}

void Monitor::setEventsLive(bool live)
{
    if (live && !m_server.eventsLive)
        m_eventsLiveSinceMs = serverNow();
    else if (!live)
        m_eventsLiveSinceMs = -1;
    m_server.eventsLive = live;
}

bool Monitor::eventsHeardSince(qint64 atMs) const
{
    return m_server.eventsLive && m_eventsLiveSinceMs >= 0 && m_eventsLiveSinceMs <= atMs;
}

void Monitor::applyBehaviour(int index)
{
    const Tracked &t = m_tracked.at(index);
    const std::optional<Evidence> verdict
        = t.behaviour ? t.behaviour->verdict(t.unit->title()) : std::nullopt;
    const PatternObject &o = objectAt(index);
    const auto old = std::find_if(o.evidence.cbegin(), o.evidence.cend(), [](const Evidence &e) {
        return e.kind == Evidence::Kind::Behaviour;
    });
    if (old == o.evidence.cend()
            ? !verdict
            : verdict && verdict->weight == old->weight && verdict->reason == old->reason)
        return;
    PatternObject changed = o;
    changed.evidence = withBehaviour(o.evidence, verdict);
    // An operator's verdict (accepted in the profile) outweighs behaviour.
    const bool accepted
        = std::any_of(o.evidence.cbegin(), o.evidence.cend(),
                      [](const Evidence &e) { return e.kind == Evidence::Kind::Profile; });
    if (!accepted && evidenceScore(changed.evidence) < AutoDetector::Threshold)
        m_demote.insert(index);
    restate(index, std::nullopt, std::move(changed));
    publish();
}

void Monitor::dropDemoted()
{
    QList<int> drop;
    for (int i : std::as_const(m_demote)) {
        if (i < m_tracked.size() && evidenceScore(objectAt(i).evidence) < AutoDetector::Threshold)
            drop.append(i); // and not lifted again since
    }
    m_demote.clear();
    if (drop.isEmpty())
        return;
    for (int i : std::as_const(drop)) {
        m_demoted.append(objectAt(i));
        m_demotedKeys.insert(objectAt(i).key);
    }
    removeTracked(std::move(drop));
    QList<Candidate> candidates = m_candidates ? *m_candidates : QList<Candidate>();
    QList<OtherFamily> other = m_other ? *m_other : QList<OtherFamily>();
    applyVerdicts(candidates, other);
    m_candidates = std::make_shared<const QList<Candidate>>(std::move(candidates));
    m_other = std::make_shared<const QList<OtherFamily>>(std::move(other));
    publish();
}

void Monitor::removeTracked(QList<int> indices)
{
    std::sort(indices.begin(), indices.end(), std::greater<int>());
    for (int i : std::as_const(indices)) {
        m_tracked.removeAt(i);
        m_states.removeAt(i);
    }
    m_replacedPendingAll = true; // the indices after each moved
    m_byKey.clear();
    m_byPrimaryKey.clear();
    for (int i = 0; i < m_tracked.size(); ++i) {
        m_byPrimaryKey.insert(objectAt(i).key, i);
        indexKeys(i);
    }
    m_historyCache.clear();
    m_attentionAtMs = -1;
}

void Monitor::applyVerdicts(QList<Candidate> &candidates, QList<OtherFamily> &other) const
{
    candidates.removeIf([this](const Candidate &c) {
        return c.count == 1 && m_promotedKeys.contains(c.example.key);
    });
    for (const PatternObject &o : m_demoted) {
        const bool listed
            = std::any_of(candidates.cbegin(), candidates.cend(),
                          [&o](const Candidate &c) {
                              return c.kind == o.kind && c.sampleKeys.contains(o.key);
                          })
              || std::any_of(other.cbegin(), other.cend(),
                             [&o](const OtherFamily &f) { return f.sampleKeys.contains(o.key); });
        if (listed)
            continue;
        const QByteArray named = !o.members.isEmpty() ? o.members.first() : o.key;
        const int score = evidenceScore(o.evidence);
        if (score > 0) {
            Candidate c;
            c.kind = o.kind;
            c.family = familyOf(named);
            c.count = 1;
            c.keys = o.keys().size();
            c.score = score;
            c.sampleKeys = {o.key};
            c.evidence = o.evidence;
            c.example = o;
            candidates.append(c);
            continue;
        }
        // Nothing left for it: an ordinary key, counted in its family.
        const QByteArray family = familyOf(named);
        auto f = std::find_if(other.begin(), other.end(),
                              [&family](const OtherFamily &x) { return x.family == family; });
        if (f == other.end()) {
            OtherFamily x;
            x.family = family;
            x.kind = AutoDetector::ordinaryKind(family, FamilyStats());
            x.type = PatternUnit::of(o.kind).keyType();
            other.append(x);
            f = other.end() - 1;
        }
        f->keys += o.keys().size();
        if (f->sampleKeys.size() < 3)
            f->sampleKeys.append(o.key);
    }
}

void Monitor::watchCandidates()
{
    if (m_options.behaviourTicks <= 0 || m_options.singleReading || !m_candidates)
        return;
    const qint64 until = serverNow() + qint64(m_options.behaviourTicks) * m_options.intervalMs;
    // Single instances only: a family of thousands is judged by its
    // siblings, and one member's behaviour does not speak for the rest.
    for (const Candidate &c : *m_candidates) {
        if (m_watchedCandidates.size() >= MaxWatchedCandidates)
            break;
        if (c.count != 1 || m_candidatesSeen.contains(c.example.key)
            || m_demotedKeys.contains(c.example.key))
            continue;
        m_candidatesSeen.insert(c.example.key);
        WatchedCandidate w;
        w.object = c.example;
        w.untilMs = until;
        m_watchedCandidates.append(w);
    }
}

void Monitor::probeCandidates()
{
    const qint64 now = serverNow();
    m_watchedCandidates.removeIf([now](const WatchedCandidate &w) { return now > w.untilMs; });
    if (m_watchedCandidates.isEmpty() || m_candidateProbeInFlight)
        return;
    QList<ObjectProbe> probes;
    ProbeContext ctx;
    ctx.nowMs = now;
    for (WatchedCandidate &w : m_watchedCandidates) {
        readingSent(w.behaviour, !w.read);
        probes.append({&PatternUnit::of(w.object->kind), w.object, ctx});
    }
    m_candidateProbeInFlight = true;
    readObjects(*m_client, &m_context, probes, [this, probes, ctx](const ObjectReplies &replies) {
        m_candidateProbeInFlight = false;
        for (qsizetype b = 0; b < probes.size(); ++b) {
            const QList<RedisValue> &part = replies.at(b);
            const QByteArray &key = probes.at(b).object->key;
            const auto w
                = std::find_if(m_watchedCandidates.begin(), m_watchedCandidates.end(),
                               [&](const WatchedCandidate &x) { return x.object->key == key; });
            if (w == m_watchedCandidates.end()
                || std::any_of(part.cbegin(), part.cend(),
                               [](const RedisValue &v) { return v.isFailed(); }))
                continue;
            const PatternUnit &unit = PatternUnit::of(w->object->kind);
            Reading reading = unit.read(probes.at(b).object, part, ctx);
            if (w->read) {
                w->behaviour.eventsLive = eventsHeardSince(w->last.atMs);
                unit.observeBehaviour(w->behaviour, w->object, w->last, reading, part);
                ++w->behaviour.steps;
            }
            readingTaken(w->behaviour, !w->read);
            w->last = std::move(reading);
            w->read = true;
            const std::optional<Evidence> verdict = w->behaviour.verdict(unit.title());
            if (!verdict)
                continue;
            PatternObject o = w->object;
            o.evidence = withBehaviour(o.evidence, verdict);
            if (evidenceScore(o.evidence) < AutoDetector::Threshold) {
                // Shown with the candidate: why it is still unconfirmed.
                QList<Candidate> candidates = m_candidates ? *m_candidates : QList<Candidate>();
                for (Candidate &c : candidates) {
                    if (c.count == 1 && c.example.key == o.key && c.kind == o.kind) {
                        c.example = o;
                        c.evidence = o.evidence;
                        c.score = evidenceScore(o.evidence);
                    }
                }
                m_candidates = std::make_shared<const QList<Candidate>>(std::move(candidates));
                publish();
                continue;
            }
            // Confirmed: shown, and watched on as a shown object.
            m_promotedKeys.insert(o.key);
            const BehaviourTrack behaviour = w->behaviour;
            const qint64 until = w->untilMs;
            m_watchedCandidates.erase(w);
            QList<Candidate> candidates = m_candidates ? *m_candidates : QList<Candidate>();
            QList<OtherFamily> other = m_other ? *m_other : QList<OtherFamily>();
            applyVerdicts(candidates, other);
            m_candidates = std::make_shared<const QList<Candidate>>(std::move(candidates));
            m_other = std::make_shared<const QList<OtherFamily>>(std::move(other));
            const qsizetype before = m_tracked.size();
            addObjects({o}, true);
            if (m_tracked.size() > before) {
                Tracked &t = m_tracked.last();
                t.behaviour = std::make_shared<BehaviourTrack>(behaviour);
                t.observeUntilMs = until;
                t.hotUntilMs = until;
            }
            Q_EMIT objectsFound({o});
            if (!m_eventTimer.isActive())
                m_eventTimer.start();
        }
    });
}

} // namespace gatehouse
