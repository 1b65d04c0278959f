// SPDX-License-Identifier: MIT
// libFuzzer target: arbitrary bytes, split into chunks derived from the input,
// through RespReader. Properties: no crash; every reply is well formed; the
// replies do not depend on how the bytes were split; a protocol error is
// reported with a message and sticks until reset(); a reply re-encoded as
// RESP parses back to the same value.

#include "fuzzcheck.h"

#include <redis/respreader.h>

#include <QByteArrayView>

using namespace gatehouse;
using gatehouse::Internal::FuzzInput;

namespace {

// hiredis 0.14 nests at most 7 levels below the root.
constexpr int s_maxDepth = 8;

void checkWellFormed(const RedisValue &v, int depth)
{
    GATEHOUSE_FUZZ_CHECK(depth <= s_maxDepth, QStringLiteral("depth %1").arg(depth));
    GATEHOUSE_FUZZ_CHECK(!v.isFailed(), v.toDebugString());
    if (v.isArray()) {
        GATEHOUSE_FUZZ_CHECK(v.bytes().isEmpty(), v.toDebugString());
        for (const RedisValue &e : v.elements())
            checkWellFormed(e, depth + 1);
    } else {
        GATEHOUSE_FUZZ_CHECK(v.elements().isEmpty(), v.toDebugString());
    }
}

void encode(const RedisValue &v, QByteArray &out)
{
    switch (v.type()) {
    case RedisValue::Type::Nil:
        out += "$-1\r\n";
        break;
    case RedisValue::Type::Integer:
        out += ':' + QByteArray::number(v.toInteger()) + "\r\n";
        break;
    case RedisValue::Type::Status:
        out += '+' + v.bytes() + "\r\n";
        break;
    case RedisValue::Type::Error:
        out += '-' + v.bytes() + "\r\n";
        break;
    case RedisValue::Type::Bulk:
        out += '$' + QByteArray::number(v.bytes().size()) + "\r\n" + v.bytes() + "\r\n";
        break;
    case RedisValue::Type::Array:
        out += '*' + QByteArray::number(v.size()) + "\r\n";
        for (const RedisValue &e : v.elements())
            encode(e, out);
        break;
    case RedisValue::Type::Failed:
        break;
    }
}

struct Parsed
{
    QList<RedisValue> replies;
    bool protocolError = false;
};

// Feeds stream in chunks of the given sizes (the last one takes the rest),
// taking every complete reply after each.
Parsed parse(RespReader &reader, QByteArrayView stream, const QList<qsizetype> &sizes = {})
{
    Parsed out;
    for (qsizetype i = 0, pos = 0; pos < stream.size(); ++i) {
        const qsizetype n = i < sizes.size() ? sizes.at(i) : stream.size() - pos;
        reader.feed(stream.data() + pos, n);
        pos += n;
        for (;;) {
            RedisValue reply;
            const RespReader::Result result = reader.next(&reply);
            if (result == RespReader::Result::NeedMore)
                break;
            if (result == RespReader::Result::ProtocolError) {
                GATEHOUSE_FUZZ_CHECK(!reader.errorString().isEmpty(), QString());
                RedisValue again;
                GATEHOUSE_FUZZ_CHECK(reader.next(&again) == RespReader::Result::ProtocolError,
                                     QString());
                out.protocolError = true;
                return out;
            }
            checkWellFormed(reply, 0);
            (void)reply.toDebugString(); // renders every level once
            out.replies.append(reply);
        }
    }
    return out;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FuzzInput in(data, size);
    // The first byte seeds the split; the rest is the stream.
    quint32 seed = in.byte() * 2654435761u + 1;
    const QByteArray stream = in.rest();

    QList<qsizetype> sizes;
    for (qsizetype pos = 0; pos < stream.size();) {
        seed = seed * 1103515245u + 12345u;
        const qsizetype n = qMin<qsizetype>(1 + (seed >> 16) % 24, stream.size() - pos);
        sizes.append(n);
        pos += n;
    }

    static RespReader s_reader; // reused across inputs, as a connection reuses it
    s_reader.reset();
    const Parsed split = parse(s_reader, stream, sizes);

    s_reader.reset();
    const Parsed whole = parse(s_reader, stream);
    GATEHOUSE_FUZZ_CHECK(split.protocolError == whole.protocolError, QString());
    GATEHOUSE_FUZZ_CHECK(
        split.replies == whole.replies,
        QStringLiteral("%1 vs %2 replies").arg(split.replies.size()).arg(whole.replies.size()));

    // Re-encoded, the replies parse back to themselves.
    QByteArray encoded;
    for (const RedisValue &v : whole.replies)
        encode(v, encoded);
    s_reader.reset();
    const Parsed again = parse(s_reader, encoded);
    GATEHOUSE_FUZZ_CHECK(!again.protocolError, s_reader.errorString());
    GATEHOUSE_FUZZ_CHECK(again.replies == whole.replies, QString());
    return 0;
}
