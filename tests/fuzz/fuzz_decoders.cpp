// SPDX-License-Identifier: MIT
// libFuzzer target: the payload decoders (backend/decoders) on arbitrary
// bytes. The first byte picks the library's hints (a content type, base64 or
// not); the rest is the payload. Properties: no crash, no hang (every call
// within its time limit plus slack); a chain is always named; the decoded
// text stays within the output limit; a payload no decoder reads says why
// or is text; each decoder alone refuses with a sentence or succeeds; the
// hex dump has a line per 16 bytes.

#include "fuzzcheck.h"

#include <decoders/bodyencoding.h>
#include <decoders/decodebudget.h>
#include <decoders/jsondecoder.h>
#include <decoders/msgpackdecoder.h>
#include <decoders/payloaddecoder.h>
#include <decoders/phpserializedecoder.h>
#include <decoders/pickledecoder.h>
#include <decoders/protobufdecoder.h>

#include <QElapsedTimer>

using namespace gatehouse;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    static const char *const types[] = {"",
                                        "application/json",
                                        "application/x-python-serialize",
                                        "application/x-msgpack",
                                        "application/x-protobuf",
                                        "application/x-php-serialized",
                                        "text/plain",
                                        ""};
    const quint8 pick = data[0];
    DecodeHints hints;
    hints.contentType = QString::fromLatin1(types[pick & 7]);
    if (pick & 8)
        hints.encoding = QStringLiteral("base64");
    const QByteArray payload(reinterpret_cast<const char *>(data + 1), qsizetype(size - 1));
    const QString what = QString::fromLatin1(payload.left(64).toHex());

    DecodeLimits limits;
    // Small limits in half the runs, so the fuzzer meets them often.
    if (pick & 16) {
        limits.maxDepth = 8;
        limits.maxNodes = 500;
        limits.maxOutput = 2048;
        limits.maxInflated = 64 * 1024;
        limits.foldItems = 5;
        limits.foldChars = 16;
    }
    QElapsedTimer clock;
    clock.start();
    const DecodedPayload d = decodePayload(payload, hints, limits);
    // The limit is checked every 256 values; rendering comes after it.
    GATEHOUSE_FUZZ_CHECK(clock.elapsed() < limits.maxMs + 2000, what);
    GATEHOUSE_FUZZ_CHECK(!d.chain.isEmpty(), what);
    GATEHOUSE_FUZZ_CHECK(d.text.size() <= limits.maxOutput + 200, what);
    if (!d.structured)
        GATEHOUSE_FUZZ_CHECK(d.chain.last() == QLatin1String("text") || !d.note.isEmpty(), what);

    for (auto decoder :
         {decodeJson, decodeMsgpack, decodePickle, decodeProtobuf, decodePhpSerialized}) {
        DecodeBudget budget(limits);
        const DecodeResult r = decoder(payload, budget);
        GATEHOUSE_FUZZ_CHECK(r.ok ? !r.name.isEmpty() : !r.why.isEmpty(), what);
        if (r.ok)
            GATEHOUSE_FUZZ_CHECK(
                renderPayloadValue(r.value, limits).size() <= limits.maxOutput + 200, what);
    }
    QByteArray inflated;
    bool cut = false;
    QString why;
    if (BodyEncoding::inflate(payload, 64 * 1024, &inflated, &cut, &why))
        GATEHOUSE_FUZZ_CHECK(inflated.size() <= 64 * 1024, what);
    else
        GATEHOUSE_FUZZ_CHECK(!why.isEmpty(), what);
    const QString dump = hexDump(payload, 256);
    GATEHOUSE_FUZZ_CHECK(dump.count(QLatin1Char('\n'))
                             == (std::min<qsizetype>(payload.size(), 256) + 15) / 16
                                    + (payload.size() > 256 ? 1 : 0),
                         what);
    return 0;
}
