// SPDX-License-Identifier: MIT
#include "eventkeyjudge.h"

#include "discovery.h"

#include <patterns/familyof.h>

#include <QTimer>

#include <algorithm>

namespace gatehouse {

EventKeyJudge::EventKeyJudge(QObject *context, Host host)
    : m_context(context)
    , m_host(std::move(host))
{}

EventKeyJudge::~EventKeyJudge() = default;

void EventKeyJudge::note(const QByteArray &key, const QByteArray &event)
{
    const bool gone = event == "del" || event == "expired" || event == "evicted"
                      || event == "rename_from" || event == "move_from";
    // Written or deleted while being judged: what the judge saw may be
    // neither the key before nor after (judged() judges it again).
    if (const auto it = m_judging.find(key); it != m_judging.end()) {
        *it |= !gone;
        m_judged.remove(key);
        return;
    }
    if (gone) {
        // Gone or moved away: nothing to find. A key created again is new:
        // judged again at its next write (its deletion may also have come
        // while it was judged, its event arriving after the judge's reply).
        m_judged.remove(key);
        return;
    }
    if (m_pendingSet.contains(key) || m_judged.contains(key) || m_pending.size() >= MaxPending)
        return;
    QByteArray family;
    appendFamilyOf(family, key);
    if (m_ordinaryFamilies.contains(family) || m_familyTries.value(family) >= FamilyTries)
        return;
    pend(key);
    if (m_scheduled || (m_discovery && m_discovery->isRunning()))
        return; // the running one schedules the next batch when it ends
    schedule(m_lastBatch.isValid() ? std::max<qint64>(0, EveryMs - m_lastBatch.elapsed()) : 0);
}

void EventKeyJudge::stop()
{
    m_discovery.reset();
    m_pending.clear();
    m_pendingSet.clear();
    m_judging.clear();
}

void EventKeyJudge::newWorld()
{
    m_judged.clear();
    m_judging.clear();
    m_familyTries.clear();
    m_unreadTries.clear();
}

void EventKeyJudge::scanned(QSet<QByteArray> ordinaryFamilies)
{
    m_judged.clear();
    m_familyTries.clear();
    m_unreadTries.clear();
    m_ordinaryFamilies = std::move(ordinaryFamilies);
}

void EventKeyJudge::pend(const QByteArray &key)
{
    m_pending.append(key);
    m_pendingSet.insert(key);
}

void EventKeyJudge::schedule(qint64 waitMs)
{
    m_scheduled = true;
    QTimer::singleShot(waitMs, m_context, [this] {
        m_scheduled = false;
        judgeNext();
    });
}

void EventKeyJudge::judgeNext()
{
    if (m_pending.isEmpty() || !m_host.canRead())
        return;
    if (m_discovery && m_discovery->isRunning())
        return;
    QList<QByteArray> keys = m_pending.mid(0, Batch);
    m_pending.remove(0, keys.size());
    for (const QByteArray &k : std::as_const(keys))
        m_pendingSet.remove(k);
    keys.removeIf([this](const QByteArray &k) { return m_host.tracked(k); });
    if (keys.isEmpty())
        return;
    for (const QByteArray &k : std::as_const(keys)) {
        m_judged.insert(k);
        m_judging.insert(k, false);
    }
    m_lastBatch.start();
    std::unique_ptr<Discovery> discovery = m_host.discovery();
    Discovery *d = discovery.get();
    d->setKeys(keys);
    QObject::connect(d, &Discovery::finished, m_context,
                     [this, keys](bool cancelled) { judged(keys, cancelled); });
    m_discovery = std::move(discovery);
    d->start();
}

void EventKeyJudge::judged(const QList<QByteArray> &keys, bool cancelled)
{
    const Discovery *d = m_discovery.get();
    // Touched while judged (true: written since): not judged.
    QHash<QByteArray, bool> touched;
    QList<PatternObject> found;
    for (const QByteArray &k : keys) {
        const auto it = m_judging.constFind(k);
        if (it == m_judging.cend())
            continue; // a new world or a stop cleared it
        if (it.value() || cancelled)
            touched.insert(k, it.value());
        m_judging.erase(it);
    }
    if (cancelled) {
        for (const QByteArray &k : keys)
            m_judged.remove(k);
    } else {
        found = d->objects();
        QSet<QByteArray> taken;
        for (const PatternObject &o : std::as_const(found)) {
            taken.insert(o.key);
            for (const QByteArray &k : o.related)
                taken.insert(k);
            for (const QByteArray &k : o.members)
                taken.insert(k);
        }
        const QList<QByteArray> &missing = d->missingKeys();
        for (const QByteArray &k : keys) {
            QByteArray family;
            appendFamilyOf(family, k);
            // Tracked now: if it is ever dropped, its next write is judged
            // again. Its family holds structures, whatever its other keys
            // were judged: their next keys are judged too.
            if (taken.contains(k)) {
                m_judged.remove(k);
                m_familyTries.remove(family);
                continue;
            }
            // Deleted before it was judged (a lock released at once), or
            // changed meanwhile: no evidence about its family, and its next
            // write is judged.
            if (missing.contains(k) || !m_judged.contains(k)) {
                m_judged.remove(k);
                continue;
            }
            ++m_familyTries[family];
        }
        // Unread (TYPE failed while a slot moved or a node failed over):
        // asked again with the next batch, a few times, not left to the
        // rescan.
        for (const QByteArray &k : d->unreadKeys()) {
            if (m_host.tracked(k) || m_pendingSet.contains(k) || ++m_unreadTries[k] > UnreadTries)
                continue;
            pend(k);
        }
    }
    // Written while judged: judged again with what it holds now.
    for (auto it = touched.cbegin(); it != touched.cend(); ++it) {
        if (it.value() && !m_host.tracked(it.key()) && !m_pendingSet.contains(it.key())) {
            m_judged.remove(it.key());
            pend(it.key());
        }
    }
    if (!found.isEmpty())
        m_host.found(found);
    if (!m_pending.isEmpty() && !m_scheduled)
        schedule(EveryMs);
}

} // namespace gatehouse
