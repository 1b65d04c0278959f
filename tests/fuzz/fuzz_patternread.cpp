// SPDX-License-Identifier: MIT
// libFuzzer target: every pattern unit's read() of arbitrary reply trees.
// The input decodes to a PatternObject of one kind (keys, parameters,
// members), a probe context, and a list of replies: integers, bulk strings
// (numbers or bytes), nil, status, errors such as WRONGTYPE, arrays nested a
// few levels, in counts that may not match what probe() asked for.
// Properties: read(), validUntilMs() and Reading::at() never crash; fewer
// replies than commands never read as Ok or Missing; a failed reading says why.

#include "fuzzcheck.h"

#include <patterns/patternregistry.h>

#include <QJsonObject>

#include <cmath>

using namespace gatehouse;
using gatehouse::Internal::FuzzInput;

namespace {

constexpr qint64 s_now = qint64(1'780'000'000'000); // about 2026, in ms

RedisValue decodeValue(FuzzInput &in, int depth)
{
    static const QByteArray s_errors[] = {
        "WRONGTYPE Operation against a key holding the wrong kind of value",
        "ERR unknown command",
        "NOPERM this user has no permissions",
        "",
    };
    switch (in.byte() % 11) {
    case 0:
        return RedisValue::nil();
    case 1:
        return RedisValue::integer(qint64(qint8(in.byte()))); // -128..127, TTLs -1/-2
    case 2:
        return RedisValue::integer(in.i64());
    case 3:
        return RedisValue::integer(s_now - qint64(in.u32()));
    case 4:
        return RedisValue::bulk(QByteArray::number(qint64(qint16(in.u16()))));
    case 5:
        return RedisValue::bulk(QByteArray::number(s_now - qint64(in.u16()) * 97));
    case 6:
        return RedisValue::bulk(in.bytes(24));
    case 7:
        return RedisValue::status(in.bytes(8));
    case 8:
        return RedisValue::error(s_errors[in.byte() % 4]);
    default: {
        if (depth >= 3)
            return RedisValue::bulk(in.bytes(4));
        QList<RedisValue> elements;
        const int n = in.byte() % 9;
        for (int i = 0; i < n && !in.atEnd(); ++i)
            elements.append(decodeValue(in, depth + 1));
        return RedisValue::array(std::move(elements));
    }
    }
}

QByteArray decodeKey(FuzzInput &in)
{
    return in.byte() % 4 == 0 ? QByteArray() : "k:" + in.bytes(6);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const QList<PatternKind> s_kinds = allPatterns();
    FuzzInput in(data, size);

    PatternObject o;
    o.kind = s_kinds.at(in.byte() % s_kinds.size());
    const quint8 flags = in.byte();
    o.countedTokens = flags & 1;
    o.key = "k:" + in.bytes(8);
    for (int i = 0, n = in.byte() % 4; i < n; ++i)
        o.related.append(decodeKey(in));
    if (flags & 2)
        o.parent = decodeKey(in);
    for (int i = 0, n = in.byte() % 6; i < n; ++i)
        o.members.append(o.key + in.bytes(4));
    if (flags & 4)
        o.params.limit = (flags & 8) ? in.i64() : qint64(in.u16());
    o.params.windowMs = (flags & 16) ? qint64(in.u32()) : qint64(in.u16());
    o.params.scoreUnitMs = (flags & 32) ? 1000 : (flags & 64 ? qint64(in.u16()) : 1);
    o.params.stuckAfterMs = qint64(in.u32());
    o.params.pageSize = 1 + in.byte() % 100;
    o.source = QStringLiteral("fuzz");

    ProbeContext context;
    context.nowMs = s_now + qint64(in.u16());
    context.detail = flags & 128;

    const PatternUnit &unit = PatternUnit::of(o.kind);
    GATEHOUSE_FUZZ_CHECK(unit.kind() == o.kind, patternId(o.kind));
    const qsizetype asked = unit.probe(o, context).size();

    // Mostly as many replies as commands (their shapes are what is tested),
    // sometimes fewer or more.
    const quint8 countMode = in.byte();
    const qsizetype count = countMode < 160 ? asked : countMode % (asked + 3);
    QList<RedisValue> replies;
    for (qsizetype i = 0; i < count; ++i)
        replies.append(decodeValue(in, 0));
    // The follow-up those replies call for, and as many replies to it (or
    // fewer: a reader that sent none).
    const qsizetype probed = replies.size();
    const qsizetype followed = unit.followUp(o, replies, context).size();
    const qsizetype followReplies = in.byte() < 200 ? followed : followed / 2;
    for (qsizetype i = 0; i < followReplies; ++i)
        replies.append(decodeValue(in, 0));

    const Reading reading = unit.read(o, replies, context);
    const QString what = patternId(o.kind)
                         + QStringLiteral(": %1 replies for %2 commands, %3 follow-up replies")
                               .arg(probed)
                               .arg(asked)
                               .arg(replies.size() - probed);
    if (probed < asked)
        GATEHOUSE_FUZZ_CHECK(reading.status == Reading::Status::Error
                                 || reading.status == Reading::Status::WrongType,
                             what);
    if (reading.status == Reading::Status::Error || reading.status == Reading::Status::WrongType)
        GATEHOUSE_FUZZ_CHECK(!reading.message.isEmpty(), what);
    GATEHOUSE_FUZZ_CHECK(reading.atMs == context.nowMs, what);

    const qint64 until = unit.validUntilMs(o, reading);
    (void)until;
    (void)readingStatusId(reading.status);
    (void)reading.occupancy();
    const qint64 later = context.nowMs + qint64(in.u32());
    (void)reading.at(later);

    // What the console and the CLI make of the reading: tracking, columns
    // (table, CSV, CLI), JSON, items and the inputs actions take from them.
    TrackState track;
    track.everRead = flags & 1;
    unit.track(track, reading, context.nowMs);
    // The same replies read again with what the unit tracked of the first.
    context.track = track.ownPart();
    GATEHOUSE_FUZZ_CHECK(unit.read(o, replies, context).atMs == context.nowMs, what);
    (void)unit.afterRead(o, o, replies);
    ObjectState state;
    state.object = o;
    state.reading = reading;
    state.heldSinceMs = track.heldSinceMs;
    for (const Column &c : unit.columns()) {
        GATEHOUSE_FUZZ_CHECK(!c.header.isEmpty() && c.text, what);
        (void)c.text(state, later);
        (void)c.sortValue(state, later);
    }
    QJsonObject json;
    unit.writeJson(state, reading.at(later), later, json);
    for (const QStringList &row : unit.items(state, later))
        GATEHOUSE_FUZZ_CHECK(row.size() == unit.itemHeaders().size(), what);
    for (int i = 0; i < 3; ++i)
        (void)unit.itemInputs(state, i);
    for (const Figure &f : unit.figures())
        (void)f.value(reading, later);
    // The Overview's attention: a finite score and a sentence when it says so.
    state.firstSeenMs = later - qint64(in.u32()) * 1000;
    if (const std::optional<Attention> a = unit.attention(state, later)) {
        GATEHOUSE_FUZZ_CHECK(std::isfinite(a->score) && !a->figure.isEmpty(), what);
        GATEHOUSE_FUZZ_CHECK(!unit.attentionText(state, later).isEmpty(), what);
    }
    return 0;
}
