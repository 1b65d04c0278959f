// SPDX-License-Identifier: MIT
#include "watchcommand.h"

#include "exitcodes.h"
#include "interrupt.h"

#include <monitor/connectiontimeline.h>
#include <patterns/patternregistry.h>
#include <patterns/presentation.h>

#include <QDateTime>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTextStream>

#include <cmath>

namespace gatehouse::cli {

WatchCommand::WatchCommand(const RedisEndpoint &endpoint, Monitor::Options options, bool json,
                           int count, QObject *parent)
    : Command(parent)
    , m_json(json)
    , m_count(count)
{
    m_options.endpoint = endpoint;
    m_options.monitor = std::move(options);
}

WatchCommand::~WatchCommand() = default;

void WatchCommand::setHistoryFile(const QString &path, const HistoryStore::Options &options)
{
    m_options.historyFile = path;
    m_options.historyOptions = options;
}

void WatchCommand::start()
{
    m_deployment = std::make_unique<Deployment>(m_options);
    Deployment *d = m_deployment.get();
    connect(d, &Deployment::failed, this, [this](const QString &why) { fail(why); });
    connect(d, &Deployment::connectionLost, this, &WatchCommand::onConnectionLost);
    connect(d, &Deployment::reconnected, this, &WatchCommand::onReconnected);
    connect(d, &Deployment::historyProblem, this, [](const QString &message) {
        QTextStream(stderr) << "gatehouse-cli: " << message << Qt::endl;
    });
    connect(d, &Deployment::tickFinished, this, &WatchCommand::printTick);
    // A line per tick even when the server does not answer.
    connect(d, &Deployment::tickOverdue, this, &WatchCommand::printTick);
    // watch --alerts: the deployment evaluates every tick before it is
    // printed here (and with --history writes each transition in the file).
    if (AlertEngine *alerts = d->alerts())
        connect(alerts, &AlertEngine::transition, this, &WatchCommand::printAlert);
    d->start();
}

void WatchCommand::printTick(const Snapshot &s)
{
    if (!m_deployment->isDiscovered() || isDone())
        return;
    if (m_lost)
        ++m_missed;
    printWorldEvents(s);
    if (m_options.alerts) { // the transitions have printed themselves (printAlert)
        if (m_count > 0 && ++m_printed >= m_count)
            done(endCode());
        return;
    }
    QTextStream out(stdout);
    if (m_json)
        out << QJsonDocument(s.toJson()).toJson(QJsonDocument::Compact) << '\n';
    else
        printWatchLine(s);
    out.flush();
    if (m_count > 0 && ++m_printed >= m_count)
        done(ExitOk);
}

void WatchCommand::setAlerts(const QList<AlertRule> &rules, bool failOnAlert)
{
    m_options.alerts = rules;
    m_failOnAlert = failOnAlert;
    // Interrupted: the run ends with its verdict, not the shell's 130.
    auto *interrupt = new Interrupt(this);
    connect(interrupt, &Interrupt::interrupted, this, [this] { done(endCode()); });
}

int WatchCommand::endCode() const
{
    const AlertEngine *alerts = m_deployment ? m_deployment->alerts() : nullptr;
    return m_failOnAlert && alerts && alerts->everFired() ? ExitAlertFired : ExitOk;
}

void WatchCommand::printAlert(const AlertEvent &e)
{
    QTextStream out(stdout);
    if (m_json)
        out << QJsonDocument(e.toJson()).toJson(QJsonDocument::Compact) << '\n';
    else
        out << QDateTime::fromMSecsSinceEpoch(e.atMs).toUTC().toString(Qt::ISODateWithMs) << ' '
            << e.sentence() << '\n';
    out.flush();
}

void WatchCommand::onConnectionLost(const QString &why)
{
    m_lost = true;
    m_missed = 0;
    const QDateTime now = QDateTime::currentDateTimeUtc();
    QTextStream out(stdout);
    if (m_json) {
        const QJsonObject event{{QStringLiteral("event"), QStringLiteral("connectionLost")},
                                {QStringLiteral("atMs"), double(now.toMSecsSinceEpoch())},
                                {QStringLiteral("message"), why}};
        out << QJsonDocument(event).toJson(QJsonDocument::Compact) << '\n';
    } else {
        out << now.toString(Qt::ISODateWithMs) << " connection lost: " << why;
        out << " Reconnecting.\n";
    }
    out.flush();
}

void WatchCommand::onReconnected(qint64 gapMs)
{
    m_lost = false;
    const QDateTime now = QDateTime::currentDateTimeUtc();
    QTextStream out(stdout);
    if (m_json) {
        const QJsonObject event{{QStringLiteral("event"), QStringLiteral("reconnected")},
                                {QStringLiteral("atMs"), double(now.toMSecsSinceEpoch())},
                                {QStringLiteral("gapMs"), double(gapMs)},
                                {QStringLiteral("ticksMissed"), m_missed}};
        out << QJsonDocument(event).toJson(QJsonDocument::Compact) << '\n';
    } else {
        out << now.toString(Qt::ISODateWithMs) << " reconnected after "
            << QString::number(double(gapMs) / 1000.0, 'f', 1) << " s; " << m_missed
            << " ticks missed\n";
    }
    out.flush();
}

void WatchCommand::printWorldEvents(const Snapshot &s)
{
    // A new world (ServerStatus::World: a master switch, a restart, a
    // flush): said once when it
    // is seen, and once when every object was read again.
    const ServerStatus::World &w = s.server.world;
    const bool began = w.generation != m_worldGeneration;
    const bool whole = w.reread && w.wholeAtMs >= 0 && (began || !m_worldWhole);
    m_worldGeneration = w.generation;
    m_worldWhole = w.wholeAtMs >= 0;
    QTextStream out(stdout);
    if (began) {
        if (m_json)
            out << QJsonDocument(QJsonObject{{QStringLiteral("event"),
                                              ConnectionTimeline::worldEvent(w.kind)},
                                             {QStringLiteral("atMs"), double(w.sinceMs)},
                                             {QStringLiteral("message"), w.reason}})
                       .toJson(QJsonDocument::Compact)
                << '\n';
        else
            out << QDateTime::fromMSecsSinceEpoch(w.sinceMs, Qt::UTC).toString(Qt::ISODateWithMs)
                << ' ' << w.reason << (w.reread ? " Every object is read again.\n" : "\n");
    }
    if (whole) {
        if (m_json)
            out << QJsonDocument(
                       QJsonObject{{QStringLiteral("event"), QStringLiteral("readingsWhole")},
                                   {QStringLiteral("atMs"), double(w.wholeAtMs)},
                                   {QStringLiteral("afterMs"), double(w.wholeAtMs - w.sinceMs)}})
                       .toJson(QJsonDocument::Compact)
                << '\n';
        else
            out << QDateTime::fromMSecsSinceEpoch(w.wholeAtMs, Qt::UTC).toString(Qt::ISODateWithMs)
                << " every object read again and the keyspace rescanned, "
                << (w.wholeAtMs - w.sinceMs) << " ms after the change\n";
    }
}

void WatchCommand::printWatchLine(const Snapshot &s)
{
    int full = 0, stale = 0;
    qint64 length = 0, inFlight = 0, stuck = 0;
    // The totals the patterns' figures declare (Figure::total), in the
    // registry's order; each summed over the objects of its patterns.
    struct Totals
    {
        QStringList names;
        QHash<PatternKind, QList<std::pair<qsizetype, Figure>>> figures; // name's index, figure
    };
    static const Totals declared = [] {
        Totals t;
        for (const PatternUnit *unit : PatternRegistry::instance().units()) {
            for (const Figure &f : unit->figures()) {
                if (f.total.isEmpty())
                    continue;
                if (!t.names.contains(f.total))
                    t.names.append(f.total);
                t.figures[unit->kind()].append({t.names.indexOf(f.total), f});
            }
        }
        return t;
    }();
    QList<qint64> totals(declared.names.size(), 0);
    qint64 staleSince = -1; // server ms of the oldest stale reading
    QHash<QString, int> perSection;
    for (const ObjectState &o : s.objects) {
        if (o.stale) {
            ++stale;
            if (staleSince < 0 || (o.staleSinceMs >= 0 && o.staleSinceMs < staleSince))
                staleSince = o.staleSinceMs;
        }
        if (!o.gone)
            ++perSection[PatternUnit::of(o.object->kind).section().jsonKey];
        full += o.reading.occupancy().value_or(0) >= 1.0 ? 1 : 0;
        for (const auto &[at, f] : declared.figures.value(o.object->kind)) {
            const double v = f.value(o.reading, s.server.timeMs);
            if (!std::isnan(v))
                totals[at] += qint64(v);
        }
        length += o.reading.queue().length;
        inFlight += o.reading.queue().inFlight;
        stuck += o.reading.queue().stuck;
    }
    // The reading's server time; while stale, the time of this line (server
    // clock estimated from the local one), so the lines do not repeat a time.
    const qint64 at = stale > 0 ? QDateTime::currentMSecsSinceEpoch() + s.server.clockOffsetMs
                                : s.server.timeMs;
    QTextStream line(stdout);
    line << QDateTime::fromMSecsSinceEpoch(at).toUTC().toString(Qt::ISODateWithMs);
    for (const Section &section : PatternRegistry::instance().sections())
        line << ' ' << section.jsonKey << '=' << perSection.value(section.jsonKey);
    line << " full=" << full;
    for (qsizetype i = 0; i < declared.names.size(); ++i)
        line << ' ' << declared.names.at(i) << '=' << totals.at(i);
    line << " queued=" << length << " inFlight=" << inFlight << " stuck=" << stuck
         << " events=" << (s.server.eventsLive ? "live" : "polling");
    if (!s.server.eventsLive && s.server.budgetPercent > 0)
        line << " budget=" << s.server.budgetPercent << "% read=" << s.server.objectsRead
             << " ageBound=" << formatMs(s.server.ageBoundMs);
    // One stream for the whole line: a second one on stdout would write
    // before this one's buffer, the marker landing on the line before.
    if (stale > 0) {
        line << " STALE objects=" << stale << " since="
             << QDateTime::fromMSecsSinceEpoch(staleSince)
                    .toUTC()
                    .toString(QStringLiteral("HH:mm:ss.zzz'Z'"))
             << " lastReadingAge=" << formatMs(s.server.lastReadingAgeMs);
    }
    // After a restart, a master switch or a flush, until every object was read
    // again: the counts are of what was read so far.
    const ServerStatus::World &w = s.server.world;
    if (w.reread && w.wholeAtMs < 0)
        line << " INCOMPLETE rereading=" << w.kind;
    line << '\n';
}

} // namespace gatehouse::cli
