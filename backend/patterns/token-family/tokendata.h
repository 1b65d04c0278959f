// SPDX-License-Identifier: MIT
#pragma once

#include <patterns/objecthealth.h>
#include <patterns/presentation.h>
#include <patterns/reading.h>

namespace gatehouse {

// What a token family's reading holds (a family of string keys, or a hash
// of fields with their own TTLs): how many tokens live, how many never
// expire, the spread of their TTLs. Written and read by the token units,
// their panels and their JSON.
struct TokenData : PatternData
{
    qint64 count = 0;      // live tokens
    qint64 withoutTtl = 0; // tokens that never expire (a leak)
    qint64 minTtlMs = -1;
    qint64 maxTtlMs = -1;
    qint64 used = 0; // counted tokens with a use counter above zero
    // A hash of tokens: its fields (HLEN) and how many the reading sampled.
    qint64 fields = 0;
    qint64 sampledFields = 0;

    PatternData *clone() const override;
    // The TTLs count down.
    PatternData *projected(const Reading &from, qint64 nowMs) const override;

    // The figure "count" (live tokens), also the watch line's liveTokens.
    static Figure liveTokens();
    // The judgement of the token units (registerJudgement): the default
    // health, and tokens that never expire as orphaned.
    static ObjectHealth health(const ObjectState &state, qint64 nowMs);

    static const TokenData &of(const Reading &r) { return r.data<TokenData>(); }
    static TokenData &in(Reading &r) { return r.edit<TokenData>(); }
};

} // namespace gatehouse
