// SPDX-License-Identifier: MIT
#include "reading.h"

namespace gatehouse {

QString ageSourceId(AgeSource source)
{
    switch (source) {
    case AgeSource::ClaimsSet:
        return QStringLiteral("claims");
    case AgeSource::FirstSeen:
        return QStringLiteral("first-seen");
    case AgeSource::Library:
        return QStringLiteral("library");
    }
    return {};
}

PatternData::~PatternData() = default;

PatternData *PatternData::projected(const Reading &, qint64) const
{
    return nullptr;
}

std::optional<double> Reading::occupancy() const
{
    if (!limit || *limit <= 0)
        return std::nullopt;
    return double(inWindow) / double(*limit);
}

Reading Reading::at(qint64 nowMs) const
{
    Reading r = *this;
    if (nowMs <= atMs)
        return r;
    r.atMs = nowMs;
    r.pttlMs = countdownAt(pttlMs, nowMs);
    if (m_queue && (m_queue->oldestInFlightAgeMs >= 0 || !m_queue->items.isEmpty())) {
        Queue &q = r.editQueue();
        q.oldestInFlightAgeMs = ageAt(q.oldestInFlightAgeMs, nowMs);
        for (InFlightItem &item : q.items)
            item.ageMs = ageAt(item.ageMs, nowMs);
    }
    if (const JobTimes *t = jobTimes(); t && t->oldestWaitingAgeMs > 0) // 0: none waits
        r.latency().oldestWaitingAgeMs = ageAt(t->oldestWaitingAgeMs, nowMs);
    if (m_data) {
        if (PatternData *moved = m_data->projected(*this, nowMs))
            r.m_data = moved;
    }
    return r;
}

QString readingStatusId(Reading::Status status)
{
    switch (status) {
    case Reading::Status::Ok:
        return QStringLiteral("ok");
    case Reading::Status::Missing:
        return QStringLiteral("missing");
    case Reading::Status::WrongType:
        return QStringLiteral("wrong-type");
    case Reading::Status::Error:
        return QStringLiteral("error");
    }
    return {};
}

const Reading::Queue &Reading::queue() const
{
    static const Queue none;
    return m_queue ? *m_queue : none;
}

Reading::Queue &Reading::editQueue()
{
    if (!m_queue)
        m_queue = new Queue;
    return *m_queue; // detached by QSharedDataPointer when another reading shares it
}

const Reading::Library &Reading::library() const
{
    static const Library none;
    return m_library ? *m_library : none;
}

Reading::Library &Reading::editLibrary()
{
    if (!m_library)
        m_library = new Library;
    return *m_library; // detached by QSharedDataPointer when another reading shares it
}

const JobTimes *Reading::jobTimes() const
{
    return detailTimes && detailTimes->job ? &*detailTimes->job : nullptr;
}

JobTimes &Reading::latency()
{
    if (!detailTimes)
        detailTimes = new DetailTimes;
    std::optional<JobTimes> &job = detailTimes->job;
    if (!job)
        job.emplace();
    return *job;
}

} // namespace gatehouse
