// SPDX-License-Identifier: MIT
#include "autodetector.h"

#include <alerts/builtinalerts.h>

#include <patterns/familyof.h>
#include <patterns/patternregistry.h>

#include <QMap>
#include <QSet>

namespace gatehouse {

QList<QList<QByteArray>> AutoDetector::shapeCommands(const QByteArray &key, const QByteArray &type)
{
    if (type == "zset")
        return {{"ZCARD", key},
                {"ZRANGE", key, "0", "0", "WITHSCORES"},
                {"ZRANGE", key, "-1", "-1", "WITHSCORES"}};
    if (type == "string")
        return {{"GETRANGE", key, "0", "63"}};
    if (type == "hash") {
        // The fields the patterns look for by name (PatternUnit::
        // shapeHashFields), then HRANDFIELD (Redis 6.2+) samples two, bounded
        // however large the hash: a Redisson lock's holder "<uuid>:<thread>"
        // is only found by its field's name. Older servers answer with an
        // error: no sample.
        QList<QByteArray> hmget{"HMGET", key};
        hmget += PatternRegistry::instance().shapeHashFields();
        QList<QList<QByteArray>> out;
        if (hmget.size() > 2)
            out.append(hmget);
        out.append({"HRANDFIELD", key, "2", "WITHVALUES"});
        return out;
    }
    if (type == "list")
        return {{"LLEN", key}};
    if (type == "set")
        return {{"SCARD", key}};
    if (type == "stream")
        // A stream's consumer groups (O(groups)) tell a queue from an event log.
        return {{"XLEN", key}, {"XINFO", "GROUPS", key}};
    return {};
}

namespace {

// XINFO GROUPS's reply: the first two groups' names into sampleFields (RESP2
// answers each group as field, value, ...; RESP3 as pairs).
void readGroupNames(KeyShape &s, const RedisValue &groups)
{
    for (const RedisValue &g : groups.elements()) {
        if (s.sampleFields.size() >= 2)
            break;
        const auto &f = g.elements();
        for (qsizetype i = 0; i < f.size(); ++i) {
            if (f.at(i).isArray() && f.at(i).size() == 2 && f.at(i).at(0).bytes() == "name") {
                s.sampleFields.append(f.at(i).at(1).bytes().left(128));
                break;
            }
            if (f.at(i).bytes() == "name" && i + 1 < f.size()) {
                s.sampleFields.append(f.at(i + 1).bytes().left(128));
                break;
            }
        }
    }
}

} // namespace

void AutoDetector::readShape(KeyShape &s, const QList<RedisValue> &r)
{
    if (s.type == "zset" && r.size() == 3) {
        s.size = r.at(0).toInteger();
        if (r.at(1).size() == 2)
            s.firstScore = r.at(1).at(1).bytes().toDouble();
        if (r.at(2).size() == 2)
            s.lastScore = r.at(2).at(1).bytes().toDouble();
    } else if (s.type == "string" && r.size() == 1) {
        s.head = r.at(0).bytes();
    } else if (s.type == "hash" && !r.isEmpty()) {
        const QList<QByteArray> &names = PatternRegistry::instance().shapeHashFields();
        const bool named = !names.isEmpty();
        if (r.size() != (named ? 2 : 1) || (named && r.at(0).size() != names.size()))
            return;
        if (named) {
            for (qsizetype i = 0; i < names.size(); ++i) {
                if (!r.at(0).at(i).isNil() && !r.at(0).at(i).isError())
                    s.hashFields.insert(names.at(i), r.at(0).at(i).bytes().left(64));
            }
        }
        // RESP2 answers field, value, ...; RESP3 pairs.
        for (const RedisValue &e : r.last().elements()) {
            if (e.isArray()) {
                for (const RedisValue &part : e.elements())
                    s.sampleFields.append(part.bytes().left(128));
            } else {
                s.sampleFields.append(e.bytes().left(128));
            }
        }
    } else if (s.type == "stream" && r.size() == 2) {
        s.size = r.at(0).toInteger();
        readGroupNames(s, r.at(1));
    } else if ((s.type == "list" || s.type == "set") && r.size() == 1) {
        s.size = r.at(0).toInteger();
    }
}

QList<QByteArray> AutoDetector::fieldTtlCommand(const KeyShape &s)
{
    if (s.type != "hash" || s.sampleFields.size() < 2)
        return {};
    QList<QByteArray> cmd{"HPTTL", s.key, "FIELDS", QByteArray::number(s.sampleFields.size() / 2)};
    for (qsizetype i = 0; i + 1 < s.sampleFields.size(); i += 2)
        cmd.append(s.sampleFields.at(i));
    return cmd;
}

void AutoDetector::readFieldTtls(KeyShape &s, const RedisValue &reply)
{
    if (reply.isError())
        return; // the hash changed type, or the command is refused: no evidence
    for (const RedisValue &ttl : reply.elements())
        s.fieldTtlsMs.append(ttl.toInteger());
}

void AutoDetector::add(const KeyShape &shape, qint64 serverNowMs, const QByteArray &family)
{
    m_pool.nowMs = serverNowMs;
    const QByteArray name = family.isEmpty() ? m_pool.boundedFamily(shape.key) : family;
    const qint64 entry = m_pool.add(shape, claimsOn(shape, serverNowMs), name);
    Sampling &s = sampling(name);
    if (s.decided)
        return; // a key of a type the family's sample did not have
    if (entry >= 0)
        s.entries.append(quint32(entry));
    if (!s.types.contains(shape.type))
        s.types.append(shape.type);
    const FamilyStats *f = m_pool.family(name);
    if (f && f->keysRead >= SettleSample)
        judgeSample(name);
}

void AutoDetector::judgeSample(const QByteArray &family)
{
    Sampling &s = sampling(family);
    s.decided = true;
    ClaimPool sample = m_pool.sampleOf(family, s.entries);
    const Detection d = detectFrom(sample, m_hints);
    bool ordinary = d.objects.isEmpty() && d.candidates.isEmpty();
    // A key no instance took may belong with keys of another family (a
    // window's retry set without its window): not judged, so not settled.
    // One claimed only as a possible partner of a longer name (a bare list)
    // settles its family provisionally: its later keys' names are kept.
    QList<std::pair<QByteArray, QList<QByteArray>>> partnerClaims;
    for (qsizetype i = 0; ordinary && i < sample.size(); ++i) {
        const ClaimPool::Entry &e = sample.entryAt(i);
        if (e.taken)
            continue;
        ordinary = !e.claims.isEmpty() && e.claims.first().second.strength <= PartnerStrength;
        auto at = std::find_if(partnerClaims.begin(), partnerClaims.end(),
                               [&e](const auto &p) { return p.first == e.shape.type; });
        if (at == partnerClaims.end())
            at = partnerClaims.insert(partnerClaims.end(), {e.shape.type, {}});
        for (const auto &claim : e.claims) {
            const QByteArray kind(claim.first.name());
            if (!at->second.contains(kind))
                at->second.append(kind);
        }
    }
    s.settled = ordinary;
    s.partners = ordinary && !partnerClaims.isEmpty();
    if (s.partners)
        s.partnerClaims = std::move(partnerClaims);
    s.entries = {};
}

int AutoDetector::familyIndex(const QByteArray &family)
{
    const auto it = m_familyIndex.constFind(family);
    if (it != m_familyIndex.cend())
        return *it;
    const int i = int(m_samplings.size());
    m_familyIndex.insert(family, i);
    m_samplings.emplace_back();
    m_samplings.back().family = family;
    return i;
}

int AutoDetector::familyIndexOfKey(const QByteArray &key)
{
    // Below the bound every key's family is its own (ClaimPool::boundedFamily).
    if (m_pool.families().size() >= ClaimPool::MaxFamilies)
        return familyIndex(m_pool.boundedFamily(key));
    m_scratch.resize(0); // keeps its capacity
    appendFamilyOf(m_scratch, key);
    const auto it = m_familyIndex.constFind(m_scratch);
    if (it != m_familyIndex.cend())
        return *it;
    return familyIndex(QByteArray(m_scratch.constData(), m_scratch.size()));
}

bool AutoDetector::settled(const QByteArray &family) const
{
    const auto it = m_familyIndex.constFind(family);
    return it != m_familyIndex.cend() && m_samplings[std::size_t(*it)].settled;
}

bool AutoDetector::settledWith(const QByteArray &family, const QByteArray &type) const
{
    const auto it = m_familyIndex.constFind(family);
    if (it == m_familyIndex.cend())
        return false;
    const Sampling &s = m_samplings[std::size_t(*it)];
    return s.settled && s.types.contains(type);
}

bool AutoDetector::count(const QByteArray &family, const QByteArray &type, const QByteArray &key)
{
    const auto it = m_familyIndex.constFind(family);
    return it != m_familyIndex.cend() && countAt(*it, type, key);
}

bool AutoDetector::countAt(int family, const QByteArray &type, const QByteArray &key)
{
    if (family < 0 || std::size_t(family) >= m_samplings.size())
        return false; // asked of an earlier detection
    Sampling &s = m_samplings[std::size_t(family)];
    if (!s.settled)
        return false;
    const qsizetype t = s.types.indexOf(type);
    if (t < 0)
        return false;
    if (s.partners
        && std::any_of(s.partnerClaims.cbegin(), s.partnerClaims.cend(),
                       [&type](const auto &p) { return p.first == type; })) {
        s.deferred.append({key, type});
        ++m_deferred;
        return true;
    }
    if (s.counted.size() != s.types.size())
        s.counted.resize(s.types.size());
    ++s.counted[t];
    ++m_counted;
    return true;
}

namespace {

// Whether a claimed key's name is key's, a separator and more ("q" and
// "q:processing", "q-processing", "q.processing", "q:processing:7"; not
// "q7"): key may be its partner.
bool extendedInPool(const ClaimPool &pool, const QByteArray &key)
{
    for (const QByteArray &k : pool.under(key)) {
        if (k.size() > key.size()) {
            const char c = k.at(key.size());
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')))
                return true;
        }
    }
    return false;
}

} // namespace

QList<QByteArray> AutoDetector::takeDeferred()
{
    QList<QByteArray> read;
    if (m_deferred == 0)
        return read;
    for (Sampling &s : m_samplings) {
        for (const auto &[key, type] : std::as_const(s.deferred)) {
            if (extendedInPool(m_pool, key)) {
                read.append(key);
            } else {
                countDeferred(m_pool, s, type);
                ++m_counted;
            }
        }
        s.deferred = {};
    }
    m_deferred = 0;
    return read;
}

void AutoDetector::countDeferred(ClaimPool &pool, const Sampling &s, const QByteArray &type)
{
    pool.count(s.family, type);
    // Claimed like the family's first keys of its TYPE (a bare list is
    // claimed by its TYPE and name alone), so the family's evidence weighs
    // all of its keys, not only those read.
    FamilyStats *f = pool.familyToUpdate(s.family);
    for (const auto &[t, kinds] : s.partnerClaims) {
        if (t != type || !f)
            continue;
        for (const QByteArray &kind : kinds)
            ++f->claimedBy[kind];
    }
}

void AutoDetector::countInto(const std::vector<Sampling> &samplings, ClaimPool &pool, bool deferred)
{
    for (const Sampling &s : samplings) {
        if (deferred) {
            for (const auto &kt : s.deferred)
                countDeferred(pool, s, kt.second);
        }
        for (qsizetype t = 0; t < s.counted.size(); ++t) {
            if (s.counted.at(t) == 0)
                continue;
            FamilyStats *f = pool.familyToUpdate(s.family);
            if (!f) { // settled families had keys read whole: not expected
                for (qint64 n = 0; n < s.counted.at(t); ++n)
                    pool.count(s.family, s.types.at(t));
                continue;
            }
            f->keys += s.counted.at(t);
            f->types[s.types.at(t)] += s.counted.at(t);
        }
    }
}

bool AutoDetector::wantsMemorySample(const QByteArray &key)
{
    return m_pool.wantsMemorySample(m_pool.boundedFamily(key));
}

void AutoDetector::addMemorySample(const QByteArray &key, qint64 bytes)
{
    m_pool.addMemorySample(m_pool.boundedFamily(key), bytes);
}

Detection AutoDetector::detect() const
{
    // Grouping takes keys from the pool: a copy, so detect() can be asked again.
    ClaimPool pool = m_pool;
    countInto(m_samplings, pool, true);
    return detectFrom(pool, m_hints);
}

Detection AutoDetector::takeDetection()
{
    ClaimPool pool = std::move(m_pool);
    m_pool = ClaimPool();
    countInto(m_samplings, pool, true); // deferred and not read: counted
    m_samplings = {};
    m_familyIndex = {};
    m_deferred = 0;
    return detectFrom(pool, m_hints);
}

namespace {

// The instances the patterns group (AutoDetector::detectFrom), judged into
// a detection one by one, and the keys of those found ordinary counted.
class Judging
{
public:
    Judging(const ClaimPool &pool, const std::optional<Profile> &hints, Detection *d)
        : m_pool(pool)
        , m_hints(hints)
        , m_d(*d)
    {}

    // Judges one instance: shown, a candidate, or ordinary keys after all
    // (then dropped: its evidence is freed with it).
    void judge(PatternObject &o)
    {
        const PatternUnit &unit = PatternUnit::of(o.kind);
        o.evidence = unit.judge(o, m_pool);
        const QByteArray named = !o.members.isEmpty() ? o.members.first()
                                 : unit.keyType().isEmpty() && !o.related.isEmpty()
                                     ? o.related.first()
                                     : o.key;
        bool rejected = false;
        if (m_hints) {
            rejected = m_hints->rejects(o.key) || m_hints->rejects(named);
            const std::optional<PatternObject> rule = m_hints->objectFor(named);
            if (!rejected && rule && rule->kind == o.kind) {
                // The rule's figures (a limit, when a job is stuck) over what
                // discovery guessed: the console shows what the actions use.
                o.params = rule->params;
                o.evidence.append(
                    {Evidence::Kind::Profile, AutoDetector::Threshold,
                     QStringLiteral("accepted in profile \"%1\"").arg(m_hints->name)});
            }
        }
        const int score = rejected ? 0 : evidenceScore(o.evidence);
        if (score >= AutoDetector::Threshold) {
            m_d.objects.append(std::move(o));
            return;
        }
        if (score <= 0) { // nothing left for it: an ordinary key after all
            for (const QByteArray &k : o.keys()) {
                if (const ClaimPool::Entry *e = m_pool.find(k))
                    ++m_ordinary[e->family];
            }
            return;
        }
        addCandidate(o, score);
    }

    // Family -> keys of instances judged ordinary.
    const QHash<QByteArray, qint64> &ordinary() const { return m_ordinary; }

private:
    // One candidate per kind and family: the instance counted in it, kept
    // as its example when it scores best.
    void addCandidate(const PatternObject &o, int score)
    {
        const QByteArray family = PatternUnit::familyOfObject(o, m_pool);
        const auto id = qMakePair(QByteArray(o.kind.name()), family);
        auto at = m_candidateAt.constFind(id);
        if (at == m_candidateAt.cend()) {
            at = m_candidateAt.insert(id, m_d.candidates.size());
            Candidate c;
            c.kind = o.kind;
            c.family = family;
            c.score = score;
            c.evidence = o.evidence;
            c.example = o;
            m_d.candidates.append(c);
        }
        Candidate &c = m_d.candidates[*at];
        ++c.count;
        c.keys += o.keys().size();
        if (c.sampleKeys.size() < 3)
            c.sampleKeys.append(o.key);
        if (score > c.score) {
            c.score = score;
            c.evidence = o.evidence;
            c.example = o;
        }
    }

    const ClaimPool &m_pool;
    const std::optional<Profile> &m_hints;
    Detection &m_d;
    QHash<QByteArray, qint64> m_ordinary;
    QHash<QPair<QByteArray, QByteArray>, qsizetype> m_candidateAt; // (kind, family) -> index
};

// A family whose keys belong to a shown object (a Bull queue's job
// hashes "bull:q:17", its own keys) is that object's, not other keys:
// each pattern says what it owns (PatternUnit::ownsKey), judged on the
// family's sample keys (its name when none were kept).
// Asked for every family's sample keys: the objects' own keys in one
// set, and beyond them only the objects whose key is the key's prefix
// up to a ':' (PatternUnit::ownsKey), not every object found.
class OwnedKeys
{
public:
    explicit OwnedKeys(const QList<PatternObject> &objects)
        : m_objects(objects)
    {
        for (qsizetype i = 0; i < objects.size(); ++i) {
            const PatternObject &o = objects.at(i);
            for (const QByteArray &k : o.keys())
                m_ownKeys.insert(k);
            m_byKey[o.key].append(i);
        }
    }

    bool operator()(const QByteArray &key) const
    {
        if (m_ownKeys.contains(key))
            return true;
        for (qsizetype colon = key.indexOf(':'); colon > 0; colon = key.indexOf(':', colon + 1)) {
            const auto at = m_byKey.constFind(QByteArray::fromRawData(key.constData(), colon));
            if (at == m_byKey.cend())
                continue;
            for (qsizetype i : *at) {
                const PatternObject &o = m_objects.at(i);
                if (PatternUnit::of(o.kind).ownsKey(o, key))
                    return true;
            }
        }
        return false;
    }

private:
    const QList<PatternObject> &m_objects;
    QSet<QByteArray> m_ownKeys;
    QHash<QByteArray, QList<qsizetype>> m_byKey;
};

// The row of a family with `left` keys no shown object or candidate uses.
OtherFamily otherFamily(const QByteArray &family, const FamilyStats &f, qint64 left)
{
    OtherFamily o;
    o.family = family;
    o.keys = left;
    qint64 most = 0;
    for (auto t = f.types.cbegin(); t != f.types.cend(); ++t) {
        if (t.value() > most || (t.value() == most && t.key() < o.type)) {
            most = t.value();
            o.type = t.key();
        }
    }
    o.kind = AutoDetector::ordinaryKind(family, f, &o.reason);
    // Over the keys read whole; a settled family's rest is estimated from them.
    o.keysRead = std::min(f.keysRead, left);
    o.withTtl
        = f.keysRead >= f.keys || f.keysRead == 0
              ? std::min(f.withTtl, left)
              : std::min(left, qint64(double(f.withTtl) * double(left) / double(f.keysRead) + 0.5));
    o.minTtlMs = f.minTtlMs;
    o.maxTtlMs = f.maxTtlMs;
    o.sampledKeys = f.samples;
    if (f.samples > 0)
        o.estimatedBytes = qint64(double(f.sampledBytes) / f.samples * double(left));
    o.sampleKeys = f.sampleKeys;
    return o;
}

// The ordinary keys: every family's keys but those shown or candidates
// (ordinary: the keys of instances judged ordinary, per family).
void addOtherFamilies(Detection *d, const ClaimPool &pool,
                      const QHash<QByteArray, qint64> &ordinary)
{
    QHash<QByteArray, qint64> used;
    for (qsizetype i = 0; i < pool.size(); ++i) {
        if (const ClaimPool::Entry &e = pool.entryAt(i); e.taken)
            ++used[e.family];
    }
    const OwnedKeys owns(d->objects);
    const auto owned = [&owns](const QByteArray &key) {
        return owns(key);
    };
    for (auto it = pool.families().cbegin(); it != pool.families().cend(); ++it) {
        const FamilyStats &f = *it;
        if (!d->objects.isEmpty()
            && (f.sampleKeys.isEmpty()
                    ? owned(it.key())
                    : std::all_of(f.sampleKeys.cbegin(), f.sampleKeys.cend(), owned)))
            continue;
        const qint64 left
            = f.keys - std::max<qint64>(0, used.value(it.key()) - ordinary.value(it.key()));
        if (left <= 0)
            continue;
        d->other.append(otherFamily(it.key(), f, left));
    }
    std::sort(d->other.begin(), d->other.end(), [](const OtherFamily &a, const OtherFamily &b) {
        return a.keys != b.keys ? a.keys > b.keys : a.family < b.family;
    });
}

} // namespace

Detection AutoDetector::detectFrom(ClaimPool &pool, const std::optional<Profile> &hints)
{
    QList<const PatternUnit *> units = PatternRegistry::instance().units();
    std::stable_sort(units.begin(), units.end(), [](const PatternUnit *a, const PatternUnit *b) {
        return a->groupOrder() < b->groupOrder();
    });
    Detection d;
    Judging judging(pool, hints, &d);
    // Each pattern's instances are judged as soon as it grouped them, and the
    // ordinary ones dropped at once: a million keys group into a few hundred
    // thousand instances, most of them ordinary, and judging only reads the
    // pool (claims, shapes, families), never what later patterns take.
    for (const PatternUnit *groupingUnit : std::as_const(units)) {
        QList<PatternObject> grouped = groupingUnit->groupClaims(pool);
        for (PatternObject &o : grouped) {
            judging.judge(o);
            o = PatternObject();
        }
    }
    std::sort(
        d.objects.begin(), d.objects.end(), [](const PatternObject &a, const PatternObject &b) {
            return a.kind != b.kind ? patternOrder(a.kind) < patternOrder(b.kind) : a.key < b.key;
        });
    std::stable_sort(d.candidates.begin(), d.candidates.end(),
                     [](const Candidate &a, const Candidate &b) { return a.count > b.count; });
    addOtherFamilies(&d, pool, judging.ordinary());
    return d;
}

QString AutoDetector::ordinaryKind(const QByteArray &family, const FamilyStats &f, QString *reason)
{
    const QList<QByteArray> words = familyWords(family);
    QString why;
    const auto has = [&words, &why](const QList<QByteArray> &list) {
        const QByteArray w = matchWord(words, list);
        if (!w.isEmpty())
            why = QStringLiteral("\"%1\" in its name").arg(QString::fromLatin1(w));
        return !w.isEmpty();
    };
    QByteArray type;
    qint64 most = 0;
    for (auto t = f.types.cbegin(); t != f.types.cend(); ++t) {
        if (t.value() > most) {
            most = t.value();
            type = t.key();
        }
    }
    const bool integers = type == "string" && f.integerValues * 2 >= f.keysRead;
    const auto kind = [&](const QString &k, const QString &because) {
        if (reason)
            *reason = because;
        return k;
    };
    // Integers under a name that counts ("counter:pageviews") are counted
    // pages, not cached ones.
    const bool counts = integers
                        && has({"counter", "counters", "count", "views", "pageviews", "visits",
                                "hits", "clicks"});
    const QString counted = why + QStringLiteral(", integer values");
    if (!counts && has({"page", "pages", "html", "fragment", "render"}))
        return kind(QStringLiteral("page-cache"), why);
    if (!counts && f.sampleHead.startsWith('<'))
        return kind(QStringLiteral("page-cache"), QStringLiteral("values that start as HTML"));
    if (has({"session", "sessions", "sess", "sid", "csrf"}))
        return kind(QStringLiteral("session"), why);
    if (has({"cache", "cached", "etag", "avatar"}))
        return kind(QStringLiteral("cache"), why);
    if (has({"leaderboard", "ranking", "rank", "scores", "top", "board", "highscores"}))
        return kind(QStringLiteral("leaderboard"), why);
    if (has({"feed", "timeline", "activity", "inbox", "notifications", "history", "recent"}))
        return kind(QStringLiteral("timeline"), why);
    if (has({"flag", "flags", "feature", "features", "toggle", "toggles"}))
        return kind(QStringLiteral("flag"), why);
    if (has({"log", "logs", "audit", "events", "journal"}))
        return kind(QStringLiteral("log"), why);
    if (familyHasDate(family) && (type == "string" || type == "hash"))
        return kind(QStringLiteral("dated-counter"), QStringLiteral("a date in its name"));
    if (counts)
        return kind(QStringLiteral("counter"), counted);
    if (has({"stats", "stat", "views", "pageviews", "visits", "hits", "clicks", "metrics",
             "analytics", "counter", "counters", "count"}))
        return kind(QStringLiteral("counter"), why);
    if (integers)
        return kind(QStringLiteral("counter"), QStringLiteral("integer values"));
    if (type == "zset")
        return kind(QStringLiteral("sorted-set"),
                    QStringLiteral("sorted sets whose scores no pattern reads"));
    if (type == "string" && f.withTtl * 2 >= f.keysRead)
        return kind(QStringLiteral("cache"), QStringLiteral("strings that expire"));
    return kind(QStringLiteral("data"), QStringLiteral("none of the patterns' names or shapes"));
}

Profile AutoDetector::suggestedProfile(const QList<PatternObject> &objects)
{
    Profile profile;
    profile.name = QStringLiteral("suggested");
    profile.alerts = builtInAlertRules(); // written as no list: the built-in rules
    // One rule per pattern and glob (or prefix), widened by every instance.
    QMap<QPair<int, QByteArray>, ProfileRule> rules;
    for (const PatternObject &o : objects) {
        const PatternUnit &unit = PatternUnit::of(o.kind);
        const ProfileRule rule = unit.suggestRule(o);
        const auto id
            = qMakePair(patternOrder(o.kind),
                        unit.keyField() == QLatin1String("prefix") ? rule.prefix : rule.match);
        auto it = rules.find(id);
        if (it == rules.end())
            rules.insert(id, rule);
        else
            unit.mergeSuggestedRule(*it, rule);
    }
    profile.rules = rules.values();
    return profile;
}

} // namespace gatehouse
