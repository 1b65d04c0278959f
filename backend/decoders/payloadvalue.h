// SPDX-License-Identifier: MIT
#pragma once

#include <QByteArray>
#include <QString>

#include <vector>

namespace gatehouse {

// A decoded payload as a tree every decoder builds and one renderer shows
// (renderPayloadValue): JSON's, msgpack's, pickle's, PHP's and protobuf's
// values in one shape. Plain data: a decoder that never executes anything
// can only make these.
struct PayloadValue
{
    enum class Kind {
        Null,
        Bool,
        Number, // text holds it as written (exact: an int of any size, a float)
        Text,   // text
        Bytes,  // bytes
        List,   // children; tag: "tuple", "set", "frozenset" or empty
        Map,    // children: key, value, key, value ...
        Object, // text: the class or callable, by name; children: its arguments,
                // then (tag "state") its state as a Map; never called
        Note,   // text: a word of the decoder's ("protobuf field 1 varint", "…")
    };

    Kind kind = Kind::Null;
    bool boolean = false;
    QString text;
    QByteArray bytes;
    QString tag;
    std::vector<PayloadValue> children;

    static PayloadValue null() { return {}; }
    static PayloadValue fromBool(bool b);
    static PayloadValue number(const QString &text);
    static PayloadValue string(const QString &text);
    static PayloadValue fromBytes(const QByteArray &bytes);
    static PayloadValue note(const QString &text);
    static PayloadValue list(const QString &tag = {});
    static PayloadValue map(const QString &tag = {});
    static PayloadValue object(const QString &name, const QString &tag = {});
};

struct DecodeLimits;

// The tree as indented text: JSON-like, one member a line, short scalar
// lists on one line; strings past limits.foldChars and lists or maps past
// limits.foldItems folded with what was left out; nesting past
// limits.maxDepth shown as "…"; the whole cut at limits.maxOutput
// characters (the last line says so).
QString renderPayloadValue(const PayloadValue &value, const DecodeLimits &limits);

} // namespace gatehouse
