// SPDX-License-Identifier: MIT
#include "jobsearch.h"

#include "jobbrowser.h"

#include <patterns/article.h>
#include <patterns/patternunit.h>
#include <redis/redisclient.h>

#include <QCoreApplication>
#include <QDateTime>
#include <QPointer>
#include <QThreadPool>
#include <QTimer>

#include <algorithm>

namespace gatehouse {

// Reads run side by side, step by step: every read's commands of this step
// in one pipeline.
struct ReadBatch
{
    QList<JobRead> reads;
    QList<std::optional<JobListing>> results;
    std::function<void(QList<JobListing>)> done;
    quint64 generation = 0;
};

JobSearch::JobSearch(RedisClient *client, PatternObject object, JobQuery query, Options options,
                     QObject *parent)
    : QObject(parent)
    , m_client(client)
    , m_object(std::move(object))
    , m_query(std::move(query))
    , m_options(std::move(options))
{
    m_options.limit = std::max(1, m_options.limit);
    m_options.pageRows = std::clamp(m_options.pageRows, 1, 1000);
    m_options.busyPercent = std::clamp(m_options.busyPercent, 1.0, 100.0);
}

JobSearch::~JobSearch() = default;

bool JobSearch::start(QString *error)
{
    const PatternUnit &unit = PatternUnit::of(m_object.kind);
    const QStringList own = unit.jobStates();
    QString ignored;
    if (!error)
        error = &ignored;
    if (own.isEmpty()) {
        *error = QStringLiteral("%1 is %2, which lists no jobs.")
                     .arg(printableBytes(m_object.key, 80), withArticle(unit.title()));
        return false;
    }
    m_states = m_options.states.isEmpty() ? own : m_options.states;
    for (const QString &s : std::as_const(m_states)) {
        if (!own.contains(s)) {
            *error = QStringLiteral("\"%1\" is not a state of %2 (%3): use one of %4.")
                         .arg(s, printableBytes(m_object.key, 80), unit.title(),
                              own.join(QStringLiteral(", ")));
            return false;
        }
    }
    m_running = true;
    m_clock.start();
    ++m_generation;
    nextPage();
    return true;
}

void JobSearch::cancel()
{
    if (m_running)
        finish(JobSearchResult::End::Cancelled);
}

JobSearchProgress JobSearch::progress() const
{
    JobSearchProgress p;
    p.state = m_states.value(m_stateAt);
    p.scanned = m_scanned;
    p.total = m_totalBefore + m_stateTotal;
    p.matched = m_hits.size();
    p.detailsRead = m_detailsRead;
    p.unsearched = m_unsearched;
    p.elapsedMs = m_clock.isValid() ? m_clock.elapsed() : 0;
    p.busyMs = m_busyNs / 1'000'000;
    return p;
}

void JobSearch::finish(JobSearchResult::End end, const QString &message)
{
    m_running = false;
    ++m_generation; // replies still on their way are dropped
    JobSearchResult r;
    r.end = end;
    r.progress = progress();
    r.message = message;
    Q_EMIT finished(r);
}

void JobSearch::paced(std::function<void()> then)
{
    // The busy share so far: wait until it is back at busyPercent. A round
    // trip is timed on the caller's thread: one that stalled (a GUI busy
    // elsewhere) counts as busy without the server having been; more than
    // MaxPaceWaitMs of debt is forgiven, not waited for.
    const qint64 targetNs = qint64(double(m_busyNs) * 100.0 / m_options.busyPercent);
    qint64 waitNs = targetNs - m_clock.nsecsElapsed();
    if (waitNs > MaxPaceWaitMs * 1'000'000) {
        m_busyNs
            -= qint64(double(waitNs - MaxPaceWaitMs * 1'000'000) * m_options.busyPercent / 100.0);
        waitNs = MaxPaceWaitMs * 1'000'000;
    }
    const qint64 waitMs = waitNs / 1'000'000;
    const quint64 generation = m_generation;
    QTimer::singleShot(std::max<qint64>(0, waitMs), this, [this, generation, then] {
        if (generation == m_generation && m_running)
            then();
    });
}

void JobSearch::run(QList<JobRead> reads, std::function<void(QList<JobListing>)> done)
{
    auto batch = std::make_shared<ReadBatch>();
    batch->results.resize(reads.size());
    batch->reads = std::move(reads);
    batch->done = std::move(done);
    batch->generation = m_generation;
    runStep(batch);
}

void JobSearch::runStep(std::shared_ptr<ReadBatch> batch)
{
    QList<QList<QByteArray>> commands;
    QList<qsizetype> owners;
    QList<int> counts;
    for (qsizetype i = 0; i < batch->reads.size(); ++i) {
        if (batch->results.at(i))
            continue;
        JobRead &r = batch->reads[i];
        if (r.result) {
            batch->results[i] = std::move(*r.result);
            continue;
        }
        commands.append(r.commands);
        owners.append(i);
        counts.append(int(r.commands.size()));
    }
    if (owners.isEmpty()) {
        QList<JobListing> out;
        out.reserve(batch->results.size());
        for (const std::optional<JobListing> &l : std::as_const(batch->results))
            out.append(*l);
        batch->done(std::move(out));
        return;
    }
    QElapsedTimer roundTrip;
    roundTrip.start();
    m_client->pipeline(
        std::move(commands), this,
        [this, batch, owners, counts, roundTrip](const QList<RedisValue> &replies) {
            if (batch->generation != m_generation)
                return;
            m_busyNs += roundTrip.nsecsElapsed();
            qsizetype at = 0;
            for (qsizetype k = 0; k < owners.size(); ++k) {
                const QList<RedisValue> part = replies.mid(at, counts.at(k));
                at += counts.at(k);
                const auto bad = std::find_if(part.cbegin(), part.cend(),
                                              [](const RedisValue &v) { return v.isFailed(); });
                JobRead &read = batch->reads[owners.at(k)];
                if (bad != part.cend() || part.size() != counts.at(k)) {
                    JobListing failed;
                    failed.ok = false;
                    failed.message
                        = QStringLiteral("Reading jobs failed: %1")
                              .arg(bad != part.cend() ? bad->errorMessage()
                                                      : QStringLiteral("the connection was lost"));
                    read = JobRead::done(failed);
                    continue;
                }
                read = read.next(part);
                if (!read.isValid()) {
                    JobListing failed;
                    failed.ok = false;
                    failed.message = QStringLiteral("Reading jobs failed: an unexpected reply.");
                    read = JobRead::done(failed);
                }
            }
            paced([this, batch] { runStep(batch); });
        });
}

void JobSearch::nextPage()
{
    if (m_stateAt >= m_states.size()) {
        finish(JobSearchResult::End::Complete);
        return;
    }
    const QString state = m_states.at(m_stateAt);
    const PatternUnit &unit = PatternUnit::of(m_object.kind);
    JobRead page = unit.jobPage(m_object, state, m_offset, m_options.pageRows);
    if (!page.isValid()) {
        finish(JobSearchResult::End::Failed, QStringLiteral("Cannot list the %1 jobs of %2.")
                                                 .arg(state, printableBytes(m_object.key, 80)));
        return;
    }
    Q_EMIT progressed(progress());
    run({page}, [this, state](QList<JobListing> pages) {
        JobListing page = pages.value(0);
        if (!page.ok) {
            finish(JobSearchResult::End::Failed, page.message);
            return;
        }
        m_stateTotal = page.total;
        const qint64 nowMs = QDateTime::currentMSecsSinceEpoch();
        QList<JobRow> rows;
        QList<JobRead> reads;
        QList<bool> fetched; // its record read from the server (not from the page)
        const PatternUnit &unit = PatternUnit::of(m_object.kind);
        for (const JobRow &row : std::as_const(page.rows)) {
            if (!m_query.rowMayMatch(row, nowMs))
                continue;
            rows.append(row);
            // Settled by its row, or no record to read: judged by its row.
            // A record the page read whole is judged as its detail would
            // show it, with no second read.
            JobListing none;
            none.ok = false;
            const bool settled = m_query.rowSettles(row, nowMs);
            JobRead read = settled ? JobRead::done(none) : JobRead();
            if (!settled && !row.record.isEmpty())
                read = unit.recordDetail(row);
            const bool onPage = read.isValid() && !settled;
            if (!settled && !onPage)
                read = unit.jobDetail(m_object, row.refOrId());
            fetched.append(!settled && !onPage);
            reads.append(read.isValid() ? std::move(read) : JobRead::done(none));
        }
        m_scanned += page.rows.size();
        if (rows.isEmpty()) {
            judge(std::move(page), {}, {});
            return;
        }
        run(std::move(reads), [this, page, rows, fetched](QList<JobListing> details) {
            for (qsizetype i = 0; i < details.size() && i < fetched.size(); ++i)
                m_detailsRead += fetched.at(i) && details.at(i).ok ? 1 : 0;
            judge(page, rows, std::move(details));
        });
    });
}

void JobSearch::judge(JobListing page, QList<JobRow> rows, QList<JobListing> details)
{
    const auto advance = [this, page]() {
        m_offset += m_options.pageRows;
        if (page.rows.isEmpty() || m_offset >= page.total) {
            m_totalBefore += page.total;
            m_stateTotal = 0;
            m_offset = 0;
            ++m_stateAt;
        }
        Q_EMIT progressed(progress());
        paced([this] { nextPage(); });
    };
    if (rows.isEmpty()) {
        advance();
        return;
    }
    // Decoding a payload and matching take time: on a pool thread.
    QPointer<JobSearch> self(this);
    const quint64 generation = m_generation;
    const JobQuery query = m_query;
    const bool negated
        = std::any_of(query.terms.cbegin(), query.terms.cend(),
                      [](const JobQuery::Term &t) { return t.op == JobQuery::Term::Op::NotEqual; });
    QThreadPool::globalInstance()->start([self, generation, query, negated, page, rows, details,
                                          advance] {
        QList<JobHit> hits;
        QList<qsizetype> hitRows;        // each hit's row on the page
        QList<qsizetype> unsearchedRows; // rows neither found nor ruled out
        const qint64 nowMs = QDateTime::currentMSecsSinceEpoch();
        qsizetype onPage = -1; // rows.at(i)'s place among the page's rows (same order)
        for (qsizetype i = 0; i < rows.size(); ++i) {
            do
                ++onPage;
            while (onPage + 1 < page.rows.size()
                   && (page.rows.at(onPage).id != rows.at(i).id
                       || page.rows.at(onPage).ref != rows.at(i).ref));
            onPage = std::min<qsizetype>(onPage, page.rows.size() - 1);
            JobListing detail = details.value(i);
            if (detail.ok)
                detail = JobBrowser::decoded(std::move(detail));
            const bool matched = query.matches(rows.at(i), detail, nowMs);
            // A record with a field over the cut: a match of what was read
            // holds (every term is one that data can only satisfy); no match,
            // or a negated term, may be decided by what was not read: neither
            // a hit nor ruled out.
            if (detail.ok && !detail.notRead.isEmpty() && (!matched || negated)) {
                unsearchedRows.append(onPage);
                continue;
            }
            if (matched) {
                hits.append({page.state, rows.at(i), detail});
                hitRows.append(onPage);
            }
        }
        const qsizetype pageRows = page.rows.size();
        // Delivered on the application's thread, where the search lives.
        QMetaObject::invokeMethod(
            qApp,
            [self, generation, hits = std::move(hits), hitRows, unsearchedRows, pageRows, advance] {
                if (!self || generation != self->m_generation || !self->m_running)
                    return;
                QList<JobHit> fresh;
                // The page's last row looked at: the one that reached the
                // limit, when one did (what follows it was not searched).
                qsizetype lastRow = pageRows - 1;
                for (qsizetype i = 0; i < hits.size(); ++i) {
                    const JobHit &h = hits.at(i);
                    const QByteArray id = h.state.toUtf8() + '\n' + h.row.id;
                    if (self->m_hitIds.contains(id))
                        continue; // met again after moving in its list
                    self->m_hitIds.insert(id);
                    self->m_hits.append(h);
                    fresh.append(h);
                    if (self->m_hits.size() >= self->m_options.limit) {
                        lastRow = hitRows.at(i);
                        break;
                    }
                }
                for (const qsizetype row : unsearchedRows)
                    self->m_unsearched += row <= lastRow ? 1 : 0;
                if (!fresh.isEmpty())
                    Q_EMIT self->found(fresh);
                if (self->m_hits.size() >= self->m_options.limit) {
                    // "2 of 6 searched" when the second of six was the limit's.
                    self->m_scanned -= pageRows - 1 - lastRow;
                    self->finish(JobSearchResult::End::Limit);
                    return;
                }
                advance();
            },
            Qt::QueuedConnection);
    });
}

} // namespace gatehouse
