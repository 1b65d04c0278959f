// SPDX-License-Identifier: MIT
#pragma once

#include "patternunit.h"

namespace gatehouse {

// What the limiter patterns (sliding and resource/consumer windows, fixed
// windows, Redisson) share: the "limiter" section's columns, figures and JSON
// fields, and the reset action each builds its own way.
class LimiterUnit : public PatternUnit
{
public:
    Section section() const override;
    QList<Figure> figures() const override;
    QList<AlertFigure> alertFigures() const override;
    QList<Chart> charts() const override;
    QList<Column> columns() const override;
    void writeJson(const ObjectState &state, const Reading &r, qint64 nowMs,
                   QJsonObject &json) const override;
    QList<PatternAction> actions() const override;
    // Near its limit: occupancy >= 80 %.
    std::optional<Attention> attention(const ObjectState &state, qint64 nowMs) const override;
    QString attentionText(const ObjectState &state, qint64 nowMs) const override;
    // Autodetection: the words of rate limiters' names.
    QList<QByteArray> wordsFor() const override;
    // The words of a limiter's name (ratelimit, throttle, quota, ...): also
    // what keeps another pattern's weaker reading off a limiter's counter.
    static const QList<QByteArray> &nameWords();

    // The reset as this pattern does it (limiter reset, in the CLI and the
    // console). A call with a refusal that cannot be forced when the pattern
    // is read-only in Gatehouse (Redisson).
    virtual ScriptCall reset(const PatternObject &limiter) const = 0;
};

// What limiter_reset.lua's reply (keys deleted) means, for limiter key.
ReplyMeaning limiterKeysDeleted(const QByteArray &key, const RedisValue &reply);

// The reset of any limiter, as its own pattern does it (PatternUnit::of(kind)).
ScriptCall limiterReset(const PatternObject &limiter);

} // namespace gatehouse
