// SPDX-License-Identifier: MIT
#include "jobcommand.h"

#include "exitcodes.h"
#include "queuelookup.h"

#include <decoders/payloaddecoder.h>
#include <monitor/jobbrowser.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
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
              [this](const std::optional<PatternObject> &o, const QString &error) {
                  if (o)
                      show(*o);
                  else
                      fail(error, ExitNothingDone);
              });
}

void JobCommand::show(const PatternObject &object)
{
    if (!m_browser->showJob(object, m_job))
        fail(QStringLiteral("%1 lists no jobs.").arg(printableBytes(object.key, 80)), ExitUsage);
}

void JobCommand::print(const JobListing &detail)
{
    if (!detail.ok) {
        fail(detail.message, ExitNothingDone);
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
