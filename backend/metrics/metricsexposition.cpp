// SPDX-License-Identifier: MIT
#include "metricsexposition.h"

#include <patterns/patternregistry.h>

#include <QHash>
#include <QLocale>
#include <QMap>
#include <QStringDecoder>

#include <algorithm>
#include <cmath>

namespace gatehouse {

namespace {

// The families of one exposition in the order they were first met, each
// with its HELP and TYPE once and its samples (a name must not repeat).
class Families
{
public:
    void add(const QByteArray &name, const QByteArray &help, const char *type,
             const QByteArray &labels, double value)
    {
        auto it = m_index.constFind(name);
        int i = 0;
        if (it == m_index.constEnd()) {
            i = int(m_families.size());
            m_index.insert(name, i);
            m_families.append({name, help, QByteArray(type), {}});
        } else {
            i = *it;
        }
        QByteArray &lines = m_families[i].lines;
        lines += name;
        if (!labels.isEmpty())
            lines += '{' + labels + '}';
        lines += ' ' + MetricsExposition::formatValue(value) + '\n';
    }

    QByteArray text() const
    {
        QByteArray out;
        for (const Family &f : m_families) {
            out += "# HELP " + f.name + ' ' + MetricsExposition::escapeHelp(f.help) + '\n';
            out += "# TYPE " + f.name + ' ' + f.type + '\n';
            out += f.lines;
        }
        return out;
    }

private:
    struct Family
    {
        QByteArray name;
        QByteArray help;
        QByteArray type;
        QByteArray lines;
    };
    QList<Family> m_families;
    QHash<QByteArray, int> m_index;
};

QByteArray label(const char *name, const QByteArray &value)
{
    return QByteArray(name) + "=\"" + MetricsExposition::escapeLabelValue(value) + '"';
}

// One sample of one object, before it is written individually or folded
// into its pattern's "<other>" series.
struct Sample
{
    QByteArray name;
    QByteArray help;
    QByteArray extraLabels; // after key and pattern ("state=\"wait\""), may be empty
    double value = 0;
};

// The samples of one object: its pattern's figures as of the snapshot's time,
// and what every pattern may carry (held for, counts by state, throughput,
// workers, the limit).
class ObjectSamples
{
public:
    explicit ObjectSamples(qint64 nowMs)
        : m_nowMs(nowMs)
    {}

    QList<Sample> of(const ObjectState &s)
    {
        QList<Sample> out;
        const Reading &r = s.reading;
        // A failed read (connection, NOPERM) or a key of the wrong type has
        // no figures: its fields are defaults, not zeros that happened.
        if (r.status == Reading::Status::Error || r.status == Reading::Status::WrongType)
            return out;
        const Kind &k = kindOf(s.object.kind);
        for (qsizetype i = 0; i < k.figures.size(); ++i) {
            const Figure &f = k.figures.at(i);
            const double v = f.value(r, m_nowMs);
            if (std::isnan(v) || (f.isDuration && v < 0))
                continue; // unknown (no limit, no entry in flight, no TTL)
            out.append({k.names.at(i), k.helps.at(i), QByteArray(), f.isDuration ? v / 1000.0 : v});
        }
        // Held for: exact from when Gatehouse saw the current holder take it,
        // a lower bound (since it was first seen) when it already held it then.
        if (s.heldSinceMs >= 0 || !r.token.isEmpty()) {
            const bool exact = s.heldSinceMs >= 0;
            const qint64 since = exact ? s.heldSinceMs : s.firstSeenMs;
            const double held = std::max<qint64>(0, saturatingSub(m_nowMs, since)) / 1000.0;
            out.append({k.prefix + "_held_seconds", k.heldHelp, QByteArray(), held});
            out.append({k.prefix + "_held_exact",
                        "1 when _held_seconds is exact, 0 when it is a lower bound.", QByteArray(),
                        exact ? 1.0 : 0.0});
        }
        if (r.limit)
            out.append({k.prefix + "_limit", k.limitHelp, QByteArray(), double(*r.limit)});
        for (const StateCount &c : r.counts) {
            out.append({k.prefix + "_state_count", k.stateHelp, label("state", c.state.toUtf8()),
                        double(c.count)});
        }
        if (s.throughputPerS >= 0) {
            out.append({k.prefix + "_throughput_per_second", k.throughputHelp, QByteArray(),
                        s.throughputPerS});
        }
        if (r.workers >= 0)
            out.append({k.prefix + "_workers", k.workersHelp, QByteArray(), double(r.workers)});
        if (r.workersAlive >= 0) {
            out.append(
                {k.prefix + "_workers_alive", k.aliveHelp, QByteArray(), double(r.workersAlive)});
        }
        return out;
    }

private:
    // What every object of a kind shares, made once per rendering.
    struct Kind
    {
        QList<Figure> figures;
        QList<QByteArray> names; // per figure
        QList<QByteArray> helps;
        QByteArray prefix; // "gatehouse_lock"
        QByteArray heldHelp, limitHelp, stateHelp, throughputHelp, workersHelp, aliveHelp;
    };

    const Kind &kindOf(PatternKind kind)
    {
        auto it = m_kinds.find(kind);
        if (it != m_kinds.end())
            return *it;
        const PatternUnit &unit = PatternUnit::of(kind);
        const Section section = unit.section();
        const QByteArray noun = section.singular.toUtf8();
        Kind k;
        k.figures = unit.figures();
        for (const Figure &f : std::as_const(k.figures)) {
            k.names.append(MetricsExposition::figureMetricName(section.id, f.id, f.isDuration));
            QString help = f.title + QStringLiteral(" of each ") + section.singular
                           + QStringLiteral(" (figure \"") + f.id + QLatin1Char('"');
            if (f.isDuration)
                help += QStringLiteral(", in seconds");
            k.helps.append((help + QStringLiteral(").")).toUtf8());
        }
        k.prefix = "gatehouse_" + MetricsExposition::snakeCase(section.id);
        k.heldHelp = "How long the current holder of each " + noun
                     + " has held it, in seconds; a lower bound when _held_exact is 0 (it was "
                       "already held when Gatehouse first looked).";
        k.limitHelp = "The limit of each " + noun + '.';
        k.stateHelp = "Jobs (or entries) of each " + noun
                      + " by the library's own state names (label state).";
        k.throughputHelp = "Items each " + noun + " finished per second (from keyspace events).";
        k.workersHelp = "Workers registered for each " + noun + '.';
        k.aliveHelp = "Workers of each " + noun + " whose heartbeat is fresh (of the page read).";
        return *m_kinds.insert(kind, k);
    }

    qint64 m_nowMs;
    QHash<PatternKind, Kind> m_kinds;
};

// The "<other>" series of one pattern: per metric and extra labels, the sum
// and the maximum over the objects beyond the cap.
struct Aggregate
{
    QByteArray help;
    double sum = 0;
    double max = -std::numeric_limits<double>::infinity();
};

QString objectState(const ObjectState &s)
{
    if (s.gone)
        return QStringLiteral("gone");
    if (s.stale)
        return QStringLiteral("stale");
    switch (s.reading.status) {
    case Reading::Status::Ok:
    case Reading::Status::Missing:
        return QStringLiteral("ok");
    case Reading::Status::WrongType:
        return QStringLiteral("wrong-type");
    case Reading::Status::Error:
        return QStringLiteral("error");
    }
    return QStringLiteral("ok");
}

double seconds(qint64 ms)
{
    return double(ms) / 1000.0;
}

} // namespace

QByteArray MetricsExposition::escapeLabelValue(const QByteArray &utf8)
{
    QByteArray out;
    out.reserve(utf8.size());
    for (char c : utf8) {
        switch (c) {
        case '\\':
            out += "\\\\";
            break;
        case '"':
            out += "\\\"";
            break;
        case '\n':
            out += "\\n";
            break;
        default:
            out += c;
        }
    }
    return out;
}

QByteArray MetricsExposition::escapeHelp(const QByteArray &utf8)
{
    QByteArray out;
    out.reserve(utf8.size());
    for (char c : utf8) {
        if (c == '\\')
            out += "\\\\";
        else if (c == '\n')
            out += "\\n";
        else
            out += c;
    }
    return out;
}

QByteArray MetricsExposition::keyLabel(const QByteArray &key)
{
    QStringDecoder decode(QStringDecoder::Utf8, QStringDecoder::Flag::Stateless);
    const QString text = decode(key);
    if (!decode.hasError() && !key.contains('\0'))
        return key;
    return "base64:" + key.toBase64();
}

QByteArray MetricsExposition::snakeCase(const QString &id)
{
    QByteArray out;
    for (qsizetype i = 0; i < id.size(); ++i) {
        const QChar c = id.at(i);
        const bool upper = c.isUpper() && c.unicode() < 0x80;
        if (upper && i > 0 && !out.endsWith('_')) {
            // "inFlight" -> "in_flight"; "TTLMs" -> "ttl_ms" (a run of capitals is one word)
            const bool prevUpper = id.at(i - 1).isUpper();
            const bool nextLower = i + 1 < id.size() && id.at(i + 1).isLower();
            if (!prevUpper || nextLower)
                out += '_';
        }
        if (c.unicode() < 0x80 && (c.isLetterOrNumber() || c == QLatin1Char('_')))
            out += char(c.toLower().unicode());
        else if (!out.endsWith('_'))
            out += '_';
    }
    if (!out.isEmpty() && out.at(0) >= '0' && out.at(0) <= '9')
        out.prepend('_');
    return out;
}

QByteArray MetricsExposition::figureMetricName(const QString &section, const QString &figure,
                                               bool isDuration)
{
    QByteArray name = snakeCase(figure);
    if (isDuration) {
        // Figures in ms are exposed in seconds, the base unit.
        if (name.endsWith("_ms"))
            name.chop(3);
        else if (name == "ms")
            name.clear();
        name += name.isEmpty() ? "seconds" : "_seconds";
    }
    return "gatehouse_" + snakeCase(section) + '_' + name;
}

QByteArray MetricsExposition::formatValue(double v)
{
    if (std::isnan(v))
        return "NaN";
    if (std::isinf(v))
        return v > 0 ? "+Inf" : "-Inf";
    if (std::abs(v) < 9007199254740992.0 && v == std::floor(v))
        return QByteArray::number(qint64(v));
    return QByteArray::number(v, 'g', QLocale::FloatingPointShortest);
}

QByteArray MetricsExposition::render(const Snapshot &s) const
{
    Families out;
    const qint64 now = s.server.timeMs;

    // The objects by pattern, in the registry's order.
    QMap<QString, QList<qsizetype>> byPattern;
    for (qsizetype i = 0; i < s.objects.size(); ++i)
        byPattern[patternId(s.objects.at(i).object.kind)].append(i);

    ObjectSamples samples(now);
    for (auto it = byPattern.begin(); it != byPattern.end(); ++it) {
        QList<qsizetype> &indices = it.value();
        const QByteArray pattern = it.key().toUtf8();
        const QString sectionId
            = PatternUnit::of(s.objects.at(indices.first()).object.kind).section().id;
        QHash<QString, qint64> states;
        for (qsizetype i : std::as_const(indices))
            ++states[objectState(s.objects.at(i))];
        for (auto st = states.cbegin(); st != states.cend(); ++st) {
            out.add("gatehouse_objects",
                    "Objects found, by pattern and state (ok, stale, gone, wrong-type, error).",
                    "gauge",
                    label("section", sectionId.toUtf8()) + ',' + label("pattern", pattern) + ','
                        + label("state", st.key().toUtf8()),
                    double(st.value()));
        }
        // The individually exposed ones: the lowest keys, so the set stays
        // the same from scrape to scrape while the objects do.
        indices.erase(std::remove_if(indices.begin(), indices.end(),
                                     [&](qsizetype i) { return s.objects.at(i).gone; }),
                      indices.end());
        const qsizetype cap = std::max(0, maxObjectsPerPattern);
        if (indices.size() > cap) {
            const auto byKey = [&](qsizetype a, qsizetype b) {
                return s.objects.at(a).object.key < s.objects.at(b).object.key;
            };
            std::nth_element(indices.begin(), indices.begin() + cap, indices.end(), byKey);
        }
        QMap<QPair<QByteArray, QByteArray>, Aggregate> other;
        for (qsizetype n = 0; n < indices.size(); ++n) {
            const ObjectState &o = s.objects.at(indices.at(n));
            const bool individual = n < cap;
            const QByteArray keyLabels
                = label("key", keyLabel(o.object.key)) + ',' + label("pattern", pattern);
            for (const Sample &sample : samples.of(o)) {
                if (individual) {
                    out.add(sample.name, sample.help, "gauge",
                            sample.extraLabels.isEmpty() ? keyLabels
                                                         : keyLabels + ',' + sample.extraLabels,
                            sample.value);
                    continue;
                }
                Aggregate &a = other[{sample.name, sample.extraLabels}];
                a.help = sample.help;
                a.sum += sample.value;
                a.max = std::max(a.max, sample.value);
            }
        }
        const qsizetype aggregated = std::max<qsizetype>(0, indices.size() - cap);
        out.add("gatehouse_objects_aggregated",
                "Objects of a pattern beyond the cap on label cardinality, exposed only in "
                "its key=\"<other>\" series (aggregate=\"sum\" and \"max\").",
                "gauge", label("pattern", pattern), double(aggregated));
        for (auto a = other.cbegin(); a != other.cend(); ++a) {
            QByteArray labels = label("key", OtherKey) + ',' + label("pattern", pattern);
            if (!a.key().second.isEmpty())
                labels += ',' + a.key().second;
            out.add(a.key().first, a->help, "gauge", labels + ",aggregate=\"sum\"", a->sum);
            out.add(a.key().first, a->help, "gauge", labels + ",aggregate=\"max\"", a->max);
        }
    }

    // The deployment: each node as read, and the monitor's own state.
    for (const NodeStatus &n : s.server.nodes) {
        const QByteArray node = label("node", n.address.toUtf8());
        out.add("gatehouse_node_up",
                "1 when Gatehouse's connection to the node is ready, 0 otherwise.", "gauge", node,
                n.connection.state == RedisConnection::State::Ready ? 1 : 0);
        out.add("gatehouse_node_info",
                "Always 1: the node's role (master, replica), version and the deployment's "
                "mode as labels.",
                "gauge",
                node + ',' + label("role", n.role.toUtf8()) + ','
                    + label("version", n.version.toUtf8()) + ','
                    + label("mode", s.server.mode.toUtf8()),
                1);
        const auto figure = [&](const char *name, const char *help, qint64 v, double scale = 1) {
            if (v >= 0)
                out.add(name, help, "gauge", node, double(v) * scale);
        };
        figure("gatehouse_node_used_memory_bytes", "The node's used_memory (INFO memory).",
               n.usedMemoryBytes);
        figure("gatehouse_node_connected_clients", "The node's connected_clients (INFO clients).",
               n.connectedClients);
        figure("gatehouse_node_ops_per_second",
               "The node's instantaneous_ops_per_sec (INFO stats).", n.opsPerSec);
        figure("gatehouse_node_replication_offset_bytes",
               "The node's replication offset (INFO replication).", n.replicationOffset);
        figure("gatehouse_node_reading_age_seconds",
               "Seconds since the last reply from the node arrived.", n.lastReadingAgeMs, 0.001);
        out.add("gatehouse_node_clock_offset_seconds",
                "The node's clock minus this machine's, in seconds.", "gauge", node,
                seconds(n.clockOffsetMs));
    }
    out.add("gatehouse_server_time_seconds",
            "The server's clock at the snapshot's reading (Unix time, seconds).", "gauge", {},
            seconds(s.server.timeMs));
    if (s.server.lastReadingAgeMs >= 0) {
        out.add("gatehouse_reading_age_seconds",
                "Seconds since the last reply to a probe arrived (the oldest over the nodes); "
                "grows while a server is stopped or unreachable.",
                "gauge", {}, seconds(s.server.lastReadingAgeMs));
    }
    out.add("gatehouse_events_live", "1 when keyspace events are live, 0 when polling.", "gauge",
            {}, s.server.eventsLive ? 1 : 0);
    out.add("gatehouse_refresh_interval_seconds", "The monitor's tick interval.", "gauge", {},
            seconds(s.server.intervalMs));
    out.add("gatehouse_discovery_running", "1 while a scan for instances runs.", "gauge", {},
            s.discovering ? 1 : 0);
    out.add("gatehouse_discovery_scanned_keys", "Keys the last scan went over.", "gauge", {},
            double(s.scanned));
    out.add("gatehouse_snapshot_sequence", "The sequence number of the snapshot served.", "gauge",
            {}, double(s.sequence));
    out.add("gatehouse_read_complete",
            "0 when keys exist that this Redis user may not list or read.", "gauge", {},
            s.server.complete ? 1 : 0);
    return out.text();
}

QByteArray MetricsExposition::renderConsole(const ConsoleFigures &f)
{
    Families out;
    if (f.lastTick.wallMs >= 0) {
        out.add("gatehouse_console_tick_duration_seconds",
                "Wall time of the monitor's last full refresh, first probe to last reply.", "gauge",
                {}, seconds(f.lastTick.wallMs));
        out.add("gatehouse_console_tick_commands", "Commands the last full refresh sent.", "gauge",
                {}, double(f.lastTick.commands));
        out.add("gatehouse_console_tick_round_trips", "Round trips of the last full refresh.",
                "gauge", {}, double(f.lastTick.roundTrips));
        out.add("gatehouse_console_tick_objects_read", "Objects the last full refresh read.",
                "gauge", {}, double(f.lastTick.objectsRead));
    }
    if (f.cpuSeconds >= 0)
        out.add("gatehouse_console_cpu_seconds_total",
                "CPU time (user and system) the console process has used.", "counter", {},
                f.cpuSeconds);
    if (f.residentBytes >= 0)
        out.add("gatehouse_console_resident_memory_bytes",
                "Resident memory of the console process.", "gauge", {}, double(f.residentBytes));
    if (f.snapshotAgeSeconds >= 0)
        out.add("gatehouse_console_snapshot_age_seconds",
                "Seconds since the snapshot served was published by the monitor.", "gauge", {},
                f.snapshotAgeSeconds);
    if (f.scrapes >= 0)
        out.add("gatehouse_console_scrapes_total", "GET /metrics answered, this one included.",
                "counter", {}, double(f.scrapes));
    return out.text();
}

} // namespace gatehouse
