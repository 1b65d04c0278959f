// SPDX-License-Identifier: MIT
#include "searchcommand.h"

#include "exitcodes.h"
#include "interrupt.h"
#include "queuelookup.h"

#include <patterns/patternunit.h>

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>
#include <QTextStream>

#include <algorithm>

#include <unistd.h>

namespace gatehouse::cli {

namespace {

QString ageText(qint64 ms)
{
    if (ms < 0)
        return QStringLiteral("-");
    if (ms < 60'000)
        return QStringLiteral("%1s").arg(ms / 1000);
    if (ms < 3'600'000)
        return QStringLiteral("%1m").arg(double(ms) / 60'000, 0, 'f', 1);
    if (ms < 86'400'000)
        return QStringLiteral("%1h").arg(double(ms) / 3'600'000, 0, 'f', 1);
    return QStringLiteral("%1d").arg(double(ms) / 86'400'000, 0, 'f', 1);
}

QString endWord(JobSearchResult::End end)
{
    switch (end) {
    case JobSearchResult::End::Complete:
        return QStringLiteral("complete");
    case JobSearchResult::End::Limit:
        return QStringLiteral("limit");
    case JobSearchResult::End::Cancelled:
        return QStringLiteral("cancelled");
    case JobSearchResult::End::Failed:
        return QStringLiteral("failed");
    }
    return {};
}

} // namespace

SearchCommand::SearchCommand(const RedisEndpoint &endpoint, Request request, QObject *parent)
    : Session(endpoint, parent)
    , m_request(std::move(request))
{}

SearchCommand::~SearchCommand() = default;

void SearchCommand::onReady()
{
    QString error;
    m_query = JobQuery::parse(m_request.expression, &error);
    if (!m_query) {
        fail(QStringLiteral("The search \"%1\" cannot be read: %2")
                 .arg(m_request.expression.left(200), error),
             ExitUsage);
        return;
    }
    findQueue(client(), this, m_request.queue, m_request.profile,
              [this](const std::optional<PatternObject> &o, const QString &why, int exitCode) {
                  if (o)
                      search(*o);
                  else
                      fail(why, exitCode);
              });
}

void SearchCommand::search(const PatternObject &object)
{
    m_object = object;
    JobSearch::Options options;
    options.states = m_request.states;
    options.limit = m_request.limit;
    options.busyPercent = m_request.busyPercent;
    m_search = std::make_unique<JobSearch>(&client(), object, *m_query, options);
    const bool tty = isatty(STDERR_FILENO) != 0;
    connect(m_search.get(), &JobSearch::progressed, this, [this, tty](const JobSearchProgress &p) {
        if (!tty)
            return;
        QTextStream err(stderr);
        err << "\rsearched " << QLocale().toString(p.scanned) << " of "
            << QLocale().toString(p.total) << " jobs (" << p.state << "), " << p.matched
            << " found   ";
        err.flush();
        m_progressShown = true;
    });
    connect(m_search.get(), &JobSearch::finished, this, &SearchCommand::report);
    m_interrupt = std::make_unique<Interrupt>();
    connect(m_interrupt.get(), &Interrupt::interrupted, this, [this] { m_search->cancel(); });
    QString error;
    if (!m_search->start(&error))
        fail(error, ExitUsage);
}

void SearchCommand::report(const JobSearchResult &result)
{
    if (m_progressShown) {
        QTextStream err(stderr);
        err << '\n';
    }
    const qint64 nowMs = QDateTime::currentMSecsSinceEpoch();
    const QList<JobHit> &hits = m_search->hits();
    const JobSearchProgress &p = result.progress;
    QTextStream out(stdout);
    const QString library = PatternUnit::of(m_object.kind).title();
    if (m_request.json) {
        QJsonArray rows;
        for (const JobHit &h : hits) {
            rows.append(QJsonObject{
                {QStringLiteral("state"), h.state},
                {QStringLiteral("id"), QString::fromUtf8(h.row.id)},
                {QStringLiteral("ref"), QString::fromUtf8(h.row.refOrId())},
                {QStringLiteral("name"), h.row.name},
                {QStringLiteral("atMs"), h.row.atMs},
                {QStringLiteral("ageMs"), h.row.atMs >= 0 ? nowMs - h.row.atMs : -1},
                {QStringLiteral("attempts"), h.row.attempts},
                {QStringLiteral("error"), h.row.error},
            });
        }
        const QJsonObject json{
            {QStringLiteral("queue"), QString::fromUtf8(m_object.key)},
            {QStringLiteral("library"), library},
            {QStringLiteral("expression"), m_query->text},
            {QStringLiteral("end"), endWord(result.end)},
            {QStringLiteral("message"), result.message},
            {QStringLiteral("scanned"), p.scanned},
            {QStringLiteral("total"), p.total},
            {QStringLiteral("recordsRead"), p.detailsRead},
            {QStringLiteral("unsearched"), p.unsearched},
            {QStringLiteral("elapsedMs"), p.elapsedMs},
            {QStringLiteral("busyMs"), p.busyMs},
            {QStringLiteral("hits"), rows},
        };
        out << QJsonDocument(json).toJson(QJsonDocument::Indented);
    } else {
        // The JOB column as wide as its widest id (a UUID's 36 characters),
        // within reason: an id is printed whole, the columns after it move.
        qsizetype jobWidth = 26;
        for (const JobHit &h : hits)
            jobWidth = std::max(jobWidth, std::min<qsizetype>(h.row.id.size(), 64));
        const auto line
            = [&out, jobWidth](const QString &state, const QString &job, const QString &name,
                               const QString &age, const QString &error) {
                  out << state.leftJustified(10) << ' ' << job.leftJustified(jobWidth) << ' '
                      << name.left(24).leftJustified(24) << ' ' << age.leftJustified(7) << ' '
                      << error.left(80).simplified() << '\n';
              };
        if (!hits.isEmpty())
            line(QStringLiteral("STATE"), QStringLiteral("JOB"), QStringLiteral("NAME"),
                 QStringLiteral("AGE"), QStringLiteral("ERROR"));
        for (const JobHit &h : hits)
            line(h.state, QString::fromUtf8(h.row.id), h.row.name,
                 ageText(h.row.atMs >= 0 ? nowMs - h.row.atMs : -1), h.row.error);
        const QString searched
            = QStringLiteral("%1 of %2 jobs searched")
                  .arg(QLocale().toString(p.scanned), QLocale().toString(p.total));
        QString end;
        switch (result.end) {
        case JobSearchResult::End::Complete:
            end = m_request.states.isEmpty()
                      ? QStringLiteral("every state read")
                      : QStringLiteral("every job in %1 read")
                            .arg(m_request.states.join(QStringLiteral(", ")));
            break;
        case JobSearchResult::End::Limit:
            end = QStringLiteral("stopped at --limit %1; raise it to see more")
                      .arg(m_request.limit);
            break;
        case JobSearchResult::End::Cancelled:
            end = QStringLiteral("stopped before the end");
            break;
        case JobSearchResult::End::Failed:
            end = QStringLiteral("failed: %1").arg(result.message);
            break;
        }
        out << QStringLiteral("%1 found in %2 (%3): %4, %5 (%6 s, %7 records read).\n")
                   .arg(hits.size() == 1 ? QStringLiteral("1 job")
                                         : QStringLiteral("%1 jobs").arg(hits.size()),
                        QString::fromUtf8(m_object.key), library, searched, end,
                        QString::number(double(p.elapsedMs) / 1000.0, 'f', 1),
                        QLocale().toString(p.detailsRead));
        if (p.unsearched > 0)
            out << QStringLiteral("%1 not searched: %2 a field over %3 KiB, which a search does "
                                  "not read (queue job ID shows what can be read of one).\n")
                       .arg(p.unsearched == 1 ? QStringLiteral("1 job")
                                              : QStringLiteral("%1 jobs").arg(p.unsearched),
                            p.unsearched == 1 ? QStringLiteral("its record holds")
                                              : QStringLiteral("their records hold"))
                       .arg(JobFieldCutBytes / 1024);
    }
    out.flush();
    if (result.end == JobSearchResult::End::Failed) {
        fail(result.message, ExitFailure);
        return;
    }
    // Nothing found where some jobs could not be searched: not "none".
    done(!hits.isEmpty() ? ExitOk : p.unsearched > 0 ? ExitFailure : ExitNothingDone);
}

} // namespace gatehouse::cli
