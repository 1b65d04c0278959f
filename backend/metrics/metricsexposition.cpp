// SPDX-License-Identifier: MIT
#include "metricsexposition.h"

#include <monitor/nodehealth.h>
#include <patterns/patternregistry.h>

#include <QHash>
#include <QLocale>
#include <QMap>
#include <QStringDecoder>

#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <unordered_map>
#include <vector>

namespace gatehouse {

namespace {

// The families of one exposition in the order they were first met, each
// with its HELP and TYPE once and its samples (a name must not repeat).
class Families
{
public:
    // constant: labels every sample carries first (deployment="eu"); empty
    // for none.
    explicit Families(QByteArray constant = {})
        : m_constant(std::move(constant))
    {}

    // The family's place in the text, before its first sample.
    void declare(const QByteArray &name, const QByteArray &help, const char *type)
    {
        if (!m_index.contains(name)) {
            m_index.insert(name, int(m_families.size()));
            m_families.append({name, help, QByteArray(type), {}});
        }
    }

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
        if (!m_constant.isEmpty())
            lines += '{' + m_constant + (labels.isEmpty() ? QByteArray() : ',' + labels) + '}';
        else if (!labels.isEmpty())
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
    QByteArray m_constant;
    QList<Family> m_families;
    QHash<QByteArray, int> m_index;
};

QByteArray label(const char *name, const QByteArray &value)
{
    return QByteArray(name) + "=\"" + MetricsExposition::escapeLabelValue(value) + '"';
}

// One sample of one object, before it is written individually or folded
// into its pattern's "<other>" series. Name and help belong to the pattern's
// Kind (made once per rendering): a sample copies no string.
struct Sample
{
    int slot = 0; // which of the kind's series: aggregated per slot
    const QByteArray *name = nullptr;
    const QByteArray *help = nullptr;
    QByteArray extraLabels; // after key and pattern ("state=\"wait\""), may be empty
    double value = 0;
};

// What every object of a kind shares, made once per rendering.
struct Kind
{
    // Slots after the pattern's own figures (0 .. figures-1).
    enum Extra { Held, HeldExact, Limit, Throughput, Workers, Alive, StateCount, ExtraCount };
    const PatternUnit *unit = nullptr;
    QList<Figure> figures;
    QList<QByteArray> names; // per slot
    QList<QByteArray> helps;
    QList<QByteArray> types;        // per slot: "gauge", or "summary" for a quantile
    QList<QByteArray> figureLabels; // per figure: its quantile label, if any
    int slot(Extra e) const { return int(figures.size()) + int(e); }
    bool isSummary(int slot) const { return types.at(slot) == "summary"; }
};

// The samples of one object: its pattern's figures as of the snapshot's time,
// and what every pattern may carry (held for, counts by state, throughput,
// workers, the limit). Allocation-free per object but for state labels: a
// rendering walks every object, a scrape every second or so.
class ObjectSamples
{
public:
    explicit ObjectSamples(qint64 nowMs)
        : m_nowMs(nowMs)
    {}

    // The samples of s (of kind k, kindOf(s.object->kind)), valid until the
    // next call.
    const std::vector<Sample> &of(const ObjectState &s, const Kind &k)
    {
        m_out.clear();
        const Reading &r = s.reading;
        // A failed read (connection, NOPERM) or a key of the wrong type has
        // no figures: its fields are defaults, not zeros that happened.
        if (r.status == Reading::Status::Error || r.status == Reading::Status::WrongType)
            return m_out;
        // A stale reading (its node silent or lost) is not exported as if
        // current: its series stop, and Prometheus marks them stale;
        // gatehouse_objects{state="stale"} counts it.
        if (s.stale)
            return m_out;
        const auto add = [&](int slot, double value, QByteArray extra = {}) {
            m_out.push_back({slot, &k.names.at(slot), &k.helps.at(slot), std::move(extra), value});
        };
        for (qsizetype i = 0; i < k.figures.size(); ++i) {
            const Figure &f = k.figures.at(i);
            const double v = f.value(r, m_nowMs);
            if (std::isnan(v) || (f.isDuration && v < 0))
                continue; // unknown (no limit, no entry in flight, no TTL)
            add(int(i), f.isDuration ? v / 1000.0 : v, k.figureLabels.at(i));
        }
        // Held for: exact from when Gatehouse saw the current holder take it,
        // a lower bound (since it was first seen) when it already held it then.
        if (s.heldSinceMs >= 0 || !k.unit->holderToken(s).isEmpty()) {
            const bool exact = s.heldSinceMs >= 0;
            const qint64 since = exact ? s.heldSinceMs : s.firstSeenMs;
            add(k.slot(Kind::Held), std::max<qint64>(0, saturatingSub(m_nowMs, since)) / 1000.0);
            add(k.slot(Kind::HeldExact), exact ? 1.0 : 0.0);
        }
        if (r.limit)
            add(k.slot(Kind::Limit), double(*r.limit));
        for (const StateCount &c : r.library().counts)
            add(k.slot(Kind::StateCount), double(c.count), label("state", c.state.toUtf8()));
        if (s.throughputPerS >= 0)
            add(k.slot(Kind::Throughput), s.throughputPerS);
        if (r.library().workers >= 0)
            add(k.slot(Kind::Workers), double(r.library().workers));
        if (r.library().workersAlive >= 0)
            add(k.slot(Kind::Alive), double(r.library().workersAlive));
        return m_out;
    }

    const Kind &kindOf(PatternKind kind)
    {
        // Node-based: a Kind stays where it is while others are added
        // (samples point into it).
        auto it = m_kinds.find(kind);
        if (it != m_kinds.end())
            return *it->second;
        const PatternUnit &unit = PatternUnit::of(kind);
        const Section section = unit.section();
        const QByteArray noun = section.singular.toUtf8();
        auto k = std::make_unique<Kind>();
        k->unit = &unit;
        k->figures = unit.figures();
        for (const Figure &f : std::as_const(k->figures)) {
            if (!f.summary.isEmpty()) {
                // One summary per distribution, a sample per quantile.
                k->names.append(
                    MetricsExposition::figureMetricName(section.id, f.summary, f.isDuration));
                k->helps.append(
                    (f.title.section(QLatin1Char(' '), 0, 0) + QStringLiteral(" time of each ")
                     + section.singular
                     + QStringLiteral("'s jobs, by quantile, in seconds (figures \"") + f.summary
                     + QStringLiteral("\"); over the newest jobs finished in the last ")
                     + formatMs(JobTimes::WindowMs) + QStringLiteral(", or those running now)."))
                        .toUtf8());
                k->types.append("summary");
                k->figureLabels.append(label("quantile", QByteArray::number(f.quantile)));
                continue;
            }
            k->names.append(MetricsExposition::figureMetricName(section.id, f.id, f.isDuration));
            k->types.append(MetricsExposition::figureMetricType(k->names.last()));
            QString help = f.title + QStringLiteral(" of each ") + section.singular
                           + QStringLiteral(" (figure \"") + f.id + QLatin1Char('"');
            if (f.isDuration)
                help += QStringLiteral(", in seconds");
            k->helps.append((help + QStringLiteral(").")).toUtf8());
            k->figureLabels.append(QByteArray());
        }
        const QByteArray prefix = "gatehouse_" + MetricsExposition::snakeCase(section.id);
        const auto extra = [&](const char *suffix, const QByteArray &help) {
            k->names.append(prefix + suffix);
            k->helps.append(help);
            k->types.append("gauge");
        };
        // In the order of Kind::Extra.
        extra("_held_seconds",
              "How long the current holder of each " + noun
                  + " has held it, in seconds; a lower bound when _held_exact is 0 (it was "
                    "already held when Gatehouse first looked).");
        extra("_held_exact", "1 when _held_seconds is exact, 0 when it is a lower bound.");
        extra("_limit", "The limit of each " + noun + '.');
        extra("_throughput_per_second",
              "Items each " + noun + " finished per second (from keyspace events).");
        extra("_workers", "Workers registered for each " + noun + '.');
        extra("_workers_alive",
              "Workers of each " + noun + " whose heartbeat is fresh (of the page read).");
        extra("_in_state", "Jobs (or entries) of each " + noun
                               + " by the library's own state names (label state).");
        return *m_kinds.emplace(kind, std::move(k)).first->second;
    }

private:
    struct KindHash
    {
        size_t operator()(PatternKind kind) const { return qHash(kind); }
    };

    qint64 m_nowMs;
    std::unordered_map<PatternKind, std::unique_ptr<Kind>, KindHash> m_kinds;
    std::vector<Sample> m_out;
};

// The "<other>" series of one pattern: per metric and extra labels, the sum
// and the maximum over the objects beyond the cap.
struct Aggregate
{
    qint64 count = 0;
    double sum = 0;
    double max = -std::numeric_limits<double>::infinity();
};

// An object's state as gatehouse_objects labels it.
enum class ObjectStateLabel { Ok, Stale, Gone, WrongType, Error, Count };

ObjectStateLabel objectState(const ObjectState &s)
{
    if (s.gone)
        return ObjectStateLabel::Gone;
    if (s.stale)
        return ObjectStateLabel::Stale;
    switch (s.reading.status) {
    case Reading::Status::Ok:
    case Reading::Status::Missing:
        return ObjectStateLabel::Ok;
    case Reading::Status::WrongType:
        return ObjectStateLabel::WrongType;
    case Reading::Status::Error:
        return ObjectStateLabel::Error;
    }
    return ObjectStateLabel::Ok;
}

const char *stateLabel(ObjectStateLabel s)
{
    switch (s) {
    case ObjectStateLabel::Ok:
        return "ok";
    case ObjectStateLabel::Stale:
        return "stale";
    case ObjectStateLabel::Gone:
        return "gone";
    case ObjectStateLabel::WrongType:
        return "wrong-type";
    case ObjectStateLabel::Error:
    case ObjectStateLabel::Count:
        break;
    }
    return "error";
}

double seconds(qint64 ms)
{
    return double(ms) / 1000.0;
}

// What render() gathers over one pattern's objects: their states counted,
// and the samples of those beyond the cap folded per slot (and per state
// label for the counts).
struct PatternTally
{
    explicit PatternTally(const Kind &k)
        : perSlot(size_t(k.names.size()))
    {}

    std::array<qint64, size_t(ObjectStateLabel::Count)> states{};
    std::vector<Aggregate> perSlot;
    QMap<QByteArray, Aggregate> perState;

    void fold(const Kind &k, const std::vector<Sample> &samples)
    {
        for (const Sample &sample : samples) {
            // A quantile of many objects' jobs is none of theirs.
            if (k.isSummary(sample.slot))
                continue;
            Aggregate &a = sample.extraLabels.isEmpty() ? perSlot[size_t(sample.slot)]
                                                        : perState[sample.extraLabels];
            ++a.count;
            a.sum += sample.value;
            a.max = std::max(a.max, sample.value);
        }
    }
};

// An individually exposed object's samples, labelled with its key and pattern.
void addIndividual(Families &out, const Kind &k, const std::vector<Sample> &samples,
                   const QByteArray &keyLabels)
{
    for (const Sample &sample : samples) {
        out.add(*sample.name, *sample.help, k.types.at(sample.slot).constData(),
                sample.extraLabels.isEmpty() ? keyLabels : keyLabels + ',' + sample.extraLabels,
                sample.value);
    }
}

// A pattern's counts by state, how many objects went beyond the cap, and
// their key="<other>" series.
void addPatternTotals(Families &out, const QByteArray &objectsName, const QByteArray &objectsHelp,
                      const QByteArray &sectionId, const QByteArray &pattern, const Kind &k,
                      const PatternTally &tally, qsizetype aggregated)
{
    for (size_t st = 0; st < tally.states.size(); ++st) {
        if (tally.states[st] == 0)
            continue;
        out.add(objectsName, objectsHelp, "gauge",
                label("section", sectionId) + ',' + label("pattern", pattern) + ','
                    + label("state", stateLabel(ObjectStateLabel(st))),
                double(tally.states[st]));
    }
    out.add("gatehouse_objects_aggregated",
            "Objects of a pattern beyond the cap on label cardinality, exposed only in "
            "its key=\"<other>\" series (aggregate=\"sum\" and \"max\").",
            "gauge", label("pattern", pattern), double(aggregated));
    const QByteArray otherLabels
        = label("key", MetricsExposition::OtherKey) + ',' + label("pattern", pattern);
    const auto addOther = [&](int slot, const QByteArray &extra, const Aggregate &a) {
        if (a.count == 0)
            return;
        const QByteArray labels = extra.isEmpty() ? otherLabels : otherLabels + ',' + extra;
        const char *type = k.types.at(slot).constData();
        out.add(k.names.at(slot), k.helps.at(slot), type, labels + ",aggregate=\"sum\"", a.sum);
        out.add(k.names.at(slot), k.helps.at(slot), type, labels + ",aggregate=\"max\"", a.max);
    };
    for (size_t slot = 0; slot < tally.perSlot.size(); ++slot) {
        if (int(slot) != k.slot(Kind::StateCount))
            addOther(int(slot), {}, tally.perSlot[slot]);
    }
    for (auto a = tally.perState.cbegin(); a != tally.perState.cend(); ++a)
        addOther(k.slot(Kind::StateCount), a.key(), a.value());
}

// Each node as read.
void addNodes(Families &out, const ServerStatus &server)
{
    for (const NodeStatus &n : server.nodes) {
        const QByteArray node = label("node", n.address.toUtf8());
        out.add("gatehouse_node_up",
                "1 when the node answers (connection ready, a reply within three ticks) and its "
                "Cluster does not mark it failed, 0 otherwise.",
                "gauge", node, nodeUp(n, server.intervalMs) ? 1 : 0);
        out.add("gatehouse_node_info",
                "Always 1: the node's role (master, replica), version and the deployment's "
                "mode as labels.",
                "gauge",
                node + ',' + label("role", n.role.toUtf8()) + ','
                    + label("version", n.version.toUtf8()) + ','
                    + label("mode", server.mode.toUtf8()),
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
}

// The monitor's own state.
void addMonitor(Families &out, const Snapshot &s)
{
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
}

} // namespace

QByteArray MetricsExposition::escapeLabelValue(const QByteArray &utf8)
{
    // Most values need nothing escaped: share the bytes.
    if (std::none_of(utf8.cbegin(), utf8.cend(),
                     [](char c) { return c == '\\' || c == '"' || c == '\n'; }))
        return utf8;
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
    // Printable ASCII is UTF-8 as it is (most keys): no decoding.
    if (std::all_of(key.cbegin(), key.cend(), [](char c) { return c >= 0x20 && c < 0x7f; }))
        return key;
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
    QByteArray metric = "gatehouse_" + snakeCase(section) + '_' + name;
    // "_count" is a histogram's or a summary's: a gauge counting things is
    // named by them, in the plural.
    if (metric.endsWith("_count")) {
        metric.chop(6);
        metric += metric.endsWith('s') ? "" : "s";
    }
    return metric;
}

QByteArray MetricsExposition::figureMetricType(const QByteArray &metricName)
{
    return metricName.endsWith("_total") ? QByteArrayLiteral("counter")
                                         : QByteArrayLiteral("gauge");
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

// Which objects go where, made by make() and reused by render() while the
// snapshot's objects are the same keys in the same places (sized(), holds()).
struct MetricsExposition::Layout
{
    enum Place : qint8 { Gone, Individual, Other };
    struct Pattern
    {
        QByteArray id; // "sliding-window"
        PatternKind kind;
        QList<qsizetype> all; // its objects, gone ones too, in snapshot order
        qsizetype present = 0;
    };
    // What each place held when it was made: the object (shared by every
    // state of it, so the same one is the same pointer) and its goneness.
    // Not the states themselves: a layout kept for hours would keep every
    // state it was made from alive.
    struct Held
    {
        SharedObject object;
        bool gone = false;
    };
    std::vector<Held> held;
    int cap = -1;
    QList<Pattern> patterns;  // in the order of their ids
    std::vector<Place> place; // per object of the snapshot
    int made = 0;

    // Made for this many objects and this cap; each object then checked by
    // holds() as render() reads it (one read of each state, not two).
    bool sized(const ObjectList &now, int capNow) const
    {
        return cap == capNow && qsizetype(held.size()) == now.size();
    }
    bool holds(qsizetype i, const ObjectState &o) const
    {
        const Held &a = held[size_t(i)];
        if (a.gone != o.gone)
            return false;
        if (&a.object.get() == &o.object.get())
            return true; // the same object: its key and kind
        return a.object->kind == o.object->kind && a.object->key == o.object->key;
    }

    void make(const ObjectList &list, int capNow)
    {
        ++made;
        held.clear();
        held.reserve(size_t(list.size()));
        for (const ObjectState &o : list)
            held.push_back({o.object, o.gone});
        cap = capNow;
        patterns.clear();
        place.assign(size_t(list.size()), Gone);
        // The objects by pattern; objects come in runs of one kind.
        QHash<PatternKind, qsizetype> byKind;
        Pattern *run = nullptr;
        for (qsizetype i = 0; i < list.size(); ++i) {
            const PatternKind kind = list.at(i).object->kind;
            if (!run || !(run->kind == kind)) {
                auto it = byKind.constFind(kind);
                if (it == byKind.constEnd()) {
                    it = byKind.insert(kind, patterns.size());
                    patterns.append({kind.id().toUtf8(), kind, {}, 0});
                }
                run = &patterns[*it];
            }
            run->all.append(i);
        }
        std::sort(patterns.begin(), patterns.end(),
                  [](const Pattern &a, const Pattern &b) { return a.id < b.id; });
        // The individually exposed ones: the lowest keys, so the set stays
        // the same from scrape to scrape while the objects do.
        for (Pattern &p : patterns) {
            QList<qsizetype> present;
            present.reserve(p.all.size());
            for (qsizetype i : std::as_const(p.all)) {
                if (!list.at(i).gone)
                    present.append(i);
            }
            p.present = present.size();
            if (present.size() > cap) {
                std::nth_element(present.begin(), present.begin() + cap, present.end(),
                                 [&](qsizetype a, qsizetype b) {
                                     return list.at(a).object->key < list.at(b).object->key;
                                 });
            }
            for (qsizetype n = 0; n < present.size(); ++n)
                place[size_t(present.at(n))] = n < cap ? Individual : Other;
        }
    }
};

MetricsExposition::MetricsExposition()
    : m_layout(std::make_shared<Layout>())
{}

int MetricsExposition::layoutsMade() const
{
    return m_layout->made;
}

QByteArray MetricsExposition::deploymentLabels(const QString &deployment)
{
    return deployment.isEmpty() ? QByteArray() : label("deployment", deployment.toUtf8());
}

QByteArray MetricsExposition::render(const Snapshot &s) const
{
    Layout &layout = *m_layout;
    const int cap = std::max(0, maxObjectsPerPattern);
    if (!layout.sized(s.objects, cap))
        layout.make(s.objects, cap);
    const qint64 now = s.server.timeMs;
    // The objects' families, as the layout places them; false (out half
    // written) when an object is not the one the layout has in its place.
    const auto addObjects = [&](Families &out) {
        static const QByteArray objectsName = "gatehouse_objects";
        static const QByteArray objectsHelp
            = "Objects found, by pattern and state (ok, stale, gone, wrong-type, error).";
        out.declare(objectsName, objectsHelp, "gauge");
        ObjectSamples samples(now);
        for (const Layout::Pattern &p : std::as_const(layout.patterns)) {
            const QByteArray &pattern = p.id;
            const QByteArray sectionId = PatternUnit::of(p.kind).section().id.toUtf8();
            // One pass over the pattern's objects: their states counted, the
            // individual ones written, the rest folded per slot (and per state
            // label for the counts).
            const Kind &k = samples.kindOf(p.kind);
            PatternTally tally(k);
            for (qsizetype i : p.all) {
                const ObjectState &o = s.objects.at(i);
                if (!layout.holds(i, o))
                    return false;
                ++tally.states[size_t(objectState(o))];
                const Layout::Place where = layout.place[size_t(i)];
                if (where == Layout::Gone)
                    continue;
                const std::vector<Sample> &of = samples.of(o, k);
                if (where == Layout::Individual) {
                    const QByteArray keyLabels
                        = label("key", keyLabel(o.object->key)) + ',' + label("pattern", pattern);
                    addIndividual(out, k, of, keyLabels);
                    continue;
                }
                tally.fold(k, of);
            }
            addPatternTotals(out, objectsName, objectsHelp, sectionId, pattern, k, tally,
                             std::max<qsizetype>(0, p.present - cap));
        }
        return true;
    };
    Families out(deploymentLabels(deployment));
    if (!addObjects(out)) {
        // An object not where the layout has it: made again, written again.
        layout.make(s.objects, cap);
        out = Families(deploymentLabels(deployment));
        addObjects(out);
    }
    // The deployment: each node as read, and the monitor's own state.
    addNodes(out, s.server);
    addMonitor(out, s);
    return out.text();
}

QByteArray MetricsExposition::renderConsole(const ConsoleFigures &f, const QString &deployment)
{
    Families out(deploymentLabels(deployment));
    if (const TickCost &t = f.lastTick; t.wallMs >= 0) {
        out.add("gatehouse_console_tick_duration_seconds",
                "Wall time of the monitor's last full refresh, first probe to last reply.", "gauge",
                {}, t.wallUs >= 0 ? double(t.wallUs) / 1e6 : seconds(t.wallMs));
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

QByteArray MetricsExposition::merge(const QList<QByteArray> &texts)
{
    // Each text lists its families as HELP, TYPE, samples; a family met
    // again in a later text adds its samples under the first one's header.
    struct Family
    {
        QByteArray header;
        QByteArray samples;
    };
    QList<Family> families;
    QHash<QByteArray, qsizetype> index;
    for (const QByteArray &text : texts) {
        Family *current = nullptr;
        for (qsizetype at = 0; at < text.size();) {
            qsizetype end = text.indexOf('\n', at);
            end = end < 0 ? text.size() : end + 1;
            const QByteArray line = text.mid(at, end - at);
            at = end;
            if (line.startsWith("# HELP ")) {
                const qsizetype nameEnd = line.indexOf(' ', 7);
                const QByteArray name = line.mid(7, nameEnd < 0 ? -1 : nameEnd - 7);
                auto it = index.constFind(name);
                if (it == index.constEnd()) {
                    it = index.insert(name, families.size());
                    families.append({line, {}});
                }
                current = &families[*it];
                continue;
            }
            if (!current)
                continue;
            if (line.startsWith("# ")) {
                // The TYPE line of a family met first here.
                if (current->samples.isEmpty() && !current->header.contains("\n# TYPE "))
                    current->header += line;
                continue;
            }
            current->samples += line;
        }
    }
    QByteArray out;
    for (const Family &f : std::as_const(families))
        out += f.header + f.samples;
    return out;
}

} // namespace gatehouse
