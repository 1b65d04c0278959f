// SPDX-License-Identifier: MIT
#include "attention.h"

#include <patterns/countdownfigures.h>
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
    // The unit of the last kind seen: objects come grouped by kind.
    PatternKind kind;
    const PatternUnit *unit = nullptr;
    for (const ObjectState &o : objects) {
        if (!unit || o.object.kind != kind) {
            kind = o.object.kind;
            unit = &PatternUnit::of(kind);
        }
        if (std::optional<Attention> a = unit->attention(o, nowMs))
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
        item.text = PatternUnit::of(c.state->object.kind).attentionText(*c.state, nowMs);
        item.section = PatternUnit::of(c.state->object.kind).section().id;
        item.key = c.state->object.key;
        item.figure = c.attention.figure;
        const PatternKind kind = c.state->object.kind;
        for (const AlertFigure &f : PatternUnit::of(kind).alertFigures()) {
            if (!f.value || !CountdownFigures::contains(kind, f.id))
                continue;
            const std::optional<double> left = f.value(*c.state, nowMs);
            if (!left || *left < 0 || *left >= double(Reading::Forever))
                continue;
            const qint64 at = nowMs + qint64(*left);
            if (item.deadlineAtMs < 0 || at < item.deadlineAtMs)
                item.deadlineAtMs = at;
        }
        items.append(std::move(item));
    }
    return items;
}

} // namespace gatehouse
