// SPDX-License-Identifier: MIT
#pragma once

#include "payloadvalue.h"

#include <QStringList>

namespace gatehouse {

// What one structural decoder made of its input: the tree and the name it
// goes by in the chain ("pickle (protocol 4)"), plus the decoders it used
// inside strings ("PHP serialize" in a Laravel job's JSON). When it could
// not read the input, ok is false and why says where and what went wrong.
struct DecodeResult
{
    bool ok = false;
    PayloadValue value;
    QString name;
    QStringList inner;
    QString why;

    static DecodeResult failed(const QString &why)
    {
        DecodeResult r;
        r.why = why;
        return r;
    }
};

} // namespace gatehouse
