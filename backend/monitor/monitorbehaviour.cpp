// SPDX-License-Identifier: MIT
// The monitor's side of the behaviour watch (Monitor::Options::behaviourTicks):
// the verdicts of what shown autodetected objects' keys did over their first
// ticks, and demotions; the candidates watched and promoted, and what was
// decided, are BehaviourWatch's. The monitor's other roles only call in here.
#include "monitor.h"

#include <patterns/patternregistry.h>

#include <algorithm>
#include <functional>

namespace gatehouse {

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
    for (int i : std::as_const(drop))
        m_watch.demoted(objectAt(i));
    removeTracked(std::move(drop));
    applyVerdicts();
    publish();
}

void Monitor::removeTracked(QList<int> indices)
{
    std::sort(indices.begin(), indices.end(), std::greater<int>());
    for (int i : std::as_const(indices)) {
        m_tracked.removeAt(i);
        m_states.removeAt(i);
    }
    m_replaced.moved(); // the indices after each moved
    m_byKey.clear();
    m_byPrimaryKey.clear();
    for (int i = 0; i < m_tracked.size(); ++i) {
        m_byPrimaryKey.insert(objectAt(i).key, i);
        indexKeys(i);
    }
    m_historyCache.clear();
    m_attentionAtMs = -1;
}

void Monitor::applyVerdicts()
{
    QList<Candidate> candidates = m_candidates ? *m_candidates : QList<Candidate>();
    QList<OtherFamily> other = m_other ? *m_other : QList<OtherFamily>();
    m_watch.applyVerdicts(candidates, other);
    m_candidates = std::make_shared<const QList<Candidate>>(std::move(candidates));
    m_other = std::make_shared<const QList<OtherFamily>>(std::move(other));
}

void Monitor::watchCandidates()
{
    if (m_options.behaviourTicks <= 0 || m_options.singleReading || !m_candidates)
        return;
    m_watch.watch(*m_candidates,
                  serverNow() + qint64(m_options.behaviourTicks) * m_options.intervalMs);
}

BehaviourWatch::Host Monitor::behaviourHost()
{
    BehaviourWatch::Host host;
    host.serverNow = [this] {
        return serverNow();
    };
    host.eventsHeardSince = [this](qint64 atMs) {
        return eventsHeardSince(atMs);
    };
    host.unconfirmed = [this](const PatternObject &o) {
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
    };
    host.confirmed
        = [this](const PatternObject &o, const BehaviourTrack &behaviour, qint64 untilMs) {
              applyVerdicts(); // no longer a candidate
              const qsizetype before = m_tracked.size();
              addObjects({o}, true);
              if (m_tracked.size() > before) {
                  Tracked &t = m_tracked.last();
                  t.behaviour = std::make_shared<BehaviourTrack>(behaviour);
                  t.observeUntilMs = untilMs;
                  t.hotUntilMs = untilMs;
              }
              Q_EMIT objectsFound({o});
              if (!m_eventTimer.isActive())
                  m_eventTimer.start();
          };
    return host;
}

} // namespace gatehouse
