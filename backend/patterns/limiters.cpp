// SPDX-License-Identifier: MIT
#include "limiters.h"

#include "sections.h"

namespace gatehouse {

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
             return double(r.countdownAt(r.retryHorizonMs, at));
         }},
    };
}

QList<Column> LimiterUnit::columns() const
{
    Column inWindow;
    inWindow.header = QStringLiteral("In window / limit");
    inWindow.text = [](const ObjectState &s, qint64) -> QString {
        return QStringLiteral("%1 / %2")
            .arg(s.reading.inWindow)
            .arg(s.reading.limit ? QString::number(*s.reading.limit) : QStringLiteral("?"));
    };
    inWindow.sort = [](const ObjectState &s, qint64) {
        return QVariant(double(s.reading.inWindow));
    };
    Column occupancy;
    occupancy.header = QStringLiteral("Occupancy");
    occupancy.text = [](const ObjectState &s, qint64) -> QString {
        const auto o = s.reading.occupancy();
        return o ? QStringLiteral("%1 %").arg(qRound(*o * 100)) : QStringLiteral("?");
    };
    occupancy.sort = [](const ObjectState &s, qint64) {
        return QVariant(s.reading.occupancy().value_or(-1));
    };
    Column horizon;
    horizon.header = QStringLiteral("Retry horizon");
    horizon.movesWithTime = true;
    horizon.text = [](const ObjectState &s, qint64 now) -> QString {
        return formatMs(s.reading.countdownAt(s.reading.retryHorizonMs, now));
    };
    horizon.sort = [](const ObjectState &s, qint64 now) {
        return QVariant(double(s.reading.countdownAt(s.reading.retryHorizonMs, now)));
    };
    return {Column::key(QStringLiteral("Key")),
            Column::pattern(),
            inWindow,
            occupancy,
            horizon,
            Column::status()};
}

void LimiterUnit::writeJson(const ObjectState &s, const Reading &r, qint64, QJsonObject &j) const
{
    j.insert(QStringLiteral("keys"), keysToJson(s.object.keys()));
    if (!s.object.parent.isEmpty())
        j.insert(QStringLiteral("parent"), keyToJson(s.object.parent));
    j.insert(QStringLiteral("inWindow"), double(r.inWindow));
    j.insert(QStringLiteral("limit"), r.limit ? QJsonValue(double(*r.limit)) : QJsonValue());
    const auto occupancy = r.occupancy();
    j.insert(QStringLiteral("occupancy"), occupancy ? QJsonValue(*occupancy) : QJsonValue());
    j.insert(QStringLiteral("windowMs"), double(r.windowMs));
    j.insert(QStringLiteral("retryHorizonMs"), double(r.retryHorizonMs));
    j.insert(QStringLiteral("retrySlots"), double(r.retrySlots));
    j.insert(QStringLiteral("oldestAgeMs"), double(r.oldestAgeMs));
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

} // namespace gatehouse
