// SPDX-License-Identifier: MIT
#include "alertengine.h"

#include <monitor/nodehealth.h>
#include <patterns/globmatch.h>
#include <patterns/patternregistry.h>

#include <QDateTime>

#include <algorithm>
#include <cmath>
#include <utility>

namespace gatehouse {

namespace {

const QString s_node = QStringLiteral("node");

bool nodeDown(const NodeStatus &n, const ServerStatus &server)
{
    return !nodeUp(n, server.intervalMs);
}

std::optional<double> nodeValue(const QString &figure, const NodeStatus &n,
                                const ServerStatus &server)
{
    if (figure == QLatin1String("down"))
        return nodeDown(n, server) ? 1.0 : 0.0;
    if (nodeDown(n, server))
        return std::nullopt; // what it last said is stale
    if (figure == QLatin1String("readingAgeMs"))
        return n.lastReadingAgeMs >= 0 ? std::optional<double>(n.lastReadingAgeMs) : std::nullopt;
    if (figure == QLatin1String("replicaLagBytes")) {
        if (n.masterAddress.isEmpty() || n.replicationOffset < 0)
            return std::nullopt;
        for (const NodeStatus &m : server.nodes) {
            if (m.address == n.masterAddress && m.replicationOffset >= 0 && !nodeDown(m, server))
                return double(std::max<qint64>(0, m.replicationOffset - n.replicationOffset));
        }
    }
    return std::nullopt;
}

// The figure's value for the rule; where only a lower bound is known, that
// bound where it decides the rule, otherwise unknown.
std::optional<std::pair<double, bool>> figureValue(const AlertRule &rule, const AlertFigure &figure,
                                                   const ObjectState &o, qint64 nowMs)
{
    if (const std::optional<double> v = figure.value(o, nowMs))
        return std::pair{*v, false};
    if (!figure.atLeast)
        return std::nullopt;
    const std::optional<double> bound = figure.atLeast(o, nowMs);
    if (!bound || !rule.decidedByLowerBound(*bound))
        return std::nullopt;
    return std::pair{*bound, true};
}

} // namespace

QString AlertEvent::stateId() const
{
    switch (state) {
    case State::Fired:
        return QStringLiteral("firing");
    case State::Resolved:
        return QStringLiteral("resolved");
    case State::Vanished:
        return QStringLiteral("vanished");
    }
    return QString();
}

namespace {

// A value and the threshold it is compared with, each as an operator reads
// it, told apart when rounding would print them alike ("30 s > 30 s").
std::pair<QString, QString> valueAndThreshold(double value, double threshold,
                                              AlertFigure::Unit unit)
{
    QString v = AlertRule::formatValue(value, unit);
    QString t = AlertRule::formatValue(threshold, unit);
    if (v != t || value == threshold)
        return {v, t};
    if (unit == AlertFigure::Unit::Duration)
        return {QStringLiteral("%1 ms").arg(std::llround(value)),
                QStringLiteral("%1 ms").arg(std::llround(threshold))};
    if (unit == AlertFigure::Unit::Ratio)
        return {QString::number(value * 100, 'g', 8) + QStringLiteral(" %"),
                QString::number(threshold * 100, 'g', 8) + QStringLiteral(" %")};
    return {v, t};
}

} // namespace

QString AlertEvent::valueText() const
{
    const QString shown = AlertRule::formatValue(value, rule.unit());
    return lowerBound ? QStringLiteral("at least ") + shown : shown;
}

QString AlertEvent::sentence() const
{
    const AlertFigure::Unit unit = rule.unit();
    const auto [shown, threshold] = valueAndThreshold(this->value, rule.threshold, unit);
    const QString value = lowerBound ? QStringLiteral("at least ") + shown : shown;
    const QString object
        = section + QLatin1Char(' ') + (name.isEmpty() ? QString::fromUtf8(key) : name);
    const QString figure = figureTitle.isEmpty() ? rule.figureTitle() : figureTitle;
    const QString condition
        = AlertRule::comparisonText(rule.comparison) + QLatin1Char(' ') + threshold;
    if (state == State::Fired)
        return QStringLiteral("FIRING %1: %2 %3 %4%5 (rule \"%6\", %7)")
            .arg(object, figure, value, condition,
                 atMs > sinceMs ? QStringLiteral(" for ") + formatMs(atMs - sinceMs) : QString(),
                 rule.shownName(), AlertRule::severityId(rule.severity));
    if (state == State::Vanished)
        return QStringLiteral("VANISHED %1: the object is gone (deleted, expired, or lost in a "
                              "restart or failover) after %2 firing; %3 %4 %5 was its last "
                              "reading (rule \"%6\")")
            .arg(object, formatMs(atMs - firedAtMs), figure, value, condition, rule.shownName());
    return QStringLiteral("RESOLVED %1: %2 %3, no longer %4 after %5 firing (rule \"%6\")")
        .arg(object, figure, value, condition, formatMs(atMs - firedAtMs), rule.shownName());
}

QJsonObject AlertEvent::toJson() const
{
    return {{QStringLiteral("event"), QStringLiteral("alert")},
            {QStringLiteral("state"), stateId()},
            {QStringLiteral("rule"), rule.name},
            {QStringLiteral("severity"), AlertRule::severityId(rule.severity)},
            {QStringLiteral("section"), section},
            {QStringLiteral("key"), QString::fromUtf8(key)},
            {QStringLiteral("name"), name.isEmpty() ? QString::fromUtf8(key) : name},
            {QStringLiteral("figure"), rule.figure},
            {QStringLiteral("op"), AlertRule::comparisonText(rule.comparison)},
            {QStringLiteral("value"), value},
            {QStringLiteral("lowerBound"), lowerBound},
            {QStringLiteral("threshold"), rule.threshold},
            {QStringLiteral("atMs"), double(atMs)},
            {QStringLiteral("sinceMs"), double(sinceMs)},
            {QStringLiteral("firedAtMs"), double(state == State::Fired ? atMs : firedAtMs)},
            {QStringLiteral("text"), sentence()}};
}

AlertEngine::AlertEngine(QObject *parent)
    : QObject(parent)
{
    qRegisterMetaType<AlertEvent>();
}

void AlertEngine::setRules(const QList<AlertRule> &rules)
{
    QList<QHash<QByteArray, Track>> tracks;
    for (const AlertRule &rule : rules) {
        const qsizetype old = m_rules.indexOf(rule);
        tracks.append(old >= 0 ? m_tracks.at(old) : QHash<QByteArray, Track>());
    }
    m_rules = rules;
    m_tracks = tracks;
    m_figures = QList<QHash<PatternKind, std::optional<AlertFigure>>>(rules.size());
    int firing = 0;
    for (const auto &byKey : std::as_const(m_tracks)) {
        for (const Track &t : byKey)
            firing += t.firing ? 1 : 0;
    }
    setFiringCount(firing);
}

QList<AlertEvent> AlertEngine::firing() const
{
    QList<AlertEvent> out;
    for (const auto &byKey : m_tracks) {
        for (const Track &t : byKey) {
            if (t.firing)
                out.append(t.fired);
        }
    }
    std::sort(out.begin(), out.end(),
              [](const AlertEvent &a, const AlertEvent &b) { return a.atMs < b.atMs; });
    return out;
}

void AlertEngine::setFiringCount(int count)
{
    if (count == m_firingCount)
        return;
    m_firingCount = count;
    Q_EMIT firingCountChanged(count);
}

void AlertEngine::observe(int rule, const Subject &subject, std::optional<Value> value,
                          qint64 nowMs)
{
    Track &t = m_tracks[rule][subject.key];
    t.seen = true;
    if (!value)
        return; // unknown: neither fires nor resolves
    const AlertRule &r = m_rules.at(rule);
    if (r.holds(value->value)) {
        if (t.sinceMs < 0)
            t.sinceMs = nowMs;
        if (!t.firing && nowMs - t.sinceMs >= r.forMs) {
            t.firing = true;
            m_everFired = true;
            t.fired = AlertEvent{
                AlertEvent::State::Fired,
                r,
                subject.section,
                subject.key,
                subject.object ? PatternUnit::of(subject.object->kind).displayName(*subject.object)
                               : QString::fromUtf8(subject.key),
                subject.figureTitle,
                value->value,
                value->lowerBound,
                nowMs,
                t.sinceMs,
                nowMs};
            setFiringCount(m_firingCount + 1);
            Q_EMIT transition(t.fired);
        }
        return;
    }
    t.sinceMs = -1;
    if (t.firing)
        resolve(t, nowMs, *value);
}

void AlertEngine::resolve(Track &t, qint64 nowMs, Value value)
{
    t.firing = false;
    AlertEvent resolved = t.fired;
    resolved.state = AlertEvent::State::Resolved;
    resolved.value = value.value;
    resolved.lowerBound = value.lowerBound;
    resolved.atMs = nowMs;
    setFiringCount(m_firingCount - 1);
    Q_EMIT transition(resolved);
}

void AlertEngine::vanish(Track &t, qint64 nowMs)
{
    t.firing = false;
    AlertEvent vanished = t.fired;
    vanished.state = AlertEvent::State::Vanished;
    vanished.atMs = nowMs;
    setFiringCount(m_firingCount - 1);
    Q_EMIT transition(vanished);
}

void AlertEngine::evaluate(const Snapshot &s)
{
    if (m_rules.isEmpty() || s.sequence == m_sequence)
        return;
    m_sequence = s.sequence;
    for (auto &byKey : m_tracks) {
        for (Track &t : byKey)
            t.seen = false;
    }
    const bool connected = s.server.primary().connection.state == ConnectionState::Ready;
    const qint64 serverNow = s.server.timeMs;
    for (int i = 0; i < m_rules.size(); ++i) {
        const AlertRule &rule = m_rules.at(i);
        if (rule.targetsNodes()) {
            // Node health is what the console sees now, on the server's clock
            // as last known (a down node has no clock of its own to read).
            const qint64 now = QDateTime::currentMSecsSinceEpoch() + s.server.clockOffsetMs;
            for (const NodeStatus &n : s.server.nodes) {
                const QByteArray address = n.address.toUtf8();
                if (!rule.match.isEmpty() && !globMatch(rule.match, address))
                    continue;
                const std::optional<double> v = nodeValue(rule.figure, n, s.server);
                observe(i, {s_node, address, nullptr, {}},
                        v ? std::optional<Value>(Value{*v, false}) : std::nullopt, now);
            }
            continue;
        }
        auto &figures = m_figures[i];
        for (const ObjectState &o : s.objects) {
            if (!rule.targets(o.object->kind, o.object->key))
                continue;
            auto f = figures.find(o.object->kind);
            if (f == figures.end()) {
                std::optional<AlertFigure> found;
                for (const AlertFigure &af : PatternUnit::of(o.object->kind).alertFigures()) {
                    if (af.id == rule.figure)
                        found = af;
                }
                f = figures.insert(o.object->kind, found);
            }
            if (!f.value())
                continue;
            std::optional<Value> value;
            // A stale or failed reading is not news about the object.
            if (!o.stale && !(o.reading.status == Reading::Status::Error)
                && !(o.reading.status == Reading::Status::WrongType) && !o.gone) {
                if (const auto v = figureValue(rule, *f.value(), o, serverNow))
                    value = Value{v->first, v->second};
            }
            if (o.gone && !o.stale) {
                // Gone (expired, deleted, lost): it vanished, which is not
                // a resolution.
                Track &t = m_tracks[i][o.object->key];
                t.seen = true;
                t.sinceMs = -1;
                if (t.firing)
                    vanish(t, serverNow);
                continue;
            }
            observe(i,
                    {patternSection(o.object->kind), o.object->key, &*o.object, f.value()->title},
                    value, serverNow);
        }
        // Objects no longer listed (a rescan dropped them) vanish, when the
        // snapshot is fresh; otherwise they wait.
        if (!connected)
            continue;
        for (auto it = m_tracks[i].begin(); it != m_tracks[i].end();) {
            if (it->seen) {
                ++it;
                continue;
            }
            if (it->firing)
                vanish(*it, serverNow);
            it = m_tracks[i].erase(it);
        }
    }
}

} // namespace gatehouse
