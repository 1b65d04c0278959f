// SPDX-License-Identifier: MIT
// The stream consumer group's actions: their CLI verbs and console buttons,
// and the calls of lua/stream-group/ they build (inputs as each script's
// header says).
#include "streamgroupunit.h"

#include <patterns/countedsentence.h>
#include <patterns/libraryqueue/libraryqueue.h>

#include <algorithm>

namespace gatehouse {

namespace {

const QString Group = QStringLiteral("group");
const QString Job = QStringLiteral("job");
const QString To = QStringLiteral("to");
const QString From = QStringLiteral("from");
const QString Idle = QStringLiteral("idle");
const QString Most = QStringLiteral("most");
const QString ConsumerId = QStringLiteral("consumer");
const QString MaxLen = QStringLiteral("maxlen");
const QString MinId = QStringLiteral("minid");
const QString CountOnly = QStringLiteral("count-only");
const QString Expect = QStringLiteral("expect");

QString name(const QByteArray &bytes)
{
    return printableBytes(bytes, 80);
}

ScriptCall baseCall(const PatternObject &o, const QString &action, const QString &script)
{
    ScriptCall call;
    call.action = action;
    call.script = script;
    call.keys = {o.key};
    call.keyRoles = {QStringLiteral("stream")};
    return call;
}

// The replies every script shares: {-1} no stream, {-2} no such group.
std::optional<ReplyMeaning> common(const RedisValue &reply, const QString &stream,
                                   const QString &group)
{
    const qint64 code = reply.size() >= 1 ? reply.at(0).toInteger() : 0;
    if (code == -1)
        return ReplyMeaning{
            false, QStringLiteral("Stream \"%1\" does not exist; nothing changed.").arg(stream)};
    if (code == -2)
        return ReplyMeaning{false, QStringLiteral("Stream \"%1\" has no consumer group \"%2\"; "
                                                  "nothing changed.")
                                       .arg(stream, group)};
    return std::nullopt;
}

ActionInput operatorInput(const QString &id, const QString &label, bool required,
                          bool integer = false)
{
    ActionInput in{id, label, ActionInput::Source::Operator, required};
    in.integer = integer;
    return in;
}

// An optional whole number given, or fallback.
qint64 orDefault(const ActionRequest &r, const QString &id, qint64 fallback)
{
    return r.has(id) ? r.integer(id, fallback) : fallback;
}

// A verb of `queue VERB STREAM`: action id "queue.<verb>".
PatternAction action(const QString &verb, const QString &label, const QString &objectName,
                     const QString &usage, QList<ActionInput> inputs)
{
    PatternAction a;
    a.id = QStringLiteral("queue.") + verb;
    a.verb = verb;
    a.label = label;
    a.objectName = objectName;
    a.usage = usage;
    a.inputs = std::move(inputs);
    return a;
}

// The sentence when one of the inputs ids is missing; empty when all are given.
QString needs(const ActionRequest &r, const QStringList &ids, const QString &sentence)
{
    return std::any_of(ids.cbegin(), ids.cend(),
                       [&r](const QString &id) { return r.input(id).isEmpty(); })
               ? sentence
               : QString();
}

PatternAction claimAction()
{
    PatternAction a = action(
        QStringLiteral("claim"), QStringLiteral("Claim…"), QStringLiteral("claimEntriesButton"),
        QStringLiteral("queue claim STREAM --group G --to CONSUMER [--idle MS] "
                       "[--from CONSUMER] [--job ID] [--most N]"),
        {{Group, QStringLiteral("Group"), ActionInput::Source::Item, true},
         operatorInput(To, QStringLiteral("Give to consumer"), true),
         operatorInput(Idle, QStringLiteral("Idle at least (ms)"), false, true),
         operatorInput(From, QStringLiteral("Only entries of consumer"), false),
         {Job, QStringLiteral("Entry id"), ActionInput::Source::Item, false},
         operatorInput(Most, QStringLiteral("At most (entries)"), false, true)});
    a.check = [](const ActionRequest &r) -> QString {
        const qint64 most = orDefault(r, Most, 100);
        if (most < 1 || most > StreamGroupUnit::MaxClaim)
            return QStringLiteral("queue claim: --most is from 1 to %1.")
                .arg(StreamGroupUnit::MaxClaim);
        return needs(r, {Group, To},
                     QStringLiteral("queue claim needs --group G and --to CONSUMER."));
    };
    a.build = [](const ActionRequest &r) {
        return StreamGroupUnit::claim(r.object, r.input(Group), r.input(To),
                                      orDefault(r, Idle, r.object->params.stuckAfterMs),
                                      int(orDefault(r, Most, 100)), r.input(From), r.input(Job));
    };
    return a;
}

PatternAction deadLetterAction()
{
    PatternAction a = action(QStringLiteral("dead-letter"), QStringLiteral("Dead-letter…"),
                             QStringLiteral("deadLetterButton"),
                             QStringLiteral("queue dead-letter STREAM --group G --job ID"),
                             {{Group, QStringLiteral("Group"), ActionInput::Source::Item, true},
                              {Job, QStringLiteral("Entry id"), ActionInput::Source::Item, true}});
    a.check = [](const ActionRequest &r) {
        return needs(r, {Group, Job},
                     QStringLiteral("queue dead-letter of a stream needs --group G and --job ID."));
    };
    a.build = [](const ActionRequest &r) {
        return StreamGroupUnit::deadLetter(r.object, r.input(Group), r.input(Job));
    };
    return a;
}

PatternAction deleteConsumerAction()
{
    PatternAction a
        = action(QStringLiteral("delete-consumer"), QStringLiteral("Delete consumer…"),
                 QStringLiteral("deleteConsumerButton"),
                 QStringLiteral("queue delete-consumer STREAM --group G --consumer C [--idle MS]"),
                 {operatorInput(Group, QStringLiteral("Group"), true),
                  operatorInput(ConsumerId, QStringLiteral("Consumer"), true),
                  operatorInput(Idle, QStringLiteral("Idle at least (ms)"), false, true)});
    a.check = [](const ActionRequest &r) {
        return needs(r, {Group, ConsumerId},
                     QStringLiteral("queue delete-consumer needs --group G and --consumer C."));
    };
    a.build = [](const ActionRequest &r) {
        return StreamGroupUnit::deleteConsumer(r.object, r.input(Group), r.input(ConsumerId),
                                               orDefault(r, Idle, 0));
    };
    return a;
}

PatternAction trimAction()
{
    PatternAction a = action(
        QStringLiteral("trim"), QStringLiteral("Trim…"), QStringLiteral("trimStreamButton"),
        QStringLiteral("queue trim STREAM (--maxlen N | --minid ID) (--count-only | --expect N)"),
        {operatorInput(MaxLen, QStringLiteral("Keep the newest (entries)"), false, true),
         operatorInput(MinId, QStringLiteral("Delete below id"), false),
         libraryqueue::flag(CountOnly, QStringLiteral("Only count")),
         operatorInput(Expect, QStringLiteral("Delete at most (the count shown)"), false, true)});
    a.check = [](const ActionRequest &r) -> QString {
        if (r.has(MaxLen) == r.has(MinId))
            return QStringLiteral("queue trim needs either --maxlen N or --minid ID.");
        if (r.has(CountOnly) == r.has(Expect))
            return QStringLiteral("queue trim counts first: --count-only says how many entries "
                                  "would go; then --expect N (that count) trims.");
        return QString();
    };
    a.build = [](const ActionRequest &r) {
        const bool byLength = r.has(MaxLen);
        return StreamGroupUnit::trim(r.object, byLength ? "MAXLEN" : "MINID",
                                     byLength ? r.input(MaxLen) : r.input(MinId),
                                     r.has(CountOnly) ? -1 : r.integer(Expect));
    };
    return a;
}

QString groupsText(const RedisValue &list)
{
    QStringList out;
    for (const RedisValue &g : list.elements())
        out << QStringLiteral("\"%1\"").arg(name(g.bytes()));
    return out.join(QStringLiteral(", "));
}

// A trim's count: {"count", n, length, last id, {groups pending}, {groups unread}}.
QString countText(const RedisValue &r, const QString &stream)
{
    QString text = QStringLiteral("%1 of the %2 entries of stream \"%3\" would be deleted")
                       .arg(r.at(1).toInteger())
                       .arg(r.at(2).toInteger())
                       .arg(stream);
    if (!r.at(3).bytes().isEmpty())
        text += QStringLiteral(" (up to id %1)").arg(QString::fromLatin1(r.at(3).bytes()));
    text += QLatin1Char('.');
    if (r.at(4).size() > 0)
        text += QStringLiteral(" Groups with pending entries among them: %1.")
                    .arg(groupsText(r.at(4)));
    if (r.at(5).size() > 0)
        text += QStringLiteral(" Groups that have not read them yet: %1.").arg(groupsText(r.at(5)));
    return text;
}

// A trim refused because groups would lose entries.
QString lossText(qint64 n, const RedisValue &pending, const RedisValue &unread)
{
    QStringList why;
    if (pending.size() > 0)
        why << QStringLiteral("groups %1 still have entries among them pending")
                   .arg(groupsText(pending));
    if (unread.size() > 0)
        why << QStringLiteral("groups %1 have not read them yet").arg(groupsText(unread));
    return QStringLiteral("Refused to delete %1 entries: %2; nothing changed (--force trims "
                          "anyway).")
        .arg(n)
        .arg(why.join(QStringLiteral(" and ")));
}

} // namespace

ScriptCall StreamGroupUnit::claim(const PatternObject &o, const QByteArray &group,
                                  const QByteArray &to, qint64 minIdleMs, int most,
                                  const QByteArray &from, const QByteArray &entry)
{
    ScriptCall call = baseCall(o, QStringLiteral("queue.claim"), QStringLiteral("stream_claim"));
    call.args = {
        group, to,   QByteArray::number(std::max<qint64>(0, minIdleMs)), QByteArray::number(most),
        from,  entry};
    const QString which = !entry.isEmpty() ? QStringLiteral("entry %1").arg(name(entry))
                                           : QStringLiteral("at most %1 pending entries").arg(most);
    call.summary
        = QStringLiteral("Give %1 of group \"%2\" of stream \"%3\"%4, idle at least %5 "
                         "ms, to consumer \"%6\" (XCLAIM: their delivery counts go up).")
              .arg(which, name(group), name(o.key),
                   from.isEmpty() ? QString()
                                  : QStringLiteral(" held by consumer \"%1\"").arg(name(from)))
              .arg(minIdleMs)
              .arg(name(to));
    const QString stream = name(o.key), g = name(group), target = name(to);
    call.meaning = [stream, g, target](const RedisValue &reply) {
        if (auto m = common(reply, stream, g))
            return *m;
        const qint64 examined = reply.size() >= 2 ? reply.at(0).toInteger() : 0;
        const qint64 claimed = reply.size() >= 2 ? reply.at(1).toInteger() : 0;
        QStringList ids;
        for (qsizetype i = 2; i < reply.size() && ids.size() < 10; ++i)
            ids << QString::fromLatin1(reply.at(i).bytes().left(ScriptCall::ReplyCutBytes));
        // More given (or to give) than named here.
        const QString more
            = (claimed == -1 ? examined : claimed) > ids.size() ? QStringLiteral(", …") : QString();
        if (claimed == -1) // run read-only (a dry run): what it would give
            return ReplyMeaning{true,
                                countedSentence(QStringLiteral("give %1 entries of group \"%2\" "
                                                               "to consumer \"%3\": %4%5."),
                                                examined)
                                    .arg(g, target, ids.join(QStringLiteral(", ")), more)};
        if (claimed <= 0)
            return ReplyMeaning{
                false, examined > 0 ? countedSentence(QStringLiteral("No longer in stream \"%2\" "
                                                                     "(deleted), so dropped from "
                                                                     "the group's pending list: "
                                                                     "the %1 entries found."),
                                                      examined)
                                          .arg(stream)
                                    : QStringLiteral("No pending entry of group \"%1\" "
                                                     "matched; nothing changed.")
                                          .arg(g)};
        return ReplyMeaning{true, countedSentence(QStringLiteral("Gave %1 entries of group \"%2\" "
                                                                 "to consumer \"%3\": %4%5."),
                                                  claimed)
                                      .arg(g, target, ids.join(QStringLiteral(", ")), more)};
    };
    return call;
}

ScriptCall StreamGroupUnit::deadLetter(const PatternObject &o, const QByteArray &group,
                                       const QByteArray &entry)
{
    ScriptCall call
        = baseCall(o, QStringLiteral("queue.dead-letter"), QStringLiteral("stream_dead_letter"));
    call.keys << deadKey(o);
    call.keyRoles << QStringLiteral("dead-letter stream");
    call.args = {group, entry};
    call.summary = QStringLiteral("Copy entry %1 of stream \"%2\" to dead-letter stream \"%3\" "
                                  "with its id, group and consumer, then XACK it in group "
                                  "\"%4\", only if it is still pending there.")
                       .arg(name(entry), name(o.key), name(deadKey(o)), name(group));
    const QString stream = name(o.key), g = name(group), id = name(entry), dead = name(deadKey(o));
    call.meaning = [stream, g, id, dead](const RedisValue &reply) {
        if (auto m = common(reply, stream, g))
            return *m;
        const qint64 code = reply.size() >= 1 ? reply.at(0).toInteger() : 0;
        if (code == 1 && reply.size() >= 4)
            return ReplyMeaning{true, QStringLiteral("Entry %1 (held by \"%2\", delivered %3 "
                                                     "times) copied to \"%4\" as %5 and acked "
                                                     "in group \"%6\".")
                                          .arg(id, name(reply.at(2).bytes()))
                                          .arg(reply.at(3).toInteger())
                                          .arg(dead, QString::fromLatin1(reply.at(1).bytes()), g)};
        if (code == -3)
            return ReplyMeaning{false, QStringLiteral("Entry %1 is pending in group \"%2\" but "
                                                      "no longer in the stream (deleted or "
                                                      "trimmed): nothing to copy; nothing "
                                                      "changed.")
                                           .arg(id, g)};
        return ReplyMeaning{false, QStringLiteral("Entry %1 is not pending in group \"%2\" "
                                                  "(acked or claimed away); nothing changed.")
                                       .arg(id, g)};
    };
    return call;
}

ScriptCall StreamGroupUnit::deleteConsumer(const PatternObject &o, const QByteArray &group,
                                           const QByteArray &consumer, qint64 minIdleMs)
{
    ScriptCall call = baseCall(o, QStringLiteral("queue.delete-consumer"),
                               QStringLiteral("stream_delete_consumer"));
    call.args = {group, consumer, QByteArray::number(std::max<qint64>(0, minIdleMs))};
    call.summary = QStringLiteral("Delete consumer \"%1\" of group \"%2\" of stream \"%3\" only "
                                  "if it holds no pending entries and has been idle at least "
                                  "%4 ms.")
                       .arg(name(consumer), name(group), name(o.key))
                       .arg(minIdleMs);
    const QString stream = name(o.key), g = name(group), c = name(consumer);
    call.meaning = [stream, g, c](const RedisValue &reply) {
        if (auto m = common(reply, stream, g))
            return *m;
        const qint64 code = reply.size() >= 1 ? reply.at(0).toInteger() : 0;
        const qint64 value = reply.size() >= 2 ? reply.at(1).toInteger() : 0;
        if (code == 1)
            return ReplyMeaning{true, QStringLiteral("Deleted consumer \"%1\" of group \"%2\" "
                                                     "(idle %3).")
                                          .arg(c, g, formatMs(value))};
        if (code == -4)
            return ReplyMeaning{false, QStringLiteral("Consumer \"%1\" still holds %2 pending "
                                                      "entries: claim or dead-letter them "
                                                      "first; nothing changed.")
                                           .arg(c)
                                           .arg(value)};
        if (code == -5)
            return ReplyMeaning{false, QStringLiteral("Consumer \"%1\" was active %2 ago; "
                                                      "nothing changed.")
                                           .arg(c, formatMs(value))};
        return ReplyMeaning{false, QStringLiteral("Group \"%1\" has no consumer \"%2\"; nothing "
                                                  "changed.")
                                       .arg(g, c)};
    };
    return call;
}

ScriptCall StreamGroupUnit::trim(const PatternObject &o, const QByteArray &strategy,
                                 const QByteArray &threshold, qint64 agreed)
{
    ScriptCall call = baseCall(o, QStringLiteral("queue.trim"), QStringLiteral("stream_trim"));
    call.args = {strategy, threshold, agreed < 0 ? QByteArray("count") : QByteArray::number(agreed),
                 QByteArray(), QByteArray::number(MaxTrim)};
    call.forceable = agreed >= 0;
    call.forceArg = agreed >= 0 ? 3 : -1;
    const QString how
        = strategy == "MAXLEN"
              ? QStringLiteral("keeping its newest %1 entries").arg(name(threshold))
              : QStringLiteral("deleting its entries below id %1").arg(name(threshold));
    call.summary
        = agreed < 0
              ? QStringLiteral("Count what trimming stream \"%1\" (%2) would delete; nothing is "
                               "written.")
                    .arg(name(o.key), how)
              : QStringLiteral("Trim stream \"%1\" exactly, %2, only if that deletes at most %3 "
                               "entries and no group loses pending or unread entries.")
                    .arg(name(o.key), how)
                    .arg(agreed);
    const QString stream = name(o.key);
    call.meaning = [stream, agreed](const RedisValue &reply) {
        if (auto m = common(reply, stream, QString()))
            return *m;
        const QByteArray word = reply.size() >= 1 ? reply.at(0).bytes() : QByteArray();
        const qint64 code = reply.size() >= 1 ? reply.at(0).toInteger() : 0;
        const qint64 n = reply.size() >= 2 ? reply.at(1).toInteger() : 0;
        if (word == "trimmed" && reply.size() >= 3)
            return ReplyMeaning{
                true,
                countedSentence(QStringLiteral("Deleted %1 entries of stream \"%2\" (of %3)."), n)
                    .arg(stream)
                    .arg(reply.at(2).toInteger())};
        if (word == "count" && reply.size() >= 6) // count-only, or nothing to delete
            return ReplyMeaning{agreed < 0 && n > 0,
                                countText(reply, stream)
                                    + (agreed < 0 && n > 0
                                           ? QStringLiteral(" To trim: --expect %1.").arg(n)
                                           : QString())};
        if (code == -6)
            return ReplyMeaning{false, QStringLiteral("%1 entries would be deleted now, more than "
                                                      "the %2 you were shown; count again; "
                                                      "nothing changed.")
                                           .arg(n)
                                           .arg(agreed)};
        if (code == -7)
            return ReplyMeaning{false, QStringLiteral("More than %1 entries would be deleted; "
                                                      "trim in smaller steps; nothing changed.")
                                           .arg(MaxTrim)};
        if (code == -8 && reply.size() >= 4)
            return ReplyMeaning{false, lossText(n, reply.at(2), reply.at(3))};
        return ReplyMeaning{false, QStringLiteral("Unexpected reply; nothing is known to have "
                                                  "changed.")};
    };
    return call;
}

QList<PatternAction> StreamGroupUnit::actions() const
{
    return {claimAction(), deadLetterAction(), deleteConsumerAction(), trimAction()};
}

} // namespace gatehouse
