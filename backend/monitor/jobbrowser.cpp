// SPDX-License-Identifier: MIT
#include "jobbrowser.h"

#include <decoders/payloaddecoder.h>
#include <patterns/patternunit.h>
#include <redis/redisclient.h>

#include <QCoreApplication>
#include <QPointer>
#include <QThreadPool>

#include <algorithm>

namespace gatehouse {

JobBrowser::JobBrowser(RedisClient *client, QObject *parent)
    : QObject(parent)
    , m_client(client)
{}

bool JobBrowser::listJobs(const PatternObject &object, const QString &state, qint64 offset,
                          int count)
{
    JobRead read = PatternUnit::of(object.kind).jobPage(object, state, offset, count);
    if (!read.isValid())
        return false;
    step(std::move(read), ++m_listGeneration, false);
    return true;
}

bool JobBrowser::showJob(const PatternObject &object, const QByteArray &job)
{
    JobRead read = PatternUnit::of(object.kind).jobDetail(object, job);
    if (!read.isValid())
        return false;
    step(std::move(read), ++m_detailGeneration, true);
    return true;
}

JobSearch *JobBrowser::newSearch(const PatternObject &object, const JobQuery &query,
                                 const JobSearch::Options &options, QObject *parent) const
{
    return new JobSearch(m_client, object, query, options, parent);
}

JobListing JobBrowser::decoded(JobListing detail)
{
    DecodeLimits limits;
    limits.maxInput = JobFieldCutBytes;
    for (JobPayload &p : detail.payloads) {
        const DecodedPayload d = decodePayload(p.bytes, {p.contentType, p.encoding}, limits);
        p.decoder = d.chainText();
        p.decoded = d.text;
        p.json = d.json;
        p.note = d.note;
        if (p.size > p.bytes.size())
            p.note
                = QStringLiteral("%1 of %2 bytes read. ").arg(p.bytes.size()).arg(p.size) + p.note;
    }
    return detail;
}

void JobBrowser::step(JobRead read, quint64 generation, bool detail)
{
    if (generation != (detail ? m_detailGeneration : m_listGeneration))
        return; // a newer request took over
    if (read.result) {
        if (!detail) {
            Q_EMIT listed(*read.result);
            return;
        }
        // Decoding takes up to its time limit per payload: on a pool
        // thread, never on the thread that owns the browser (the GUI's, the
        // application's main thread, where the answer is delivered).
        QPointer<JobBrowser> self(this);
        QThreadPool::globalInstance()->start([self, listing = *read.result, generation] {
            JobListing done = decoded(listing);
            QMetaObject::invokeMethod(
                qApp,
                [self, done = std::move(done), generation] {
                    if (self && generation == self->m_detailGeneration)
                        Q_EMIT self->detailed(done);
                },
                Qt::QueuedConnection);
        });
        return;
    }
    QList<QList<QByteArray>> commands = read.commands;
    m_client->pipeline(
        std::move(commands), this,
        [this, next = read.next, generation, detail](const QList<RedisValue> &r) {
            if (const auto bad = std::find_if(r.cbegin(), r.cend(),
                                              [](const RedisValue &v) { return v.isFailed(); });
                bad != r.cend()) {
                JobListing failed;
                failed.ok = false;
                failed.message = QStringLiteral("Reading jobs failed: %1").arg(bad->errorMessage());
                step(JobRead::done(failed), generation, detail);
                return;
            }
            step(next(r), generation, detail);
        });
}

} // namespace gatehouse
