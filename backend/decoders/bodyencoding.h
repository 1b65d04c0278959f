// SPDX-License-Identifier: MIT
#pragma once

#include <QByteArray>
#include <QString>

namespace gatehouse {

// The layers a body is wrapped in before its format: base64 (kombu's
// body_encoding) and gzip or zlib (RQ compresses its pickles). Each says
// whether the input is that layer and, when it is, gives what is inside.
namespace BodyEncoding {

// Standard or URL-safe base64 (padding optional, line breaks allowed) of
// at least minChars characters; false when any other character is in it.
bool looksBase64(const QByteArray &text, int minChars = 16);
bool fromBase64(const QByteArray &text, QByteArray *out);

enum class Compression { None, Gzip, Zlib };
// By the stream's own header: gzip's magic, zlib's CMF/FLG check.
Compression compressionOf(const QByteArray &data);
// Inflates a gzip or zlib stream to at most maxBytes. False (why set) when
// the stream is broken; a stream that inflates past maxBytes gives its
// first maxBytes and *cut = true.
bool inflate(const QByteArray &data, qint64 maxBytes, QByteArray *out, bool *cut, QString *why);

} // namespace BodyEncoding

} // namespace gatehouse
