// SPDX-License-Identifier: MIT
#pragma once

#include <redis/redisvalue.h>

#include <QByteArray>
#include <QHash>
#include <QJsonValue>
#include <QList>
#include <QMetaType>
#include <QString>
#include <QStringList>

#include <functional>
#include <optional>

namespace gatehouse {

// One job of a library queue as a page of its state lists it.
struct JobRow
{
    QByteArray id;    // the library's job id
    QString name;     // its name or class, cut
    qint64 atMs = -1; // server time it entered the state (or was added); -1 unknown
    qint64 attempts = -1;
    QString error; // why it failed, cut; empty when none
    // What jobDetail and the job's actions take to find it, when its id alone
    // does not (Sidekiq Web's "<score>-<jid>" for a sorted-set job, kombu's
    // delivery tag, a list entry's place); empty: the id.
    QByteArray ref;
    // The job's whole record as JSON when the page read it whole (a Sidekiq
    // job in its sorted set or list) and it is at most JobFieldCutBytes: a
    // search judges it as its detail would show it, without reading it
    // again. Empty: the detail is read (PatternUnit::jobDetail).
    QByteArray record;
    QByteArray refOrId() const { return ref.isEmpty() ? id : ref; }
};

// A payload field of a job's detail, as read (at most JobFieldCutBytes of
// it): a pattern fills field, bytes, size and the library's own hints;
// JobBrowser decodes it (decoders/) and fills the rest.
struct JobPayload
{
    QString field;       // the record's field: "data", "opts", "body", "args"
    QByteArray bytes;    // as stored, cut to JobFieldCutBytes
    qint64 size = 0;     // on the server (bytes)
    QString contentType; // the library's word for the format (kombu's content-type)
    QString encoding;    // the library's body encoding ("base64"); empty when none
    QString decoder;     // the decoders that read it, "base64 → JSON"; "text", "binary"
    QString decoded;     // the decoded form as text; empty when none (see the hex)
    QJsonValue json;     // the decoded form as JSON (search paths); null when none
    QString note;        // what was cut or refused, as a sentence
};

// What a job read found: a page of one state (total, rows from offset) or
// one job's detail (its fields as formatted JSON, each large value cut).
struct JobListing
{
    QString state;
    qint64 offset = 0;
    qint64 total = 0;
    QList<JobRow> rows;
    QByteArray job;  // detail: which job
    QString detail;  // detail: JSON, indented
    QString message; // what went wrong or was cut; empty when nothing
    // detail: the fields over the cut, not read (so not searched either)
    QStringList notRead;
    bool ok = true;
    QList<JobPayload> payloads; // detail: its payload fields, decoded
};

// A job read in bounded steps (ids first, then their fields): the commands of
// this step and what the replies lead to, the next step or the result.
// Every command is bounded: a page of ids, a few fields per job, a large
// field's length before the field itself.
struct JobRead
{
    QList<QList<QByteArray>> commands;
    std::function<JobRead(const QList<RedisValue> &replies)> next;
    std::optional<JobListing> result;

    static JobRead done(JobListing listing)
    {
        JobRead r;
        r.result = std::move(listing);
        return r;
    }
    bool isValid() const { return result.has_value() || !commands.isEmpty(); }
};

// Where a library's state stands in a job's life: the console's job browser
// shows its states in a Waiting, an In flight and a Dead tab (and Finished
// for work done, so completed jobs stay reachable), each state under the
// library's own name with its count.
enum class JobStage { Waiting, InFlight, Dead, Finished };

// A verb of the library's that the job browser offers on the jobs of one
// state (PatternUnit::jobVerbs): one of the pattern's actions, with the
// inputs the state fixes (Sidekiq's "from": "dead", a clean's "state").
// A library without such a verb has none, and the browser no such button.
struct JobVerb
{
    enum class Role {
        RequeueFromDead, // the chosen dead jobs back to their queue
        DeadLetter,      // the chosen jobs to the dead (kill)
        Purge,           // the dead jobs older than an age asked for
    };
    Role role = Role::RequeueFromDead;
    QString action; // a PatternAction::id of the pattern
    QHash<QString, QByteArray> inputs;
};

// The most of one field a job detail shows; the rest is left on the server.
constexpr qint64 JobFieldCutBytes = 64 * 1024;

} // namespace gatehouse

Q_DECLARE_METATYPE(gatehouse::JobListing)
