// SPDX-License-Identifier: MIT
#include "jobcommand.h"

#include "exitcodes.h"
#include "queuelookup.h"

#include <decoders/payloaddecoder.h>
#include <monitor/jobbrowser.h>
#include <monitor/jobsearch.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>
#include <QRegularExpression>
#include <QTextStream>

namespace gatehouse::cli {

JobCommand::JobCommand(const RedisEndpoint &endpoint, QByteArray queue, QByteArray job, bool json,
                       std::optional<Profile> profile, QObject *parent)
    : Session(endpoint, parent)
    , m_queue(std::move(queue))
    , m_job(std::move(job))
    , m_json(json)
    , m_profile(std::move(profile))
{}

JobCommand::~JobCommand() = default;

void JobCommand::onReady()
{
    m_browser = std::make_unique<JobBrowser>(&client());
    connect(m_browser.get(), &JobBrowser::detailed, this, &JobCommand::print);
    findQueue(client(), this, m_queue, m_profile,
              [this](const std::optional<PatternObject> &o, const QString &error, int exitCode) {
                  if (o)
                      show(*o);
                  else
                      fail(error, exitCode);
              });
}

void JobCommand::show(const PatternObject &object)
{
    m_object = object;
    if (!m_browser->showJob(object, m_job))
        fail(QStringLiteral("%1 lists no jobs.").arg(printableBytes(object.key, 80)), ExitUsage);
}

bool JobCommand::lookFor(const QString &notThere)
{
    // A ref (fields joined by \x1e) names exactly where; an id that would
    // not read as one value is not looked for.
    const QString id = QString::fromUtf8(m_job);
    static const QRegularExpression plain(QStringLiteral("^[^\\s\"<>=!~]+$"));
    if (m_search || m_job.contains('\x1e') || !plain.match(id).hasMatch())
        return false;
    QString error;
    const std::optional<JobQuery> query = JobQuery::parse(QStringLiteral("id=") + id, &error);
    if (!query)
        return false;
    JobSearch::Options options;
    options.limit = 1;
    m_search = std::make_unique<JobSearch>(&client(), m_object, *query, options);
    // Bounded: the first LookForRows jobs of the states, not every one.
    connect(m_search.get(), &JobSearch::progressed, this, [this](const JobSearchProgress &p) {
        if (p.scanned >= LookForRows)
            m_search->cancel();
    });
    connect(
        m_search.get(), &JobSearch::finished, this,
        [this, notThere](const JobSearchResult &result) {
            const QList<JobHit> &hits = m_search->hits();
            if (!hits.isEmpty()) {
                m_browser->showJob(m_object, hits.first().row.refOrId());
                return;
            }
            if (result.end == JobSearchResult::End::Failed) {
                fail(notThere
                         + QStringLiteral(" Looking for it by id failed: %1").arg(result.message),
                     ExitFailure);
                return;
            }
            fail(notThere
                     + (result.end == JobSearchResult::End::Cancelled
                            ? QStringLiteral(" Not among the first %1 jobs of %2 either "
                                             "(queue search %2 id=%3 reads them all).")
                                  .arg(QLocale().toString(result.progress.scanned),
                                       printableBytes(m_object.key, 80), printableBytes(m_job, 80))
                            : QStringLiteral(" No job with that id in any state of %1 "
                                             "either.")
                                  .arg(printableBytes(m_object.key, 80))),
                 ExitNothingDone);
        });
    return m_search->start();
}

void JobCommand::print(const JobListing &detail)
{
    if (!detail.ok) {
        // Refused by the ACL: a failure (1), not a job gone (3) to look for.
        const bool refused = detail.message.contains(QLatin1String("NOPERM"));
        if (refused || !lookFor(detail.message))
            fail(detail.message, refused ? ExitFailure : ExitNothingDone);
        return;
    }
    QTextStream out(stdout);
    if (m_json) {
        QJsonArray decoded;
        for (const JobPayload &p : detail.payloads) {
            decoded.append(QJsonObject{
                {QStringLiteral("field"), p.field},
                {QStringLiteral("decoder"), p.decoder},
                {QStringLiteral("chain"),
                 QJsonArray::fromStringList(p.decoder.split(QStringLiteral(" → ")))},
                {QStringLiteral("text"), p.decoded},
                {QStringLiteral("note"), p.note},
                {QStringLiteral("bytes"), p.size},
                {QStringLiteral("hex"), QString::fromLatin1(p.bytes.toHex())},
            });
        }
        const QJsonDocument record = QJsonDocument::fromJson(detail.detail.toUtf8());
        const QJsonObject json{
            {QStringLiteral("job"), QString::fromUtf8(detail.job)},
            {QStringLiteral("detail"), record.isObject()  ? QJsonValue(record.object())
                                       : record.isArray() ? QJsonValue(record.array())
                                                          : QJsonValue(detail.detail)},
            {QStringLiteral("message"), detail.message},
            {QStringLiteral("decoded"), decoded},
        };
        out << QJsonDocument(json).toJson(QJsonDocument::Indented);
    } else {
        if (!detail.message.isEmpty())
            out << detail.message << "\n\n";
        out << detail.detail.trimmed() << '\n';
        for (const JobPayload &p : detail.payloads) {
            out << "\n== " << p.field << " (" << p.decoder << ")\n";
            if (!p.note.isEmpty())
                out << p.note << '\n';
            if (!p.decoded.isEmpty())
                out << p.decoded.trimmed() << '\n';
            // The bytes as stored, as the console's Raw (hex) tab shows them.
            out << "-- raw (hex, " << p.bytes.size() << " bytes)\n"
                << hexDump(p.bytes).trimmed() << '\n';
        }
    }
    out.flush();
    done(ExitOk);
}

} // namespace gatehouse::cli
