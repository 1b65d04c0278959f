// SPDX-License-Identifier: MIT
#include "payloaddecoder.h"

#include "bodyencoding.h"
#include "jsondecoder.h"
#include "msgpackdecoder.h"
#include "payloadjson.h"
#include "phpserializedecoder.h"
#include "pickledecoder.h"
#include "protobufdecoder.h"

#include <QStringDecoder>

namespace gatehouse {

namespace {

using Decoder = DecodeResult (*)(const QByteArray &, DecodeBudget &);

// Text a person can read: UTF-8 without control characters but whitespace.
bool readableText(const QByteArray &data, QString *text)
{
    QStringDecoder utf8(QStringDecoder::Utf8, QStringDecoder::Flag::Stateless);
    *text = utf8.decode(data);
    if (utf8.hasError())
        return false;
    return std::none_of(text->cbegin(), text->cend(), [](QChar c) {
        return (c.unicode() < 0x20 && c != QLatin1Char('\n') && c != QLatin1Char('\t')
                && c != QLatin1Char('\r'))
               || c.unicode() == 0x7f;
    });
}

bool looksJson(const QByteArray &data)
{
    const QByteArray t = data.trimmed();
    if (t.isEmpty())
        return false;
    const char c = t.front();
    return c == '{' || c == '[' || c == '"' || c == '-' || (c >= '0' && c <= '9') || t == "true"
           || t == "false" || t == "null";
}

bool looksPhp(const QByteArray &data)
{
    if (data == "N;")
        return true;
    return data.size() >= 4 && data.at(1) == ':'
           && QByteArrayLiteral("abidsONCE").contains(data.at(0));
}

// A pickle: protocol 2+ starts with PROTO; 0 and 1 with a container, a
// MARK or a global, and every pickle ends with STOP.
bool looksPickle(const QByteArray &data)
{
    if (data.size() < 2 || data.back() != '.')
        return false;
    const uchar c = uchar(data.front());
    return (c == 0x80 && uchar(data.at(1)) <= 5) || c == '(' || c == ']' || c == '}' || c == ')'
           || c == 'c' || c == 'N' || c == 'I' || c == 'S' || c == 'V' || c == 'F' || c == 'L';
}

// Decoders in the order the evidence points to; the hinted one first.
QList<Decoder> candidates(const QByteArray &data, const QString &contentType, bool text)
{
    QList<Decoder> order;
    const QString type = contentType.toLower();
    if (type.contains(QLatin1String("json")))
        order << decodeJson;
    if (type.contains(QLatin1String("python-serialize")) || type.contains(QLatin1String("pickle")))
        order << decodePickle;
    if (type.contains(QLatin1String("msgpack")))
        order << decodeMsgpack;
    if (type.contains(QLatin1String("protobuf")))
        order << decodeProtobuf;
    if (type.contains(QLatin1String("php")))
        order << decodePhpSerialized;
    if (looksPickle(data))
        order << decodePickle;
    if (looksJson(data))
        order << decodeJson;
    if (looksPhp(data))
        order << decodePhpSerialized;
    // Binary without other evidence: msgpack, then protobuf (whose wire
    // format reads much random binary, so it comes only when nothing else is
    // evident).
    if (!text)
        order << decodeMsgpack;
    if (!text && order.size() == 1)
        order << decodeProtobuf;
    QList<Decoder> unique;
    for (Decoder d : std::as_const(order)) {
        if (!unique.contains(d))
            unique << d;
    }
    return unique;
}

// Unwraps base64 (when hinted, or as a last try), gzip and zlib, adding each
// to chain; returns what is inside.
QByteArray unwrap(QByteArray data, bool base64, const DecodeLimits &limits, QStringList *chain,
                  QStringList *notes)
{
    for (int layer = 0; layer < 4; ++layer) {
        QByteArray inner;
        if (base64 && layer == 0) {
            if (BodyEncoding::fromBase64(data, &inner)) {
                *chain << QStringLiteral("base64");
                data = inner;
                continue;
            }
            *notes << QStringLiteral("The body is said to be base64 and is not.");
        }
        const BodyEncoding::Compression c = BodyEncoding::compressionOf(data);
        if (c == BodyEncoding::Compression::None)
            break;
        bool cut = false;
        QString why;
        if (!BodyEncoding::inflate(data, limits.maxInflated, &inner, &cut, &why)) {
            *notes << QStringLiteral("It looks compressed, but %1.").arg(why);
            break;
        }
        *chain << (c == BodyEncoding::Compression::Gzip ? QStringLiteral("gzip")
                                                        : QStringLiteral("zlib"));
        if (cut)
            *notes << QStringLiteral("Inflated past %1 KiB: only that much is decoded.")
                          .arg(limits.maxInflated / 1024);
        data = inner;
    }
    return data;
}

// The first decoder in the order that reads all of data.
bool structured(const QByteArray &data, const QString &contentType, DecodeBudget &budget,
                DecodedPayload *out, QStringList *notes)
{
    QString text;
    const bool readable = readableText(data, &text);
    const QList<Decoder> order = candidates(data, contentType, readable);
    for (Decoder decoder : order) {
        const DecodeResult r = decoder(data, budget);
        if (r.ok) {
            out->chain << r.name;
            for (const QString &inner : r.inner)
                out->chain << inner + QStringLiteral(" (inside strings)");
            out->text = renderPayloadValue(r.value, budget.limits());
            out->json = payloadJson(r.value, budget.limits().maxDepth);
            out->structured = true;
            return true;
        }
        if (budget.exhausted()) {
            *notes << QStringLiteral("Not decoded: %1.").arg(budget.reason());
            return false;
        }
        // Why the likeliest one refused: the library's word, or the first bytes'.
        if (decoder == order.first() && (decoder != decodeMsgpack || !contentType.isEmpty()))
            *notes << (contentType.isEmpty()
                           ? r.why.left(1).toUpper() + r.why.mid(1) + QLatin1Char('.')
                           : QStringLiteral("The library says %1, but it is %2.")
                                 .arg(contentType, r.why));
    }
    return false;
}

} // namespace

QString DecodedPayload::chainText() const
{
    return chain.join(QStringLiteral(" → "));
}

DecodedPayload decodePayload(const QByteArray &bytes, const DecodeHints &hints,
                             const DecodeLimits &limits)
{
    DecodedPayload out;
    QStringList notes;
    if (bytes.size() > limits.maxInput)
        notes << QStringLiteral("Only the first %1 KiB of %2 bytes are decoded.")
                     .arg(limits.maxInput / 1024)
                     .arg(bytes.size());
    DecodeBudget budget(limits);
    const bool base64 = hints.encoding.compare(QLatin1String("base64"), Qt::CaseInsensitive) == 0;
    QByteArray data = unwrap(bytes.left(limits.maxInput), base64, limits, &out.chain, &notes);
    const qsizetype asTextFrom = notes.size();
    bool done = structured(data, hints.contentType, budget, &out, &notes);
    const qsizetype asTextTo = notes.size();
    // Unannounced base64 (a body stored without its envelope): decoded when
    // what it holds is a format of its own.
    if (!done && !base64 && !budget.exhausted() && BodyEncoding::looksBase64(data)) {
        QStringList inner{QStringLiteral("base64")};
        QByteArray decoded;
        BodyEncoding::fromBase64(data, &decoded);
        decoded = unwrap(decoded, false, limits, &inner, &notes);
        DecodedPayload nested;
        if (structured(decoded, hints.contentType, budget, &nested, &notes)) {
            // What the base64 text itself is not: beside the point now.
            notes.remove(asTextFrom, asTextTo - asTextFrom);
            out.chain << inner << nested.chain;
            out.text = nested.text;
            out.json = nested.json;
            out.structured = true;
            done = true;
        }
    }
    if (!done) {
        QString text;
        if (readableText(data, &text)) {
            out.chain << QStringLiteral("text");
            out.text = text.left(limits.maxOutput);
        } else {
            out.chain << QStringLiteral("binary");
            notes << QStringLiteral("No decoder reads it: see the raw bytes (hex).");
        }
    }
    notes.removeDuplicates(); // one sentence once, whichever layer said it
    out.note = notes.join(QLatin1Char(' '));
    return out;
}

QString hexDump(const QByteArray &bytes, qint64 maxBytes)
{
    const qsizetype n = qsizetype(std::min<qint64>(bytes.size(), maxBytes));
    QString out;
    out.reserve(n / 16 * 78 + 80);
    for (qsizetype at = 0; at < n; at += 16) {
        const qsizetype len = std::min<qsizetype>(16, n - at);
        QString hex;
        QString ascii;
        for (qsizetype i = 0; i < 16; ++i) {
            if (i < len) {
                const uchar c = uchar(bytes.at(at + i));
                hex += QStringLiteral("%1 ").arg(c, 2, 16, QLatin1Char('0'));
                ascii += c >= 0x20 && c < 0x7f ? QLatin1Char(char(c)) : QLatin1Char('.');
            } else {
                hex += QStringLiteral("   ");
            }
            if (i == 7)
                hex += QLatin1Char(' ');
        }
        out += QStringLiteral("%1  %2 |%3|\n").arg(at, 8, 16, QLatin1Char('0')).arg(hex, ascii);
    }
    if (bytes.size() > n)
        out += QStringLiteral("… %1 more bytes\n").arg(bytes.size() - n);
    return out;
}

} // namespace gatehouse
