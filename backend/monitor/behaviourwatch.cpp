// SPDX-License-Identifier: MIT
#include "behaviourwatch.h"

#include <patterns/behaviourreadings.h>
#include <patterns/keyclassifier.h>
#include <patterns/objectread.h>
#include <patterns/patternregistry.h>
#include <redis/redisclient.h>

#include <algorithm>

namespace gatehouse {

BehaviourWatch::BehaviourWatch(RedisClient *client, const QObject *context, Host host)
    : m_client(client)
    , m_context(context)
    , m_host(std::move(host))
{}

void BehaviourWatch::note(BehaviourTrack &behaviour, const QByteArray &event)
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

void BehaviourWatch::watch(const QList<Candidate> &candidates, qint64 untilMs)
{
    for (const Candidate &c : candidates) {
        if (m_watched.size() >= MaxWatched)
            break;
        if (c.count != 1 || m_seen.contains(c.example.key) || m_demotedKeys.contains(c.example.key))
            continue;
        m_seen.insert(c.example.key);
        Watched w;
        w.object = c.example;
        w.untilMs = untilMs;
        m_watched.append(w);
    }
}

void BehaviourWatch::noteEvent(const QByteArray &key, const QByteArray &event)
{
    for (Watched &w : m_watched) {
        if (w.object->key == key || w.object->related.contains(key)
            || w.object->members.contains(key))
            note(w.behaviour, event);
    }
}

void BehaviourWatch::newWorld()
{
    for (Watched &w : m_watched) {
        w.behaviour = {};
        w.read = false; // its last reading is another server's
    }
}

void BehaviourWatch::demoted(const PatternObject &o)
{
    m_demoted.append(o);
    m_demotedKeys.insert(o.key);
}

void BehaviourWatch::read()
{
    const qint64 now = m_host.serverNow();
    m_watched.removeIf([now](const Watched &w) { return now > w.untilMs; });
    if (m_watched.isEmpty() || m_readInFlight)
        return;
    QList<ObjectProbe> probes;
    ProbeContext ctx;
    ctx.nowMs = now;
    for (Watched &w : m_watched) {
        readingSent(w.behaviour, !w.read);
        probes.append({&PatternUnit::of(w.object->kind), w.object, ctx});
    }
    m_readInFlight = true;
    readObjects(*m_client, m_context, probes, [this, probes, ctx](const ObjectReplies &replies) {
        m_readInFlight = false;
        for (qsizetype b = 0; b < probes.size(); ++b) {
            const QList<RedisValue> &part = replies.at(b);
            const QByteArray &key = probes.at(b).object->key;
            const auto w = std::find_if(m_watched.begin(), m_watched.end(),
                                        [&](const Watched &x) { return x.object->key == key; });
            if (w == m_watched.end()
                || std::any_of(part.cbegin(), part.cend(),
                               [](const RedisValue &v) { return v.isFailed(); }))
                continue;
            const PatternUnit &unit = PatternUnit::of(w->object->kind);
            Reading reading = unit.read(probes.at(b).object, part, ctx);
            if (w->read) {
                w->behaviour.eventsLive = m_host.eventsHeardSince(w->last.atMs);
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
                m_host.unconfirmed(o); // shown with the candidate: why it is still one
                continue;
            }
            // Confirmed: shown, and watched on as a shown object.
            m_promotedKeys.insert(o.key);
            const BehaviourTrack behaviour = w->behaviour;
            const qint64 until = w->untilMs;
            m_watched.erase(w);
            m_host.confirmed(o, behaviour, until);
        }
    });
}

void BehaviourWatch::applyVerdicts(QList<Candidate> &candidates, QList<OtherFamily> &other) const
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
            x.kind = AutoDetector::ordinaryKind(family, FamilyStats(), &x.reason);
            x.type = PatternUnit::of(o.kind).keyType();
            other.append(x);
            f = other.end() - 1;
        }
        f->keys += o.keys().size();
        if (f->sampleKeys.size() < 3)
            f->sampleKeys.append(o.key);
    }
}

} // namespace gatehouse
