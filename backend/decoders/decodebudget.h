// SPDX-License-Identifier: MIT
#pragma once

#include <QElapsedTimer>
#include <QtGlobal>

namespace gatehouse {

// The bounds every payload decoder keeps: input read, nesting, values made,
// bytes inflated, text written and time spent. Malformed or hostile input
// meets one of them and gets a sentence, never a crash or a hang.
struct DecodeLimits
{
    qint64 maxInput = 64 * 1024;      // bytes decoded; the rest is left (the job detail's cut)
    qint64 maxInflated = 1024 * 1024; // bytes a gzip/zlib body may expand to
    int maxDepth = 64;                // nesting of containers (and of decoders inside strings)
    qint64 maxNodes = 200000;         // values a decoder may make
    qint64 maxOutput = 256 * 1024;    // characters of the decoded text
    int maxMs = 200;                  // wall time for one payload (ms)
    int foldChars = 200;              // a longer string is shown to here, then folded
    int foldItems = 100;              // a longer list or map is shown to here, then folded
};

// What one payload's decoding has spent of its limits. Not thread-safe:
// one per decodePayload call.
class DecodeBudget
{
public:
    explicit DecodeBudget(const DecodeLimits &limits);

    const DecodeLimits &limits() const { return m_limits; }
    // Counts one value made; false once the values or the time are spent.
    bool spend();
    bool exhausted() const { return m_exhausted; }
    // Why spend() said no, as a sentence; empty while it has not.
    QString reason() const;

private:
    DecodeLimits m_limits;
    QElapsedTimer m_clock;
    qint64 m_nodes = 0;
    bool m_exhausted = false;
    bool m_late = false;
};

} // namespace gatehouse
