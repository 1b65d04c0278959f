// SPDX-License-Identifier: MIT
#include "celerylayout.h"
#include "celeryunit.h"

#include <patterns/libraryqueue/libraryqueue.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace gatehouse {

using namespace CeleryInternal;

QList<LibraryQueueUnit::JobState> CeleryUnit::states() const
{
    return {{QStringLiteral("queued")}, {QStringLiteral("unacked"), JobStage::InFlight}};
}

QList<JobVerb> CeleryUnit::jobVerbs(const QString &state) const
{
    // kombu's Redis transport keeps no dead letters: a rejected message is
    // dropped or requeued, so there is no dead tab's verb.
    Q_UNUSED(state)
    return {};
}

namespace {

// A kombu message (kombu/transport/virtual/base.py Message; Celery's task
// protocol 2 headers) as a page row: the task id, the task's name, its
// retries and, when known, when it was delivered.
JobRow messageRow(const QByteArray &message)
{
    JobRow row;
    QJsonObject m = QJsonDocument::fromJson(message).object();
    if (m.isEmpty()) {
        // unacked holds [message, exchange, routing_key].
        const QJsonArray a = QJsonDocument::fromJson(message).array();
        m = a.isEmpty() ? QJsonObject() : a.first().toObject();
    }
    const QJsonObject headers = m.value(QStringLiteral("headers")).toObject();
    row.id = headers.value(QStringLiteral("id")).toString().toUtf8().left(120);
    row.name
        = printableBytes(headers.value(QStringLiteral("task")).toString().toUtf8().left(200), 80);
    const QJsonValue retries = headers.value(QStringLiteral("retries"));
    row.attempts = retries.isDouble() ? qint64(retries.toDouble()) : -1;
    if (row.id.isEmpty())
        row.error = QStringLiteral("(not a Celery task message)");
    return row;
}

} // namespace

JobRead CeleryUnit::jobPage(const PatternObject &o, const QString &state, qint64 offset,
                            int count) const
{
    if (state == QLatin1String("queued")) {
        // kombu takes priority 0 (the queue's own list) first, then 3, 6, 9.
        return libraryqueue::pageOfLists(
            state, {keyOf(o, Queue), keyOf(o, Priority3), keyOf(o, Priority6), keyOf(o, Priority9)},
            offset, count, [](JobListing page, QList<libraryqueue::PageEntry> entries) {
                for (const libraryqueue::PageEntry &e : entries) {
                    JobRow row = messageRow(e.value);
                    row.ref
                        = libraryqueue::entryRef(e, row.id.isEmpty() ? e.value.left(64) : row.id);
                    page.rows.append(row);
                }
                return JobRead::done(page);
            });
    }
    if (state != QLatin1String("unacked"))
        return {};
    // unacked_index by delivery time (the oldest first); each message's size
    // before the message.
    const QByteArray unacked = keyOf(o, Unacked);
    return libraryqueue::pageOfSet(
        state, keyOf(o, UnackedIndex), false, offset, count,
        [unacked](JobListing page, QList<libraryqueue::PageEntry> entries) {
            if (entries.isEmpty())
                return JobRead::done(page);
            JobRead sizes;
            for (const libraryqueue::PageEntry &e : entries)
                sizes.commands.append({"HSTRLEN", unacked, e.value});
            sizes.next = [page, entries, unacked](const QList<RedisValue> &r) mutable {
                QList<QByteArray> readable;
                for (qsizetype i = 0; i < entries.size() && i < r.size(); ++i) {
                    if (r.at(i).toInteger() > 0 && r.at(i).toInteger() <= JobFieldCutBytes)
                        readable << entries.at(i).value;
                }
                auto finish
                    = [page, entries, r, readable](const QList<RedisValue> &messages) mutable {
                          for (qsizetype i = 0; i < entries.size(); ++i) {
                              const qsizetype at = readable.indexOf(entries.at(i).value);
                              JobRow row = at >= 0 && at < messages.size()
                                               ? messageRow(messages.at(at).bytes())
                                               : JobRow{};
                              if (at < 0) {
                                  const qint64 n = r.value(i).toInteger();
                                  row.error = n > 0 ? QStringLiteral("(%1 bytes; not read)").arg(n)
                                                    : QStringLiteral("(acknowledged or restored)");
                              }
                              if (row.id.isEmpty())
                                  row.id = entries.at(i).value;
                              row.ref = entries.at(i).value; // the delivery tag requeue --job takes
                              bool ok = false;
                              const double delivered = entries.at(i).score.toDouble(&ok);
                              row.atMs = ok ? libraryqueue::epochMs(delivered) : -1;
                              page.rows.append(row);
                          }
                          return JobRead::done(page);
                      };
                if (readable.isEmpty())
                    return finish({});
                JobRead messages;
                messages.commands.append(QList<QByteArray>{"HMGET", unacked} + readable);
                messages.next = [finish](const QList<RedisValue> &m) mutable {
                    return finish(m.value(0).elements());
                };
                return messages;
            };
            return sizes;
        });
}

namespace {

// A kombu message's body (queued: the message; unacked: [message, exchange,
// routing key]) with what the envelope says of it: content-type and
// properties.body_encoding (the Redis transport's "base64").
void addKombuBody(JobListing *detail)
{
    const QJsonValue record = libraryqueue::detailJson(*detail);
    const QJsonObject message
        = record.isArray() ? record.toArray().first().toObject() : record.toObject();
    const QJsonValue body = message.value(QLatin1String("body"));
    if (!body.isString())
        return;
    JobPayload payload;
    payload.field = QStringLiteral("body");
    payload.bytes = body.toString().toUtf8();
    payload.size = payload.bytes.size();
    payload.contentType = message.value(QLatin1String("content-type")).toString();
    payload.encoding = message.value(QLatin1String("properties"))
                           .toObject()
                           .value(QLatin1String("body_encoding"))
                           .toString();
    detail->payloads.append(payload);
}

JobRead messageDetail(const PatternObject &o, const QByteArray &job)
{
    if (const auto entry = libraryqueue::parseEntryRef(job))
        return libraryqueue::entryDetail(job, *entry, QStringLiteral("Queued message."));
    // A delivery tag: the unacked message, [message, exchange, routing_key].
    const QByteArray unacked = CeleryUnit::keyOf(o, CeleryUnit::Unacked);
    JobRead read;
    read.commands = {{"HSTRLEN", unacked, job}};
    read.next = [unacked, job](const QList<RedisValue> &r) {
        const qint64 n = r.value(0).toInteger();
        if (r.value(0).isError() || n <= 0) {
            JobListing detail;
            detail.job = job;
            detail.ok = false;
            detail.message = r.value(0).isError()
                                 ? r.value(0).errorMessage()
                                 : QStringLiteral("Message %1 is not unacked any more "
                                                  "(acknowledged, or restored to its queue).")
                                       .arg(printableBytes(job, 80));
            return JobRead::done(detail);
        }
        if (n > JobFieldCutBytes) {
            JobListing detail;
            detail.job = job;
            detail.message = QStringLiteral("Not read (over %1 KiB): the message is %2 bytes.")
                                 .arg(JobFieldCutBytes / 1024)
                                 .arg(n);
            detail.notRead = QStringList{QStringLiteral("message")};
            return JobRead::done(detail);
        }
        JobRead message;
        message.commands = {{"HGET", unacked, job}};
        message.next = [job](const QList<RedisValue> &m) {
            return JobRead::done(libraryqueue::jsonDetail(
                job, m.value(0).bytes(),
                QStringLiteral("Unacked message: [message, exchange, routing key].")));
        };
        return message;
    };
    return read;
}

} // namespace

JobRead CeleryUnit::jobDetail(const PatternObject &o, const QByteArray &job) const
{
    return libraryqueue::withResult(messageDetail(o, job), addKombuBody);
}

} // namespace gatehouse
