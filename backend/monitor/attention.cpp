// SPDX-License-Identifier: MIT
#include "attention.h"

#include <patterns/countdownfigures.h>
#include <patterns/patternunit.h>
#include <patterns/presentation.h>

#include <algorithm>
#include <deque>

namespace gatehouse {

QList<AttentionItem> rankAttention(const ObjectList &objects, qint64 nowMs, int maxItems)
{
    struct Candidate
    {
        Attention attention;
        const ObjectState *state;
        qint64 atMs;   // the time it is told at: now, or its last reading's
        bool lastRead; // stale: told as last read, with no deadline drawn from it
    };
    QList<Candidate> candidates;
    // While the server does not answer nothing after an object's last reading
    // is known: it is judged and told as it was then (a copy, not stale), and
    // the line says so; nothing is projected past that reading.
    std::deque<ObjectState> asLastRead;
    // The unit of the last kind seen: objects come grouped by kind.
    PatternKind kind;
    const PatternUnit *unit = nullptr;
    for (const ObjectState &o : objects) {
        if (!unit || o.object->kind != kind) {
            kind = o.object->kind;
            unit = &PatternUnit::of(kind);
        }
        const ObjectState *told = &o;
        qint64 at = nowMs;
        // Stale whatever the clock says: offline, now is the last snapshot's
        // time, which may be the reading's own.
        const bool stale = o.stale && o.reading.atMs > 0;
        if (stale) {
            ObjectState &then = asLastRead.emplace_back(o);
            then.stale = false;
            told = &then;
            at = o.reading.atMs;
        }
        if (std::optional<Attention> a = unit->attention(*told, at))
            candidates.append({std::move(*a), told, at, stale});
        else if (told != &o)
            asLastRead.pop_back();
    }
    // Only the items shown are sorted: a busy server has hundreds of candidates.
    const qsizetype n = std::min<qsizetype>(std::max(0, maxItems), candidates.size());
    std::partial_sort(candidates.begin(), candidates.begin() + n, candidates.end(),
                      [](const Candidate &a, const Candidate &b) {
                          if (a.attention.score != b.attention.score)
                              return a.attention.score > b.attention.score;
                          return a.state->object->key < b.state->object->key;
                      });
    QList<AttentionItem> items;
    items.reserve(n);
    for (qsizetype i = 0; i < n; ++i) {
        const Candidate &c = candidates.at(i);
        AttentionItem item;
        item.score = c.attention.score;
        item.text = PatternUnit::of(c.state->object->kind).attentionText(*c.state, c.atMs);
        const bool lastRead = c.lastRead;
        if (lastRead)
            item.text += QStringLiteral(", as last read %1 ago (not known since)")
                             .arg(formatMs(std::max<qint64>(0, nowMs - c.atMs)));
        item.section = PatternUnit::of(c.state->object->kind).section().id;
        item.key = c.state->object->key;
        item.figure = c.attention.figure;
        const PatternKind kind = c.state->object->kind;
        // No countdown from a reading the server has not confirmed since.
        const QList<AlertFigure> figures
            = lastRead ? QList<AlertFigure>() : PatternUnit::of(kind).alertFigures();
        for (const AlertFigure &f : figures) {
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
