// SPDX-License-Identifier: MIT
#pragma once

#include "decodebudget.h"

#include <QByteArray>
#include <QJsonValue>
#include <QString>
#include <QStringList>

namespace gatehouse {

// What the library says about a payload, when it says anything: kombu's
// "content-type" ("application/json", "application/x-python-serialize",
// "application/x-msgpack") and "body_encoding" ("base64"); a pattern that
// knows its format (RQ's pickled data) says so the same way.
struct DecodeHints
{
    QString contentType;
    QString encoding;
};

// A payload as the console shows it: the decoders that read it, outermost
// first ({"base64", "JSON"}), and the text they made; or, when no decoder
// could, the reason, and the text is the payload as text (when it is
// UTF-8) or empty (show the hex). The bytes themselves stay with the caller.
struct DecodedPayload
{
    QStringList chain;
    QString text;
    QString note;            // what was cut or refused, as a sentence; empty when nothing
    bool structured = false; // a decoder read it (not only as text)
    QJsonValue json;         // structured: the tree as JSON (payloadJson); else undefined

    // "base64 → JSON"; "text" or "binary" when nothing structured read it.
    QString chainText() const;
};

// Tries the decoders in the order the evidence points to: the hints first,
// then the layers the bytes announce (gzip, zlib, base64), then each format
// by its first bytes (a pickle's PROTO, JSON's bracket, PHP's "a:"/"O:",
// msgpack's map or array), protobuf last. Reads at most limits.maxInput
// bytes; never throws, never runs anything the payload names.
DecodedPayload decodePayload(const QByteArray &bytes, const DecodeHints &hints = {},
                             const DecodeLimits &limits = {});

// The bytes as a hex dump: offset, 16 bytes, their printable ASCII; at most
// maxBytes of them (a last line says how many more there are).
QString hexDump(const QByteArray &bytes, qint64 maxBytes = 64 * 1024);

} // namespace gatehouse
