// SPDX-License-Identifier: MIT
#include "patternunit.h"

#include "globmatch.h"
#include "patternregistry.h"

#include "article.h"
#include <QHash>
#include <QSet>

#include <algorithm>
#include <cmath>

namespace gatehouse {

qint64 PatternUnit::validUntilMs(const PatternObject &, const Reading &from) const
{
    return from.atMs;
}

bool PatternUnit::parseRule(RuleReader &, const QJsonObject &, ProfileRule &) const
{
    return true;
}

void PatternUnit::writeRule(const ProfileRule &, QJsonObject &) const {}

PatternObject PatternUnit::baseObject(const ProfileRule &rule, const QByteArray &key)
{
    PatternObject o;
    o.kind = rule.kind;
    o.key = key;
    o.params = rule.params;
    return o;
}

std::optional<PatternObject> PatternUnit::objectFor(const ProfileRule &rule,
                                                    const QByteArray &key) const
{
    if (!globMatch(rule.match, key) || rule.excludes(key))
        return std::nullopt;
    return baseObject(rule, key);
}

PatternObject PatternUnit::conventionalObject(const QByteArray &key) const
{
    PatternObject o;
    o.kind = kind();
    o.key = key;
    return o;
}

PatternTrack::~PatternTrack() = default;

void PatternUnit::track(TrackState &, const Reading &, qint64) const {}

bool PatternUnit::merge(PatternObject &, const PatternObject &) const
{
    return false;
}

QList<PatternUnit::Command> PatternUnit::followUp(const PatternObject &, const QList<RedisValue> &,
                                                  const ProbeContext &) const
{
    return {};
}

std::optional<PatternObject> PatternUnit::afterRead(const PatternObject &, const PatternObject &,
                                                    const QList<RedisValue> &) const
{
    return std::nullopt;
}

bool PatternUnit::isCompletion(const PatternObject &, const QByteArray &, const QByteArray &) const
{
    return false;
}

QList<QStringList> PatternUnit::items(const ObjectState &, qint64) const
{
    return {};
}

QHash<QString, QByteArray> PatternUnit::shownInputs(const ObjectState &) const
{
    return {};
}

QByteArray PatternUnit::holderToken(const ObjectState &) const
{
    return {};
}

QHash<QString, QByteArray> PatternUnit::itemInputs(const ObjectState &, int) const
{
    return {};
}

namespace {

// For kinds no unit registered (a profile written by a newer Gatehouse is
// refused at load; this only keeps lookups total): reads nothing.
class UnknownUnit final : public PatternUnit
{
public:
    PatternKind kind() const override { return {}; }
    Section section() const override { return {}; }
    QByteArray keyType() const override { return {}; }
    QList<Command> probe(const PatternObject &, const ProbeContext &) const override { return {}; }
    Reading read(const PatternObject &, const QList<RedisValue> &,
                 const ProbeContext &context) const override
    {
        Reading r;
        r.atMs = context.nowMs;
        r.status = Reading::Status::Error;
        r.message = QStringLiteral("No pattern of this kind is known.");
        return r;
    }
    QList<Figure> figures() const override { return {}; }
    QList<Column> columns() const override { return {}; }
    void writeJson(const ObjectState &, const Reading &, qint64, QJsonObject &) const override {}
};

} // namespace

const PatternUnit &PatternUnit::of(PatternKind kind)
{
    static const UnknownUnit s_unknown;
    const PatternUnit *unit = PatternRegistry::instance().find(kind);
    return unit ? *unit : s_unknown;
}

std::optional<Reading> PatternUnit::failure(const PatternObject &object,
                                            const QList<RedisValue> &replies,
                                            const QList<QByteArray> &replyKeys, qint64 nowMs)
{
    for (qsizetype i = 0; i < replies.size(); ++i) {
        const RedisValue &r = replies.at(i);
        if (!r.isError())
            continue;
        Reading reading;
        reading.atMs = nowMs;
        const QByteArray key = i < replyKeys.size() ? replyKeys.at(i) : object.key;
        if (r.errorCode() == "WRONGTYPE") {
            reading.status = Reading::Status::WrongType;
            reading.message = QStringLiteral("Key \"%1\" holds a different type than a %2 needs; "
                                             "check the profile's key pattern.")
                                  .arg(printableBytes(key), patternId(object.kind));
        } else {
            reading.status = Reading::Status::Error;
            reading.message = QStringLiteral("Reading \"%1\" failed: %2")
                                  .arg(printableBytes(key), r.errorMessage());
        }
        return reading;
    }
    if (replies.size() < replyKeys.size()) {
        Reading reading;
        reading.atMs = nowMs;
        reading.status = Reading::Status::Error;
        reading.message = QStringLiteral("Reading \"%1\" got %2 replies for %3 commands.")
                              .arg(printableBytes(object.key))
                              .arg(replies.size())
                              .arg(replyKeys.size());
        return reading;
    }
    return std::nullopt;
}

QByteArray PatternUnit::after(qint64 tMs, qint64 unitMs)
{
    if (unitMs <= 1)
        return '(' + QByteArray::number(tMs);
    return '(' + QByteArray::number(double(tMs) / double(unitMs), 'f', 3);
}

QList<qint64> PatternUnit::scoresMs(const RedisValue &withScores, qint64 unitMs)
{
    QList<qint64> out;
    const auto &e = withScores.elements();
    out.reserve(e.size() / 2);
    for (qsizetype i = 1; i < e.size(); i += 2)
        out.append(qint64(std::llround(e.at(i).bytes().toDouble() * double(unitMs))));
    return out;
}

std::optional<Attention> PatternUnit::attention(const ObjectState &, qint64) const
{
    return std::nullopt;
}

QString PatternUnit::displayName(const PatternObject &object) const
{
    return printableBytes(object.key);
}

bool PatternUnit::ownsKey(const PatternObject &object, const QByteArray &key) const
{
    // PatternObject::keys() without building the list: asked for every
    // family's sample keys against every object found.
    if (key.isEmpty())
        return false;
    return (object.key == key && !keyType().isEmpty()) || object.related.contains(key)
           || object.members.contains(key);
}

QString PatternUnit::attentionText(const ObjectState &state, qint64) const
{
    return QStringLiteral("%1 %2").arg(title(), displayName(state.object));
}

ProfileRule PatternUnit::suggestRule(const PatternObject &o) const
{
    ProfileRule rule;
    rule.kind = o.kind;
    rule.params.windowMs = o.params.windowMs;
    rule.params.scoreUnitMs = o.params.scoreUnitMs;
    rule.match = generaliseKey(o.parent.isEmpty() ? o.key : o.parent);
    return rule;
}

void PatternUnit::mergeSuggestedRule(ProfileRule &into, const ProfileRule &other) const
{
    // The widest window and any partner key seen in the group.
    into.params.windowMs = std::max(into.params.windowMs, other.params.windowMs);
    if (into.retryKey.isEmpty())
        into.retryKey = other.retryKey;
    if (into.claimsKey.isEmpty())
        into.claimsKey = other.claimsKey;
    if (into.deadKey.isEmpty())
        into.deadKey = other.deadKey;
}

QList<PatternObject>
PatternUnit::eachWonKey(ClaimPool &pool,
                        const std::function<void(PatternObject &, const KeyShape &)> &fill) const
{
    QList<PatternObject> out;
    for (const QByteArray &key : pool.won(kind())) {
        PatternObject o;
        o.kind = kind();
        o.key = key;
        o.source = QStringLiteral("autodetected");
        if (fill)
            fill(o, pool.find(key)->shape);
        pool.take(key);
        out.append(o);
    }
    return out;
}

QList<QByteArray> PatternUnit::wordsAgainst() const
{
    return library().isEmpty() ? ordinaryWords() : QList<QByteArray>();
}

QByteArray PatternUnit::familyOfObject(const PatternObject &o, const ClaimPool &pool)
{
    if (const ClaimPool::Entry *e = pool.find(o.parent.isEmpty() ? o.key : o.parent))
        return e->family;
    for (const QByteArray &k : o.keys()) {
        if (const ClaimPool::Entry *e = pool.find(k))
            return e->family;
    }
    return familyOf(o.key);
}

QList<Evidence> PatternUnit::structureEvidence(const PatternObject &o, const ClaimPool &pool) const
{
    if (const LibraryInfo lib = library(); !lib.isEmpty())
        return {{Evidence::Kind::Structure, 5,
                 QStringLiteral("%1's own layout: its key names with its types, grouped under "
                                "one base")
                     .arg(lib.name)}};
    // The strongest claim this pattern made on any of the instance's keys
    // (a queue's processing list says more than its queue list).
    QList<QByteArray> keys{o.key};
    keys << o.keys();
    std::optional<Evidence> best;
    for (const QByteArray &key : std::as_const(keys)) {
        const ClaimPool::Entry *e = pool.find(key);
        if (!e)
            continue;
        for (const auto &[k, claim] : e->claims) {
            if (k != kind())
                continue;
            const int weight = claim.strength >= 25 ? 4 : claim.strength >= 12 ? 3 : 2;
            if (!best || weight > best->weight)
                best
                    = Evidence{Evidence::Kind::Structure, weight,
                               QStringLiteral("%1 is a %2 shaped like %3's %4")
                                   .arg(printableBytes(key, 60), QString::fromLatin1(e->shape.type),
                                        withArticle(title()), claim.role)};
        }
    }
    return best ? QList<Evidence>{*best} : QList<Evidence>();
}

QList<Evidence> PatternUnit::familyEvidence(const PatternObject &o, const ClaimPool &pool) const
{
    if (!library().isEmpty() || !o.members.isEmpty())
        return {};
    const QByteArray family = familyOfObject(o, pool);
    const FamilyStats *f = pool.family(family);
    if (!f || f->keys < 2)
        return {};
    const qint64 alike = f->claimedBy.value(QByteArray(kind().name()));
    const QString name = printableBytes(family, 60);
    if (f->keys >= 4 && alike * 2 < f->keys)
        return {{Evidence::Kind::Family, -2,
                 QStringLiteral("only %1 of the %2 keys named %3 look like %4: data that "
                                "happens to fit")
                     .arg(alike)
                     .arg(f->keys)
                     .arg(name, withArticle(title()))}};
    if (f->keys >= 50 && matchWord(familyWords(family), wordsFor()).isEmpty())
        return {{Evidence::Kind::Family, -1,
                 QStringLiteral("one of %1 siblings named %2, none with a word of %3 in "
                                "its name: application data more likely")
                     .arg(f->keys)
                     .arg(name, withArticle(title()))}};
    return {{Evidence::Kind::Family, 0,
             QStringLiteral("%1 of the %2 keys named %3 look alike")
                 .arg(alike)
                 .arg(f->keys)
                 .arg(name)}};
}

QList<Evidence> PatternUnit::judge(const PatternObject &o, const ClaimPool &pool) const
{
    QList<Evidence> all = structureEvidence(o, pool);
    const QByteArray family = familyOfObject(o, pool);
    const QList<QByteArray> words = familyWords(family);
    if (const QByteArray w = matchWord(words, wordsFor()); !w.isEmpty())
        all.append({Evidence::Kind::Name, 2,
                    QStringLiteral("\"%1\" in its name argues for %2")
                        .arg(QString::fromLatin1(w), withArticle(title()))});
    if (const QByteArray w = matchWord(words, wordsAgainst()); !w.isEmpty())
        all.append({Evidence::Kind::Name, -3,
                    QStringLiteral("\"%1\" in its name says ordinary application data")
                        .arg(QString::fromLatin1(w))});
    if (library().isEmpty() && familyHasDate(family))
        all.append({Evidence::Kind::Name, -3,
                    QStringLiteral("a date in its name (%1): a per-day key")
                        .arg(printableBytes(family, 60))});
    all.append(familyEvidence(o, pool));
    // The sentences are mostly the same for every member of a family (20,000
    // locks named lock:order:<n>, holding tokens of one length and set with
    // one TTL, to the tenth of a second it is written in): one shared copy
    // of each sentence, and of each whole list, not one per object for as
    // long as the objects are shown. Bounded: the sentences and lists of a
    // discovery's families, forgotten past SharedSentences.
    constexpr qsizetype SharedSentences = 4096;
    thread_local QSet<QString> sentences;
    thread_local QHash<size_t, QList<Evidence>> lists; // by the hash of their contents
    size_t hash = 0;
    for (Evidence &e : all) {
        if (const auto it = sentences.constFind(e.reason); it != sentences.cend()) {
            e.reason = *it;
        } else {
            if (sentences.size() >= SharedSentences)
                sentences.clear();
            sentences.insert(e.reason);
        }
        hash = qHashMulti(hash, int(e.kind), e.weight, e.reason);
    }
    const auto same = [](const QList<Evidence> &a, const QList<Evidence> &b) {
        return std::equal(
            a.cbegin(), a.cend(), b.cbegin(), b.cend(), [](const Evidence &x, const Evidence &y) {
                return x.kind == y.kind && x.weight == y.weight && x.reason == y.reason;
            });
    };
    if (const auto it = lists.constFind(hash); it != lists.cend() && same(*it, all))
        return *it;
    all.squeeze(); // kept per object: no room for more
    if (lists.size() >= SharedSentences)
        lists.clear();
    lists.insert(hash, all); // a collision: the newer list is shared from now on
    return all;
}

QList<Chart> PatternUnit::charts() const
{
    Chart counts{QStringLiteral("Over time"), QString(), {}};
    Chart durations{QStringLiteral("Ages and countdowns"), QStringLiteral("s"), {}};
    for (const Figure &f : figures()) {
        if (f.isDuration)
            durations.series.append({f.id, f.title + QStringLiteral(" (s)"), 0.001});
        else
            counts.series.append({f.id, f.title, 1.0});
    }
    QList<Chart> all;
    for (const Chart &c : {counts, durations}) {
        if (!c.series.isEmpty())
            all.append(c);
    }
    return all;
}

QList<AlertFigure> PatternUnit::alertFigures() const
{
    QList<AlertFigure> out;
    for (const Figure &f : figures()) {
        const auto value = f.value;
        out.append({f.id, f.title,
                    f.isDuration ? AlertFigure::Unit::Duration : AlertFigure::Unit::Count,
                    [value](const ObjectState &s, qint64 nowMs) -> std::optional<double> {
                        const double v = value(s.reading, nowMs);
                        return qIsNaN(v) ? std::nullopt : std::optional<double>(v);
                    }});
    }
    return out;
}

AlertFigure AlertFigure::heldFor(std::function<bool(const ObjectState &)> held)
{
    AlertFigure f{QStringLiteral("heldForMs"),
                  QStringLiteral("Held for"),
                  Unit::Duration,
                  [](const ObjectState &s, qint64 nowMs) -> std::optional<double> {
                      if (s.heldSinceMs < 0 || s.gone)
                          return std::nullopt; // not held, or since when unknown
                      return double(std::max<qint64>(0, saturatingSub(nowMs, s.heldSinceMs)));
                  },
                  {}};
    f.atLeast = [held](const ObjectState &s, qint64 nowMs) -> std::optional<double> {
        if (s.heldSinceMs >= 0 || s.gone || !held(s))
            return std::nullopt;
        return double(std::max<qint64>(0, saturatingSub(nowMs, s.firstSeenMs)));
    };
    return f;
}

} // namespace gatehouse
