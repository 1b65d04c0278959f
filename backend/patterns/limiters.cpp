// SPDX-License-Identifier: MIT
#include "limiters.h"

#include "familyfold.h"
#include "limiterdata.h"
#include "sections.h"

namespace gatehouse {

namespace {

// A family row of limiters: the requests in window of its members add up.
[[maybe_unused]] const bool s_folds = registerFamilyFolds(
    QStringLiteral("limiter"), {{QStringLiteral("In window / limit"), FamilyFold::SumAndMax}});

} // namespace

Section LimiterUnit::section() const
{
    return sections::limiter();
}

QList<Figure> LimiterUnit::figures() const
{
    return {
        {QStringLiteral("inWindow"), QStringLiteral("In window"), false,
         [](const Reading &r, qint64) {
             return double(r.inWindow);
         }},
        {QStringLiteral("occupancy"), QStringLiteral("Occupancy"), false,
         [](const Reading &r, qint64) {
             return r.occupancy().value_or(qQNaN());
         }},
        {QStringLiteral("retryHorizonMs"), QStringLiteral("Retry horizon"), true,
         [](const Reading &r, qint64 at) {
             return double(r.countdownAt(LimiterData::of(r).retryHorizonMs, at));
         }},
    };
}

QList<AlertFigure> LimiterUnit::alertFigures() const
{
    // Occupancy is in window / limit: rules say "80 %", not "0.8".
    QList<AlertFigure> out = PatternUnit::alertFigures();
    for (AlertFigure &f : out) {
        if (f.id == QLatin1String("occupancy"))
            f.unit = AlertFigure::Unit::Ratio;
    }
    return out;
}

QList<Chart> LimiterUnit::charts() const
{
    Chart inWindow{QStringLiteral("In window"),
                   QStringLiteral("requests"),
                   {{QStringLiteral("inWindow"), QStringLiteral("in window")}}};
    inWindow.limitLine = true;
    Chart horizon{QStringLiteral("Retry horizon"),
                  QStringLiteral("s"),
                  {{QStringLiteral("retryHorizonMs"), QStringLiteral("horizon (s)"), 0.001}}};
    Chart strip{QStringLiteral("Window strip: requests in the window, retry slots after now"),
                QString(),
                {}};
    strip.kind = Chart::Kind::WindowStrip;
    return {inWindow, horizon, strip};
}

namespace {

// "none" when no caller waits (no retry slot, horizon passed): a "0 ms"
// horizon reads as a figure where there is nothing to wait for.
QString horizonText(const Reading &r, qint64 nowMs)
{
    const qint64 left = r.countdownAt(LimiterData::of(r).retryHorizonMs, nowMs);
    return left > 0 ? formatMs(left) : QStringLiteral("none");
}

Column retryHorizon()
{
    Column c
        = LimiterData::countdown(QStringLiteral("Retry horizon"), &LimiterData::retryHorizonMs);
    c.text = [](const ObjectState &s, qint64 nowMs) -> QString {
        return horizonText(s.reading, nowMs);
    };
    return c;
}

} // namespace

QList<Column> LimiterUnit::columns() const
{
    return {Column::key(QStringLiteral("Key")),
            Column::pattern(),
            Column::usedOfLimit(QStringLiteral("In window / limit")),
            Column::occupancy(),
            retryHorizon(),
            Column::status()};
}

void LimiterUnit::writeJson(const ObjectState &s, const Reading &r, qint64, QJsonObject &j) const
{
    j.insert(QStringLiteral("keys"), keysToJson(s.object->keys()));
    if (!s.object->parent.isEmpty())
        j.insert(QStringLiteral("parent"), keyToJson(s.object->parent));
    j.insert(QStringLiteral("inWindow"), double(r.inWindow));
    j.insert(QStringLiteral("limit"), r.limit ? QJsonValue(double(*r.limit)) : QJsonValue());
    const auto occupancy = r.occupancy();
    j.insert(QStringLiteral("occupancy"), occupancy ? QJsonValue(*occupancy) : QJsonValue());
    const LimiterData &d = LimiterData::of(r);
    j.insert(QStringLiteral("windowMs"), double(d.windowMs));
    j.insert(QStringLiteral("retryHorizonMs"), double(d.retryHorizonMs));
    j.insert(QStringLiteral("retrySlots"), double(d.retrySlots));
    j.insert(QStringLiteral("oldestAgeMs"), double(d.oldestAgeMs));
}

QList<PatternAction> LimiterUnit::actions() const
{
    PatternAction reset;
    reset.id = QStringLiteral("limiter.reset");
    reset.verb = QStringLiteral("reset");
    reset.label = QStringLiteral("Reset…");
    reset.objectName = QStringLiteral("resetLimiterButton");
    reset.usage = QStringLiteral("limiter reset KEY");
    reset.build = [this](const ActionRequest &r) {
        ScriptCall call = this->reset(r.object);
        const QByteArray key = call.keys.value(0);
        call.meaning = [key](const RedisValue &reply) {
            return limiterKeysDeleted(key, reply);
        };
        return call;
    };
    return {reset};
}

ReplyMeaning limiterKeysDeleted(const QByteArray &limiter, const RedisValue &reply)
{
    const QString key = printableBytes(limiter);
    const qint64 n = reply.toInteger();
    return n > 0
               ? ReplyMeaning{true, QStringLiteral("Deleted %1 key(s) of limiter \"%2\".")
                                        .arg(n)
                                        .arg(key)}
               : ReplyMeaning{
                   false, QStringLiteral("Limiter \"%1\" had no keys; nothing changed.").arg(key)};
}

ScriptCall limiterReset(const PatternObject &limiter)
{
    for (const PatternAction &a : PatternUnit::of(limiter.kind).actions()) {
        if (a.id == QLatin1String("limiter.reset")) {
            ActionRequest request;
            request.object = limiter;
            request.target = limiter.key;
            return a.build(request);
        }
    }
    return {};
}

std::optional<Attention> LimiterUnit::attention(const ObjectState &state, qint64) const
{
    const std::optional<double> occupancy = state.reading.occupancy();
    if (state.gone || !occupancy || *occupancy < 0.8)
        return std::nullopt;
    return Attention{*occupancy, QStringLiteral("inWindow")};
}

QString LimiterUnit::attentionText(const ObjectState &state, qint64 nowMs) const
{
    const Reading &r = state.reading;
    const QString text = QStringLiteral("Limiter %1 at %2 %")
                             .arg(printableBytes(state.object->key),
                                  formatPercent(r.occupancy().value_or(qQNaN())));
    const qint64 left = r.countdownAt(LimiterData::of(r).retryHorizonMs, nowMs);
    return left > 0 ? text + QStringLiteral(" (retry horizon %1)").arg(formatMs(left)) : text;
}

const QList<QByteArray> &LimiterUnit::nameWords()
{
    static const QList<QByteArray> words
        = {"ratelimit", "ratelimiter", "rl",     "limit",  "limiter",
           "throttle",  "quota",       "window", "bucket", "ratelimits"};
    return words;
}

QList<QByteArray> LimiterUnit::wordsFor() const
{
    return nameWords();
}

} // namespace gatehouse
