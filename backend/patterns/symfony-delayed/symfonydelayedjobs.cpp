// SPDX-License-Identifier: MIT
#include "symfonydelayedunit.h"

#include <patterns/libraryqueue/libraryqueue.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

namespace gatehouse {

namespace {

// Separates a message's score from its uniqid in a row's ref
// ("<score>\x1e<uniqid>"); no uniqid holds it.
constexpr char ScoreSep = '\x1e';
// A bare uniqid's search: ZSCAN steps of this many members, at most this many.
constexpr int SearchPage = 1000;
constexpr int SearchSteps = 10;

const QString RedeliveryHeader
    = QStringLiteral("X-Message-Stamp-Symfony\\Component\\Messenger\\Stamp\\RedeliveryStamp");

// PhpSerializer's body: addslashes(serialize($envelope)); the serialized
// envelope itself.
QByteArray unslashed(const QByteArray &body)
{
    QByteArray out;
    out.reserve(body.size());
    for (qsizetype i = 0; i < body.size(); ++i) {
        if (body.at(i) == '\\' && i + 1 < body.size()) {
            ++i;
            out += body.at(i) == '0' ? '\0' : body.at(i);
        } else {
            out += body.at(i);
        }
    }
    return out;
}

bool phpEnvelope(const QString &body)
{
    return body.startsWith(QLatin1String("O:36:\\\"Symfony\\\\Component\\\\Messenger\\\\Envelope"))
           || body.startsWith(QLatin1String("O:36:\"Symfony\\Component\\Messenger\\Envelope"));
}

// The message's class: the Serializer's "type" header, or the object
// PhpSerializer's envelope holds as its message; empty when neither says.
QString messageClass(const QJsonObject &message)
{
    const QJsonObject headers = message.value(QLatin1String("headers")).toObject();
    const QString type = headers.value(QLatin1String("type")).toString();
    if (!type.isEmpty())
        return type;
    const QString body = message.value(QLatin1String("body")).toString();
    if (!phpEnvelope(body))
        return {};
    static const QRegularExpression inner(
        QStringLiteral("message\";O:\\d+:\"([A-Za-z0-9_\\\\]+)\""));
    const QRegularExpressionMatch m
        = inner.match(QString::fromUtf8(unslashed(body.left(4096).toUtf8())));
    return m.hasMatch() ? m.captured(1) : QString();
}

// Deliveries so far: the Serializer's RedeliveryStamp header's retryCount; -1
// when it has none.
qint64 attemptsOf(const QJsonObject &message)
{
    const QString stamps
        = message.value(QLatin1String("headers")).toObject().value(RedeliveryHeader).toString();
    if (stamps.isEmpty())
        return -1;
    const QJsonArray list = QJsonDocument::fromJson(stamps.toUtf8()).array();
    return list.isEmpty()
               ? -1
               : qint64(list.last().toObject().value(QLatin1String("retryCount")).toDouble());
}

JobRow messageRow(const libraryqueue::PageEntry &e)
{
    const QJsonObject message = QJsonDocument::fromJson(e.value).object();
    JobRow row;
    row.id = message.value(QLatin1String("uniqid")).toString().toUtf8();
    if (row.id.isEmpty()) {
        row.id = e.value.left(64);
        row.error = QStringLiteral("(not a Symfony Messenger message)");
    }
    row.name = messageClass(message).left(120);
    row.attempts = attemptsOf(message);
    bool ok = false;
    const double due = e.score.toDouble(&ok); // epoch ms
    row.atMs = ok ? libraryqueue::epochMs(due) : -1;
    row.ref = e.score + ScoreSep + row.id;
    return row;
}

// The message's body as a payload the detail decodes: as the Serializer's
// Content-Type header says, or PhpSerializer's envelope unslashed.
void addBody(JobListing *detail)
{
    const QJsonObject message = libraryqueue::detailJson(*detail).toObject();
    const QJsonValue body = message.value(QLatin1String("body"));
    if (!body.isString())
        return;
    JobPayload payload;
    payload.field = QStringLiteral("body");
    payload.bytes = body.toString().toUtf8();
    payload.size = payload.bytes.size();
    payload.contentType = message.value(QLatin1String("headers"))
                              .toObject()
                              .value(QLatin1String("Content-Type"))
                              .toString();
    if (phpEnvelope(body.toString())) {
        payload.bytes = unslashed(payload.bytes);
        payload.contentType = QStringLiteral("application/x-php-serialized");
    }
    detail->payloads.append(payload);
}

QByteArray needleOf(const QByteArray &id)
{
    return "\"uniqid\":\"" + id + '"';
}

JobRead gone(const QByteArray &job, const QString &why)
{
    JobListing detail;
    detail.job = job;
    detail.ok = false;
    detail.message = why;
    return JobRead::done(detail);
}

const QString Where = QStringLiteral("Delayed message (due at its score, epoch ms).");

// A bare uniqid (the CLI's `queue job QUEUE ID`): ZSCAN MATCH on it, a step
// at a time, at most SearchSteps steps (the release script's own search).
JobRead searchId(const QByteArray &set, const QByteArray &id, const QByteArray &cursor, int step)
{
    QByteArray glob = "*\"uniqid\":\"";
    for (char c : id) {
        if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\')
            glob += '\\';
        glob += c;
    }
    glob += "\"*";
    JobRead read;
    read.commands
        = {{"ZSCAN", set, cursor, "MATCH", glob, "COUNT", QByteArray::number(SearchPage)}};
    read.next = [set, id, step](const QList<RedisValue> &r) {
        const RedisValue reply = r.value(0);
        if (reply.isError())
            return gone(id, reply.errorMessage());
        if (reply.size() != 2)
            return gone(id, QStringLiteral("An unexpected reply to ZSCAN."));
        const auto &members = reply.at(1).elements();
        for (qsizetype i = 0; i < members.size(); i += 2) {
            if (members.at(i).bytes().contains(needleOf(id)))
                return JobRead::done(libraryqueue::jsonDetail(id, members.at(i).bytes(), Where));
        }
        const QByteArray next = reply.at(0).bytes();
        if (next == "0")
            return gone(id, QStringLiteral("There is no delayed message %1 (it was moved into "
                                           "the stream, or removed).")
                                .arg(printableBytes(id, 80)));
        if (step + 1 >= SearchSteps)
            return gone(id, QStringLiteral("Message %1 is not among the first %2 delayed "
                                           "messages searched: choose it in the console's job "
                                           "list.")
                                .arg(printableBytes(id, 80))
                                .arg(SearchPage * SearchSteps));
        return searchId(set, id, next, step + 1);
    };
    return read;
}

} // namespace

QByteArray SymfonyDelayedUnit::messageIdOf(const QByteArray &ref)
{
    const qsizetype sep = ref.indexOf(ScoreSep);
    return sep < 0 ? ref : ref.mid(sep + 1);
}

JobRead SymfonyDelayedUnit::jobPage(const PatternObject &o, const QString &state, qint64 offset,
                                    int count) const
{
    if (state != QLatin1String("delayed"))
        return {};
    // By due time, the next first (the transport's get() takes the lowest).
    return libraryqueue::pageOfSet(state, o.key, false, offset, count,
                                   [](JobListing page, QList<libraryqueue::PageEntry> e) {
                                       for (const auto &entry : e)
                                           page.rows.append(messageRow(entry));
                                       return JobRead::done(page);
                                   });
}

JobRead SymfonyDelayedUnit::jobDetail(const PatternObject &o, const QByteArray &job) const
{
    const qsizetype sep = job.indexOf(ScoreSep);
    if (sep < 0)
        return libraryqueue::withResult(searchId(o.key, job, "0", 0), addBody);
    // The members at its score (ZRANGEBYSCORE, a few), the one with its uniqid.
    const QByteArray score = job.left(sep);
    const QByteArray id = job.mid(sep + 1);
    JobRead read;
    read.commands = {{"ZRANGEBYSCORE", o.key, score, score, "LIMIT", "0", "20"}};
    read.next = [job, id](const QList<RedisValue> &r) {
        const RedisValue members = r.value(0); // outlives the loop
        if (members.isError())
            return gone(job, members.errorMessage());
        for (const RedisValue &v : members.elements()) {
            if (v.bytes().contains(needleOf(id)))
                return JobRead::done(libraryqueue::jsonDetail(job, v.bytes(), Where));
        }
        return gone(job, QStringLiteral("Message %1 moved on (into the stream, or removed): "
                                        "reload the page.")
                             .arg(printableBytes(id, 80)));
    };
    return libraryqueue::withResult(read, addBody);
}

} // namespace gatehouse
