// SPDX-License-Identifier: MIT
// BullMQ's and Bull's active and oldest waiting jobs read by id: where a
// server refuses SORT ... GET (a Cluster, as a job's hash and lock hash to
// other slots than its list; a server without SORT_RO), the probe pages the
// lists and the follow-up reads each job with single-key commands.
#include "bullfamilyunit.h"

#include <redis/hashslot.h>

#include <algorithm>

namespace gatehouse {

namespace {

// The follow-up's reads of each active job: its lock, its fields, whether it
// is still active.
constexpr qsizetype ActiveReads = 3;

// What a Bull family unit keeps of a queue across its readings.
struct BullTrack : PatternTrack
{
    bool readsById = false; // a SORT ... GET was refused: never sent again
};

// What a reading says beyond the library's figures: its SORT was refused.
struct BullReadNote : PatternData
{
    bool sortRefused = false;
    PatternData *clone() const override { return new BullReadNote(*this); }
};

QList<QByteArray> idsOf(const RedisValue &page)
{
    QList<QByteArray> ids;
    if (page.type() != RedisValue::Type::Array)
        return ids;
    for (const RedisValue &v : page.elements())
        ids.append(v.bytes());
    return ids;
}

// A job's fields as SORT's GETs give them: count replies, nil where unread.
QList<RedisValue> fieldsOf(const RedisValue &hmget, qsizetype count)
{
    const bool shaped = hmget.type() == RedisValue::Type::Array && hmget.size() == count;
    QList<RedisValue> out;
    for (qsizetype j = 0; j < count; ++j)
        out.append(shaped ? hmget.at(j) : RedisValue());
    return out;
}

} // namespace

bool BullFamilyUnit::readsById(const PatternObject &o, const ProbeContext &c)
{
    if (!keyHashTag(o.key).isEmpty())
        return true;
    const BullTrack *track = c.trackAs<BullTrack>();
    return track && track->readsById;
}

void BullFamilyUnit::noteSortRefused(Reading &reading, const RedisValue &reply)
{
    if (reply.isError() && !reply.isFailed())
        reading.edit<BullReadNote>().sortRefused = true;
}

void BullFamilyUnit::track(TrackState &state, const Reading &reading, qint64) const
{
    if (reading.data<BullReadNote>().sortRefused)
        state.own<BullTrack>().readsById = true;
}

QList<PatternUnit::Command> BullFamilyUnit::idFollowUp(const PatternObject &o,
                                                       const QList<RedisValue> &r) const
{
    const qsizetype probed = probedReplies();
    const QByteArray prefix = o.key + ':';
    // Both libraries' list of active jobs ("<base>:active", or as the rule named it).
    const int activeState = m_layout.stateOf(QByteArrayLiteral("base:active"), {});
    const QByteArray active = activeState >= 0 ? m_layout.keyOf(o, activeState) : o.key + ":active";
    QList<Command> out;
    // A job that finished between the page and its lock's read has no lock
    // either: still in the active list after the lock was read (LPOS, sent
    // after it) tells a stalled job from one that moved on. Bounded: the
    // page, and as many jobs again taken since (pushed at the list's head).
    const QByteArray within = QByteArray::number(2 * std::max(1, o.params.pageSize) + 1000);
    for (const QByteArray &id : idsOf(r.at(probed - 4))) {
        out.append({"GET", prefix + id + ":lock"});
        out.append({"HMGET", prefix + id, "processedOn", "name", attemptsField()});
        out.append({"LPOS", active, id, "MAXLEN", within});
    }
    for (const QByteArray &id : idsOf(r.at(probed - 1)))
        out.append({"HMGET", prefix + id, "timestamp", "delay", "opts"});
    return out;
}

QList<RedisValue> BullFamilyUnit::asSorted(const PatternObject &o, const QList<RedisValue> &r,
                                           const ProbeContext &c) const
{
    const qsizetype probed = probedReplies();
    if (!readsById(o, c) || r.size() < probed)
        return r;
    const qsizetype activeAt = probed - 4, oldestAt = probed - 1;
    const QList<QByteArray> active = idsOf(r.at(activeAt)), oldest = idsOf(r.at(oldestAt));
    const qsizetype read = ActiveReads * active.size() + oldest.size();
    QList<RedisValue> out = r.mid(0, probed);
    if (r.size() < probed + read) {
        // The follow-up was not sent: what it would have read is unknown.
        const RedisValue unread = RedisValue::error("the jobs were not read by id");
        if (!r.at(activeAt).isError())
            out[activeAt] = unread;
        if (!r.at(oldestAt).isError())
            out[oldestAt] = unread;
        return out;
    }
    // Per job: its id, its lock (any value: held), processedOn, name,
    // attempts; one error stands for the page (unknown, not unlocked).
    QList<RedisValue> rows;
    std::optional<RedisValue> failed;
    for (qsizetype i = 0; i < active.size(); ++i) {
        const RedisValue &lock = r.at(probed + ActiveReads * i);
        const RedisValue &fields = r.at(probed + ActiveReads * i + 1);
        const RedisValue &still = r.at(probed + ActiveReads * i + 2);
        if (lock.isError() || fields.isError() || still.isError()) {
            failed = lock.isError() ? lock : fields.isError() ? fields : still;
            break;
        }
        if (still.isNil())
            continue; // moved on (completed, failed, retried): not in flight
        rows << RedisValue::bulk(active.at(i)) << lock << fieldsOf(fields, 3);
    }
    if (!r.at(activeAt).isError())
        out[activeAt] = failed ? *failed : RedisValue::array(rows);
    if (!r.at(oldestAt).isError()) {
        QList<RedisValue> first;
        if (!oldest.isEmpty())
            first << RedisValue::bulk(oldest.first())
                  << fieldsOf(r.at(probed + ActiveReads * active.size()), 3);
        out[oldestAt] = RedisValue::array(first);
    }
    out.append(r.mid(probed + read));
    return out;
}

} // namespace gatehouse
