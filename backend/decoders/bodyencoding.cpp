// SPDX-License-Identifier: MIT
#include "bodyencoding.h"

#include <zlib.h>

namespace gatehouse::BodyEncoding {

namespace {

QByteArray withoutBreaks(const QByteArray &text)
{
    QByteArray s = text;
    s.removeIf([](char c) { return c == '\n' || c == '\r' || c == ' ' || c == '\t'; });
    return s;
}

} // namespace

bool looksBase64(const QByteArray &text, int minChars)
{
    const QByteArray s = withoutBreaks(text);
    if (s.size() < minChars)
        return false;
    qsizetype padding = 0;
    for (qsizetype i = 0; i < s.size(); ++i) {
        const char c = s.at(i);
        if (c == '=') {
            ++padding;
            continue;
        }
        const bool alphabet = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z')
                              || (c >= '0' && c <= '9') || c == '+' || c == '/' || c == '-'
                              || c == '_';
        if (!alphabet || padding > 0) // nothing after the padding
            return false;
    }
    return padding <= 2 && (padding == 0 || s.size() % 4 == 0) && s.size() % 4 != 1;
}

bool fromBase64(const QByteArray &text, QByteArray *out)
{
    if (!looksBase64(text, 1))
        return false;
    const QByteArray s = withoutBreaks(text);
    const bool urlSafe = s.contains('-') || s.contains('_');
    const auto decoded = QByteArray::fromBase64Encoding(
        s, (urlSafe ? QByteArray::Base64UrlEncoding : QByteArray::Base64Encoding)
               | QByteArray::AbortOnBase64DecodingErrors);
    if (!decoded)
        return false;
    *out = decoded.decoded;
    return true;
}

Compression compressionOf(const QByteArray &data)
{
    if (data.size() < 3)
        return Compression::None;
    const uchar a = uchar(data.at(0));
    const uchar b = uchar(data.at(1));
    if (a == 0x1f && b == 0x8b && uchar(data.at(2)) == 8)
        return Compression::Gzip;
    // zlib: deflate with a window of at most 32 KiB, no preset dictionary,
    // and the header's check bits.
    if ((a & 0x0f) == 8 && (a >> 4) <= 7 && !(b & 0x20) && (a * 256 + b) % 31 == 0)
        return Compression::Zlib;
    return Compression::None;
}

bool inflate(const QByteArray &data, qint64 maxBytes, QByteArray *out, bool *cut, QString *why)
{
    *cut = false;
    out->clear();
    z_stream z{};
    // 15 + 32: a zlib or a gzip header, whichever is there.
    if (inflateInit2(&z, 15 + 32) != Z_OK) {
        *why = QStringLiteral("zlib could not start");
        return false;
    }
    z.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(data.constData()));
    z.avail_in = uInt(data.size());
    QByteArray chunk(16 * 1024, Qt::Uninitialized);
    int rc = Z_OK;
    while (rc == Z_OK) {
        z.next_out = reinterpret_cast<Bytef *>(chunk.data());
        z.avail_out = uInt(chunk.size());
        rc = ::inflate(&z, Z_NO_FLUSH);
        const qsizetype produced = chunk.size() - qsizetype(z.avail_out);
        if (rc != Z_OK && rc != Z_STREAM_END)
            break;
        const qint64 room = maxBytes - out->size();
        out->append(chunk.constData(), qsizetype(std::min<qint64>(produced, room)));
        if (produced > room || (out->size() >= maxBytes && rc == Z_OK)) {
            *cut = true;
            rc = Z_STREAM_END;
            break;
        }
        if (rc == Z_OK && produced == 0 && z.avail_in == 0) {
            rc = Z_BUF_ERROR; // input ended before the stream did
            break;
        }
    }
    const QString message = QString::fromLatin1(z.msg ? z.msg : "zlib error");
    inflateEnd(&z);
    if (rc == Z_STREAM_END)
        return true;
    *why = rc == Z_BUF_ERROR ? QStringLiteral("the compressed stream breaks off")
                             : QStringLiteral("the compressed stream is damaged (%1)").arg(message);
    return false;
}

} // namespace gatehouse::BodyEncoding
