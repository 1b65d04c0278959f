// SPDX-License-Identifier: MIT
#include "attention.h"

#include <patterns/patternunit.h>

#include <algorithm>

namespace gatehouse {

QList<AttentionItem> rankAttention(const ObjectList &objects, qint64 nowMs, int maxItems)
{
    struct Candidate
    {
        Attention attention;
        const ObjectState *state;
    };
    QList<Candidate> candidates;
    for (const ObjectState &o : objects) {
        const PatternUnit &unit = PatternUnit::of(o.object.kind);
        if (std::optional<Attention> a = unit.attention(o, nowMs))
            candidates.append({std::move(*a), &o});
    }
    // Only the items shown are sorted: a busy server has hundreds of candidates.
    const qsizetype n = std::min<qsizetype>(std::max(0, maxItems), candidates.size());
    std::partial_sort(candidates.begin(), candidates.begin() + n, candidates.end(),
                      [](const Candidate &a, const Candidate &b) {
                          if (a.attention.score != b.attention.score)
                              return a.attention.score > b.attention.score;
                          return a.state->object.key < b.state->object.key;
                      });
    QList<AttentionItem> items;
    items.reserve(n);
    for (qsizetype i = 0; i < n; ++i) {
        const Candidate &c = candidates.at(i);
        AttentionItem item;
        item.score = c.attention.score;
        item.text = c.attention.text;
        item.section = PatternUnit::of(c.state->object.kind).section().id;
        item.key = c.state->object.key;
        item.figure = c.attention.figure;
        items.append(std::move(item));
    }
    return items;
}

} // namespace gatehouse
