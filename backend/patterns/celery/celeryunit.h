// SPDX-License-Identifier: MIT
#pragma once

#include <patterns/libraryqueue/libraryqueueunit.h>

namespace gatehouse {

// A Celery 5 queue on a Redis broker, through kombu 5's Redis transport
// (layout in LIBRARIES.md, read from kombu/transport/redis.py): the queue is
// a LIST named after it ("celery" by default; producers LPUSH, workers BRPOP)
// with its priority sub-lists "<queue>\x06\x16<3|6|9>", bound to its exchange
// by a member "<routing_key>\x06\x16<pattern>\x06\x16<queue>" of the SET
// "_kombu.binding.<exchange>". A message a worker took and has not
// acknowledged is in the HASH "unacked" (delivery tag -> [payload, exchange,
// routing_key]) and the ZSET "unacked_index" (delivery tag -> delivery time
// in seconds); kombu puts it back once it is older than the visibility
// timeout (3600 s unless the transport option says otherwise), under the
// lock "unacked_mutex". "unacked" is the whole broker's: a queue's share is
// counted by each entry's routing key (and priority sub-queue) by
// lua/celery/celery_count_unacked.lua, in bounded HSCAN pages on the server.
//
// The object's key is the queue's name; related are its keys in State
// order. Reads the lists' lengths, unacked's size, the queue's own unacked
// messages (by priority, the oldest, those past the visibility timeout: a
// page of their tags and delivery times) and a few binding members
// (SRANDMEMBER, bounded). Messages never cross the wire for the monitor: a
// stuck job is named by its delivery tag.
//
// Acts with lua/celery/celery_restore.lua, which does what kombu's
// QoS.restore_visible and restore_by_tag do; `--older-than MS --force` does
// it before the visibility timeout (a live worker may then run it twice). The Redis result
// backend's "celery-task-meta-<id>" keys and the worker's pidbox and event bindings are the
// deployment's: taken, never shown as tokens or locks.
class CeleryUnit final : public LibraryQueueUnit
{
public:
    static constexpr PatternKind Kind{"celery"};
    static constexpr int Batch = 100;                          // messages restored per script run
    static constexpr qint64 DefaultVisibilityMs = 3600 * 1000; // kombu's visibility_timeout

    // The keys in related, in this order.
    enum State {
        Queue,
        Priority3,
        Priority6,
        Priority9,
        Unacked,
        UnackedIndex,
        UnackedMutex,
        Binding,
        KeyCount
    };
    static QByteArray keyOf(const PatternObject &o, State s);
    static PatternObject objectForQueue(const QByteArray &queue);
    // kombu's default, or GATEHOUSE_CELERY_VISIBILITY_TIMEOUT (seconds) when set.
    static qint64 defaultVisibilityMs();
    // Until kombu restores the queue's oldest unacked message itself (its
    // delivery + the visibility timeout), at nowMs; 0 due; -1 none unacked.
    static qint64 restoreInMs(const ObjectState &state, qint64 nowMs);
    // kombu's separator in binding members and priority queue names.
    static constexpr const char *Sep = "\x06\x16";

    PatternKind kind() const override { return Kind; }
    QString title() const override { return QStringLiteral("Celery queue"); }
    QByteArray keyType() const override { return "list"; }
    LibraryInfo library() const override
    {
        return {QStringLiteral("celery"), QStringLiteral("5 (kombu 5)")};
    }
    QList<Command> identifyProbe(const QByteArray &target) const override;
    bool identifies(const QByteArray &target, const QList<RedisValue> &replies) const override;

    bool parseRule(RuleReader &reader, const QJsonObject &json, ProfileRule &rule) const override;
    void writeRule(const ProfileRule &rule, QJsonObject &json) const override;
    QList<QByteArray> scanGlobs(const ProfileRule &rule) const override;
    std::optional<PatternObject> objectFor(const ProfileRule &rule,
                                           const QByteArray &key) const override;
    PatternObject conventionalObject(const QByteArray &key) const override;

    std::optional<KeyClaim> claimKey(const KeyShape &shape, qint64 serverNowMs) const override;
    int groupOrder() const override { return 11; } // takes its deployment's keys early
    QList<PatternObject> groupClaims(ClaimPool &pool) const override;

    QList<Command> probe(const PatternObject &object, const ProbeContext &context) const override;
    Reading read(const PatternObject &object, const QList<RedisValue> &replies,
                 const ProbeContext &context) const override;

    QList<Figure> figures() const override;
    QList<Chart> charts() const override;
    // The shared columns; the oldest unacked's also says when kombu restores it.
    QList<Column> columns() const override;
    QStringList itemHeaders() const override;
    QList<QStringList> items(const ObjectState &state, qint64 nowMs) const override;
    QList<PatternAction> actions() const override;
    // Its messages a page at a time: queued (the queue's list, then its
    // priority lists, as kombu takes them) and unacked (by delivery time;
    // "unacked" is the deployment's); id = the task id from the message's
    // headers, name = the task. A message over JobFieldCutBytes is not read.
    QList<JobVerb> jobVerbs(const QString &state) const override;
    JobRead jobPage(const PatternObject &object, const QString &state, qint64 offset,
                    int count) const override;
    JobRead jobDetail(const PatternObject &object, const QByteArray &job) const override;

protected:
    QList<JobState> states() const override;
    StuckRule stuckRule() const override;
    libraryqueue::ColumnOptions columnOptions() const override;
    libraryqueue::JsonOptions jsonOptions() const override
    {
        return {false, libraryqueue::LowerBound::Omitted};
    }
    // The visibility timeout, the unacked by priority, when kombu restores.
    void writeLibraryJson(const ObjectState &state, const Reading &r, qint64 nowMs,
                          QJsonObject &json) const override;
};

} // namespace gatehouse
