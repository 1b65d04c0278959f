// SPDX-License-Identifier: MIT
#include "keyclassifier.h"

#include "familyof.h"

#include "patternregistry.h"

#include <algorithm>
#include <cmath>

namespace gatehouse {

qint64 KeyShape::hashFieldInteger(const QByteArray &field) const
{
    const auto it = hashFields.constFind(field);
    if (it == hashFields.cend())
        return -1;
    bool ok = false;
    const qint64 v = it->toLongLong(&ok);
    return ok ? v : -1;
}

namespace {
constexpr double s_dayMs = 24.0 * 3600.0 * 1000.0;
} // namespace

bool nearMs(double score, qint64 now)
{
    return std::fabs(score - double(now)) < s_dayMs;
}

bool nearSeconds(double score, qint64 now)
{
    return std::fabs(score * 1000.0 - double(now)) < s_dayMs;
}

bool isInteger(const QByteArray &v)
{
    if (v.isEmpty() || v.size() > 20)
        return false;
    bool ok = false;
    v.toLongLong(&ok);
    return ok;
}

bool namedLikeLock(const QByteArray &key)
{
    return key.toLower().contains("lock");
}

bool looksRandom(const QByteArray &value)
{
    if (value.size() < 8 || value.size() > 256)
        return false;
    int letters = 0;
    int digits = 0;
    for (char ch : value) {
        const auto c = static_cast<unsigned char>(ch);
        if (c >= '0' && c <= '9')
            ++digits;
        else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
            ++letters;
        else if (c != '-' && c != '_' && c != '.' && c != ':')
            return false;
    }
    return letters > 0 && digits > 0;
}

QByteArray tokenPrefix(const QByteArray &key)
{
    const qsizetype colon = key.lastIndexOf(':');
    if (colon <= 0 || colon == key.size() - 1)
        return {};
    const QByteArray last = key.mid(colon + 1);
    if (looksRandom(last))
        return key.left(colon + 1);
    // A generated id of any length: families are found by grouping siblings,
    // not by how random one suffix looks ("code:3fa9c1").
    const QByteArray c = segmentClass(last);
    return c == "hex" || c == "b62" || c == "uuid" ? key.left(colon + 1) : QByteArray();
}

namespace {

bool isDigit(char c)
{
    return c >= '0' && c <= '9';
}
bool isHexLetter(char c)
{
    return (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
bool isLetter(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
bool isDelimiter(char c)
{
    return c == ':' || c == '/' || c == '|' || c == '{' || c == '}';
}

int digitsAt(const QByteArray &s, qsizetype at, int n)
{
    if (at + n > s.size())
        return -1;
    int v = 0;
    for (int i = 0; i < n; ++i) {
        const char c = s.at(at + i);
        if (!isDigit(c))
            return -1;
        v = v * 10 + (c - '0');
    }
    return v;
}

bool allDigits(const QByteArray &s)
{
    for (char c : s) {
        if (!isDigit(c))
            return false;
    }
    return !s.isEmpty();
}

bool validYmd(int y, int m, int d)
{
    return y >= 1970 && y <= 2099 && m >= 1 && m <= 12 && (d < 0 || (d >= 1 && d <= 31));
}

// 20261123, 2026112314, 2026-11-23, 2026-11, 2026_11_23, 2026-11-23T14,
// 2026-11-23-14, 2026-11-23T14:00 (a day, an hour or a month).
bool isDate(const QByteArray &s)
{
    const qsizetype n = s.size();
    if ((n == 8 || n == 10) && allDigits(s))
        return validYmd(digitsAt(s, 0, 4), digitsAt(s, 4, 2), digitsAt(s, 6, 2))
               && (n == 8 || digitsAt(s, 8, 2) <= 23);
    if (n < 7 || (s.at(4) != '-' && s.at(4) != '_'))
        return false;
    const char sep = s.at(4);
    const int y = digitsAt(s, 0, 4);
    const int m = digitsAt(s, 5, 2);
    if (n == 7)
        return validYmd(y, m, -1);
    if (n < 10 || s.at(7) != sep || !validYmd(y, m, digitsAt(s, 8, 2)))
        return false;
    for (qsizetype i = 10; i < n; ++i) {
        const char c = s.at(i);
        if (!isDigit(c) && c != 'T' && c != '-' && c != '_' && c != ':' && c != 'Z')
            return false;
    }
    return true;
}

bool isUuid(const QByteArray &s)
{
    if (s.size() != 36)
        return false;
    for (qsizetype i = 0; i < 36; ++i) {
        const char c = s.at(i);
        if (i == 8 || i == 13 || i == 18 || i == 23) {
            if (c != '-')
                return false;
        } else if (!isDigit(c) && !isHexLetter(c)) {
            return false;
        }
    }
    return true;
}

bool isIp(const QByteArray &s)
{
    // Most segments are not: no list of parts for them.
    if (s.size() < 7 || s.size() > 15 || !isDigit(s.at(0)) || !s.contains('.'))
        return false;
    const QList<QByteArray> parts = s.split('.');
    if (parts.size() != 4)
        return false;
    for (const QByteArray &p : parts) {
        if (p.isEmpty() || p.size() > 3 || digitsAt(p, 0, int(p.size())) < 0
            || digitsAt(p, 0, int(p.size())) > 255)
            return false;
    }
    return true;
}

bool isEmail(const QByteArray &s)
{
    const qsizetype at = s.indexOf('@');
    return at > 0 && s.indexOf('.', at) > at + 1 && !s.endsWith('.');
}

// Every class but "<word>_<variable>" and base-62; nullptr for a literal.
// No allocation: it runs for every segment of every key scanned.
const char *plainClass(const QByteArray &s)
{
    if (s.isEmpty())
        return nullptr;
    if (isUuid(s))
        return "uuid";
    if (isDate(s))
        return "date";
    if (isIp(s))
        return "ip";
    if (isEmail(s))
        return "email";
    bool digitsOnly = true;
    bool hex = true;
    bool hexLetter = false;
    bool digit = false;
    for (qsizetype i = 0; i < s.size(); ++i) {
        const char c = s.at(i);
        if (!isDigit(c) && !(i == 0 && c == '-' && s.size() > 1))
            digitsOnly = false;
        if (isHexLetter(c))
            hexLetter = true;
        else if (isDigit(c))
            digit = true;
        else
            hex = false;
    }
    if (digitsOnly)
        return "int";
    // Hex digits with a letter; with a digit too, or long ("deadbeefcafe"):
    // "cafe" and "added" stay words.
    if (hex && hexLetter && s.size() >= 4 && (digit || s.size() >= 12))
        return "hex";
    return nullptr;
}

bool isBase62(const QByteArray &s)
{
    if (s.size() < 6 || s.size() > 256)
        return false;
    bool digit = false;
    bool letter = false;
    bool lower = false;
    bool upper = false;
    for (char c : s) {
        if (isDigit(c))
            digit = true;
        else if (isLetter(c)) {
            letter = true;
            (c >= 'a' ? lower : upper) = true;
        } else if (c != '-' && c != '_')
            return false;
    }
    // Mixed letters and digits, or (long) mixed case: "x7Kp2mQ9zA", "QmVhbXNhbXBsZQ".
    return (digit && letter) || (s.size() >= 16 && lower && upper);
}

const char *segmentClassOf(const QByteArray &segment)
{
    const char *c = plainClass(segment);
    return c == nullptr && isBase62(segment) ? "b62" : c;
}

} // namespace

QByteArray segmentClass(const QByteArray &segment)
{
    const char *c = segmentClassOf(segment);
    return c ? QByteArray(c) : QByteArray();
}

namespace {

void appendPlaceholder(QByteArray &out, const char *cls)
{
    out += '{';
    out += cls;
    out += '}';
}

// A segment as its family shows it, appended to out.
void appendSegmentShape(QByteArray &out, const QByteArray &segment)
{
    if (const char *c = plainClass(segment)) {
        appendPlaceholder(out, c);
        return;
    }
    // "page_17", "views-2026-11-23": a word, then a variable part.
    for (qsizetype i = 1; i + 1 < segment.size(); ++i) {
        const char sep = segment.at(i);
        if (sep != '_' && sep != '-' && sep != '.')
            continue;
        bool word = true;
        for (qsizetype j = 0; j < i && word; ++j)
            word = isLetter(segment.at(j));
        if (!word)
            break;
        const QByteArray tail
            = QByteArray::fromRawData(segment.constData() + i + 1, segment.size() - i - 1);
        if (const char *t = segmentClassOf(tail)) {
            out.append(segment.constData(), i + 1);
            appendPlaceholder(out, t);
            return;
        }
    }
    if (isBase62(segment))
        out += "{b62}";
    else
        out += segment;
}

const char *const s_placeholders[]
    = {"{int}", "{hex}", "{uuid}", "{b62}", "{date}", "{ip}", "{email}"};

} // namespace

QByteArray familyOf(const QByteArray &key)
{
    QByteArray out;
    out.reserve(key.size() + 8);
    appendFamilyOf(out, key);
    return out;
}

void appendFamilyOf(QByteArray &out, const QByteArray &key)
{
    qsizetype start = 0;
    for (qsizetype i = 0; i <= key.size(); ++i) {
        if (i < key.size() && !isDelimiter(key.at(i)))
            continue;
        // A view of the key, not a copy: familyOf runs for every key scanned.
        appendSegmentShape(out, QByteArray::fromRawData(key.constData() + start, i - start));
        if (i < key.size())
            out += key.at(i);
        start = i + 1;
    }
}

QList<QByteArray> familyWords(const QByteArray &family)
{
    QByteArray literal = family;
    for (const char *p : s_placeholders)
        literal.replace(p, " ");
    QList<QByteArray> words;
    QByteArray word;
    for (qsizetype i = 0; i <= literal.size(); ++i) {
        const char c = i < literal.size() ? literal.at(i) : ' ';
        if (isLetter(c) || isDigit(c)) {
            word += char(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
            continue;
        }
        if (!word.isEmpty() && !words.contains(word))
            words.append(word);
        word.clear();
    }
    return words;
}

QByteArray matchWord(const QList<QByteArray> &familyWords, const QList<QByteArray> &words)
{
    for (const QByteArray &w : words) {
        for (const QByteArray &t : familyWords) {
            if (t == w || (w.size() >= 4 && t.startsWith(w)) || (w.size() >= 6 && t.endsWith(w)))
                return w;
        }
    }
    return {};
}

bool familyHasDate(const QByteArray &family)
{
    return family.contains("{date}");
}

QByteArray familyGlob(const QByteArray &family)
{
    QByteArray glob = family;
    for (const char *p : s_placeholders)
        glob.replace(p, "*");
    return glob;
}

const QList<QByteArray> &ordinaryWords()
{
    static const QList<QByteArray> s_words{
        "cache",       "cached",    "session",  "sess",     "sid",     "stats",     "stat",
        "views",       "pageviews", "visits",   "hits",     "clicks",  "analytics", "metrics",
        "feed",        "timeline",  "activity", "recent",   "history", "inbox",     "notifications",
        "leaderboard", "ranking",   "scores",   "page",     "html",    "fragment",  "render",
        "flag",        "flags",     "feature",  "features", "toggle",  "log",       "logs",
        "audit",       "events",    "settings", "prefs",    "profile", "avatar",    "etag",
        "csrf",        "cart",      "daily",    "hourly"};
    return s_words;
}

qint64 guessWindowMs(qint64 pttlMs)
{
    if (pttlMs <= 0)
        return 0;
    for (qint64 step : {1000LL, 2000LL, 5000LL, 10000LL, 15000LL, 30000LL, 60000LL, 300000LL,
                        600000LL, 3600000LL, 86400000LL}) {
        if (pttlMs <= step)
            return step;
    }
    return pttlMs;
}

QByteArray generaliseKey(const QByteArray &key)
{
    const qsizetype colon = key.lastIndexOf(':');
    if (colon < 0 || colon == key.size() - 1)
        return key;
    return key.left(colon + 1) + '*';
}

QList<std::pair<PatternKind, KeyClaim>> claimsOn(const KeyShape &shape, qint64 serverNowMs)
{
    QList<std::pair<PatternKind, KeyClaim>> claims;
    for (const PatternUnit *unit : PatternRegistry::instance().units()) {
        if (std::optional<KeyClaim> c = unit->claimKey(shape, serverNowMs))
            claims.append({unit->kind(), std::move(*c)});
    }
    // Stable: equal strengths keep registration order.
    std::stable_sort(claims.begin(), claims.end(), [](const auto &a, const auto &b) {
        return a.second.strength > b.second.strength;
    });
    return claims;
}

QByteArray ClaimPool::boundedFamily(const QByteArray &key) const
{
    QByteArray f = familyOf(key);
    if (m_families.size() < MaxFamilies || m_families.contains(f))
        return f;
    qsizetype first = 0;
    while (first < key.size() && !isDelimiter(key.at(first)))
        ++first;
    return familyOf(key.left(first)) + (first < key.size() ? key.at(first) : ':') + '*';
}

const FamilyStats *ClaimPool::family(const QByteArray &pattern) const
{
    const auto it = m_families.constFind(pattern);
    return it == m_families.cend() ? nullptr : &*it;
}

FamilyStats *ClaimPool::familyToUpdate(const QByteArray &pattern)
{
    const auto it = m_families.find(pattern);
    return it == m_families.end() ? nullptr : &*it;
}

bool ClaimPool::wantsMemorySample(const QByteArray &family)
{
    FamilyStats &f = m_families[family];
    if (f.samplesAsked >= MemorySamples)
        return false;
    ++f.samplesAsked;
    return true;
}

void ClaimPool::addMemorySample(const QByteArray &family, qint64 bytes)
{
    FamilyStats &f = m_families[family];
    f.sampledBytes += bytes;
    ++f.samples;
}

namespace {

// TYPE's replies, one copy each: a claimed key's shape shares it.
QByteArray internedType(const QByteArray &type)
{
    static const QByteArray s_types[] = {"string", "hash", "zset", "list", "set", "stream"};
    for (const QByteArray &t : s_types) {
        if (t == type)
            return t;
    }
    return type;
}

} // namespace

qint64 ClaimPool::add(KeyShape shape, QList<std::pair<PatternKind, KeyClaim>> claims,
                      const QByteArray &family)
{
    const QByteArray name = family.isEmpty() ? boundedFamily(shape.key) : family;
    auto fam = m_families.find(name);
    if (fam == m_families.end())
        fam = m_families.insert(name, FamilyStats());
    FamilyStats &f = *fam;
    ++f.keys;
    ++f.keysRead;
    ++f.types[internedType(shape.type)];
    if (shape.pttlMs > 0) {
        ++f.withTtl;
        f.minTtlMs = f.minTtlMs < 0 ? shape.pttlMs : std::min(f.minTtlMs, shape.pttlMs);
        f.maxTtlMs = std::max(f.maxTtlMs, shape.pttlMs);
    }
    if (shape.type == "string" && isInteger(shape.head))
        ++f.integerValues;
    if (f.sampleKeys.size() < 3)
        f.sampleKeys.append(shape.key);
    if (f.sampleHead.isEmpty() && shape.type == "string")
        f.sampleHead = shape.head.left(32);
    if (claims.isEmpty())
        return -1;
    for (const auto &claim : claims)
        ++f.claimedBy[QByteArray(claim.first.name())];
    shape.type = internedType(shape.type);
    if (m_chunks.empty() || m_chunks.back().size() == ChunkSize) {
        m_chunks.emplace_back();
        m_chunks.back().reserve(ChunkSize);
    }
    m_chunks.back().push_back(Entry{std::move(shape), std::move(claims), fam.key(), false});
    m_order.push_back(m_count);
    m_sorted = false;
    m_byKindBuilt = false;
    return m_count++;
}

void ClaimPool::count(const QByteArray &family, const QByteArray &type)
{
    FamilyStats &f = m_families[family];
    ++f.keys;
    ++f.types[internedType(type)];
}

ClaimPool ClaimPool::sampleOf(const QByteArray &family, const QList<quint32> &entries) const
{
    ClaimPool sample;
    sample.nowMs = nowMs;
    const auto f = m_families.constFind(family);
    if (f == m_families.cend())
        return sample;
    const auto fam = sample.m_families.insert(f.key(), *f);
    Q_ASSERT(std::size_t(entries.size()) <= ChunkSize); // one chunk
    sample.m_chunks.emplace_back();
    sample.m_chunks.back().reserve(std::size_t(entries.size()));
    for (quint32 i : entries) {
        const Entry &e = at(i);
        sample.m_chunks.back().push_back(Entry{e.shape, e.claims, fam.key(), false});
        sample.m_order.push_back(sample.m_count++);
    }
    sample.m_sorted = sample.m_count <= 1;
    return sample;
}

void ClaimPool::sort() const
{
    if (m_sorted)
        return;
    m_sorted = true;
    // Equal keys (SCAN may list a key twice) in the order they came; the
    // last reading wins (the earlier entries stay, unlisted).
    std::sort(m_order.begin(), m_order.end(), [this](quint32 a, quint32 b) {
        const int c = at(a).shape.key.compare(at(b).shape.key);
        return c != 0 ? c < 0 : a < b;
    });
    auto out = m_order.begin();
    for (auto it = m_order.begin(); it != m_order.end();) {
        auto last = it;
        while (last + 1 != m_order.end() && at(*(last + 1)).shape.key == at(*it).shape.key)
            ++last;
        *out++ = *last;
        it = last + 1;
    }
    m_order.erase(out, m_order.end());
}

std::size_t ClaimPool::lowerBound(const QByteArray &key) const
{
    sort();
    return std::size_t(std::lower_bound(m_order.cbegin(), m_order.cend(), key,
                                        [this](quint32 i, const QByteArray &k) {
                                            return at(i).shape.key.compare(k) < 0;
                                        })
                       - m_order.cbegin());
}

ClaimPool::Entry *ClaimPool::findEntry(const QByteArray &key) const
{
    const std::size_t i = lowerBound(key);
    if (i == m_order.size())
        return nullptr;
    Entry &e = at(m_order[i]);
    return e.shape.key == key ? &e : nullptr;
}

const ClaimPool::Entry *ClaimPool::find(const QByteArray &key) const
{
    return findEntry(key);
}

QList<QByteArray> ClaimPool::under(const QByteArray &prefix) const
{
    QList<QByteArray> out;
    for (std::size_t i = lowerBound(prefix); i < m_order.size(); ++i) {
        const Entry &e = at(m_order[i]);
        if (!e.shape.key.startsWith(prefix))
            break;
        if (!e.taken)
            out.append(e.shape.key);
    }
    return out;
}

QString ClaimPool::roleOf(const QByteArray &key, PatternKind kind) const
{
    if (const Entry *e = find(key)) {
        for (const auto &[k, claim] : e->claims) {
            if (k == kind)
                return claim.role;
        }
    }
    return QString();
}

const std::vector<quint32> &ClaimPool::claimedBy(PatternKind kind) const
{
    sort();
    if (!m_byKindBuilt) {
        m_byKindBuilt = true;
        m_byKind.clear();
        for (quint32 i : m_order) {
            const Entry &e = at(i);
            for (qsizetype c = 0; c < e.claims.size(); ++c) {
                const PatternKind k = e.claims.at(c).first;
                bool seen = false; // a pattern claims a key once; asked once per entry
                for (qsizetype d = 0; d < c && !seen; ++d)
                    seen = e.claims.at(d).first == k;
                if (!seen)
                    m_byKind[k].push_back(i);
            }
        }
    }
    static const std::vector<quint32> s_none;
    const auto it = m_byKind.constFind(kind);
    return it == m_byKind.cend() ? s_none : *it;
}

QList<QByteArray> ClaimPool::won(PatternKind kind) const
{
    QList<QByteArray> keys;
    for (quint32 i : claimedBy(kind)) {
        const Entry &e = at(i);
        if (!e.taken && e.claims.first().first == kind)
            keys.append(e.shape.key);
    }
    return keys;
}

QList<QByteArray> ClaimPool::claimed(PatternKind kind, int maxStrength) const
{
    QList<QByteArray> keys;
    for (quint32 i : claimedBy(kind)) {
        const Entry &e = at(i);
        if (!e.taken && e.claims.first().second.strength <= maxStrength)
            keys.append(e.shape.key);
    }
    return keys;
}

bool ClaimPool::take(const QByteArray &key)
{
    Entry *e = findEntry(key);
    if (!e || e->taken)
        return false;
    e->taken = true;
    return true;
}

} // namespace gatehouse
