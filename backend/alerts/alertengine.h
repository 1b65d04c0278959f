// SPDX-License-Identifier: MIT
#pragma once

#include <alerts/alertrule.h>
#include <monitor/snapshot.h>

#include <QHash>
#include <QJsonObject>
#include <QMetaType>
#include <QObject>

namespace gatehouse {

// One firing or resolution of an alert rule on one object (a key, or a
// node's address).
struct AlertEvent
{
    // Vanished: the object went away while firing (deleted, expired, lost
    // in a restart or a failover): the condition can neither hold nor clear,
    // which is not a resolution.
    enum class State { Fired, Resolved, Vanished };
    State state = State::Fired;
    AlertRule rule;
    QString section;     // "limiter", "node"
    QByteArray key;      // the object's key; a node's address
    QString name;        // as the console names it ("Sidekiq", a limiter's key); empty: the key
    QString figureTitle; // the object's own title of rule.figure; empty: the rule's
    double value = 0;
    // The figure is only known to be at least value (a lock held since
    // before the console first saw it): said "at least" wherever shown.
    bool lowerBound = false;
    qint64 atMs = 0;      // server time of the reading that changed it
    qint64 sinceMs = 0;   // server time the condition started holding
    qint64 firedAtMs = 0; // Resolved: when it fired
    // "FIRING limiter sim:rl:api:0: Occupancy 100 % >= 80 % for 5 s (rule …)",
    // the figure by its title
    QString sentence() const;
    QString stateId() const; // "firing" | "resolved" | "vanished"
    // The value as read: "35 s"; "at least 35 s" for a lower bound.
    QString valueText() const;
    QJsonObject toJson() const;
};

// Evaluates alert rules on every published snapshot (connect
// Monitor::tickFinished to evaluate). A rule fires once per object when its
// condition has held for the rule's duration on every fresh reading, and
// resolves on the first fresh reading where it does not hold; a stale
// reading (the server not answering) or an unknown value changes nothing.
// Lives on the thread that calls evaluate(); the monitor's snapshot is read,
// never kept.
class AlertEngine : public QObject
{
    Q_OBJECT
public:
    explicit AlertEngine(QObject *parent = nullptr);

    // Replaces the rules; firings of rules that are gone or changed resolve
    // silently (no transition: their condition no longer exists as written).
    void setRules(const QList<AlertRule> &rules);
    const QList<AlertRule> &rules() const { return m_rules; }

    // The firings now, oldest first.
    QList<AlertEvent> firing() const;
    int firingCount() const { return m_firingCount; }
    // Whether any rule fired since this engine was made (watch --fail-on-alert).
    bool everFired() const { return m_everFired; }

public Q_SLOTS:
    void evaluate(const gatehouse::Snapshot &snapshot);

Q_SIGNALS:
    // Every firing and resolution, in order. Also the seam for the history
    // store: recordEvent(event.atMs, event.key, "alert." + stateId(), sentence()).
    void transition(const gatehouse::AlertEvent &event);
    void firingCountChanged(int count);

private:
    struct Track
    {
        qint64 sinceMs = -1; // the condition holds since (server ms); -1: it does not
        bool firing = false;
        AlertEvent fired;  // while firing
        bool seen = false; // in this snapshot
    };
    // Who an event is about, as the console shows it.
    struct Subject
    {
        QString section;
        QByteArray key;
        const PatternObject *object = nullptr; // named only when it fires; none: a node
        QString figureTitle;
    };
    // A figure's value, or a lower bound of it that decides the rule.
    struct Value
    {
        double value = 0;
        bool lowerBound = false;
    };
    void observe(int rule, const Subject &subject, std::optional<Value> value, qint64 nowMs);
    void resolve(Track &t, qint64 nowMs, Value value);
    void vanish(Track &t, qint64 nowMs);
    void setFiringCount(int count);

    QList<AlertRule> m_rules;
    // Per rule: its figure per pattern kind (nullopt: the pattern has none).
    QList<QHash<PatternKind, std::optional<AlertFigure>>> m_figures;
    QList<QHash<QByteArray, Track>> m_tracks; // per rule, by key
    int m_firingCount = 0;
    bool m_everFired = false;
    quint64 m_sequence = 0;
};

} // namespace gatehouse

Q_DECLARE_METATYPE(gatehouse::AlertEvent)
