// SPDX-License-Identifier: MIT
#include "tokenfamilyunit.h"
#include "tokenfamilydemo.h"

#include <patterns/keyclassifier.h>
#include <patterns/matchcounter.h>
#include <patterns/sections.h>
#include <patterns/token-family/tokendata.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QRandomGenerator>

#include <algorithm>

namespace gatehouse {

namespace {
qsizetype probedMembers(const PatternObject &o)
{
    return std::min<qsizetype>(o.members.size(), TokenFamilyUnit::MaxMembersPerProbe);
}

[[maybe_unused]] const bool s_judged
    = registerJudgement(TokenFamilyUnit::Kind, {&TokenData::health, {}, {}, {}});
} // namespace

QList<PatternUnit::Command> TokenFamilyUnit::probe(const PatternObject &o,
                                                   const ProbeContext &) const
{
    QList<Command> cmds;
    const qsizetype n = probedMembers(o);
    cmds.reserve(o.countedTokens ? 2 * n : n);
    for (qsizetype i = 0; i < n; ++i) {
        cmds.append({"PTTL", o.members.at(i)});
        if (o.countedTokens)
            cmds.append({"HGET", o.members.at(i), o.params.countField});
    }
    return cmds;
}

void TokenFamilyUnit::observeBehaviour(BehaviourTrack &t, const PatternObject &o, const Reading &,
                                       const Reading &after, const QList<RedisValue> &r) const
{
    if (after.status == Reading::Status::Error || after.status == Reading::Status::WrongType)
        return;
    const qsizetype n = probedMembers(o);
    const int stride = o.countedTokens ? 2 : 1;
    for (qsizetype i = 0; i < n && (i + 1) * stride <= r.size(); ++i) {
        const QByteArray &member = o.members.at(i);
        const qint64 ttl = r.at(i * stride).toInteger();
        const auto it = t.expiries.find(member);
        if (ttl == -2) {
            // Gone well before it was due to expire: used or revoked.
            if (it != t.expiries.end() && *it > after.atMs + 1000)
                t.confirm(QStringLiteral("a token was deleted before its TTL ran out (used or "
                                         "revoked) and not written again"));
            if (it != t.expiries.end())
                t.expiries.erase(it);
            continue;
        }
        if (ttl < 0)
            continue;
        const qint64 expiry = saturatingAdd(after.atMs, ttl);
        // Its expiry moved later: SET ... EX again, as a cache is refreshed
        // (a token is written once).
        if (it != t.expiries.end() && expiry > *it + 1000)
            t.argue(QStringLiteral("a token's TTL was set again while it lived (rewritten)"),
                    t.eventsLive);
        if (it != t.expiries.end() || t.expiries.size() < 2 * MaxMembersPerProbe)
            t.expiries.insert(member, expiry);
    }
}

Reading TokenFamilyUnit::read(const PatternObject &o, const QList<RedisValue> &r,
                              const ProbeContext &c) const
{
    Reading reading;
    reading.atMs = c.nowMs;
    const qsizetype n = probedMembers(o);
    const int stride = o.countedTokens ? 2 : 1;
    if (r.size() < n * stride) { // a pipeline that lost replies: nothing can be trusted
        reading.status = Reading::Status::Error;
        reading.message = QStringLiteral("Reading token family \"%1\" got %2 replies for %3 "
                                         "commands.")
                              .arg(printableBytes(o.key))
                              .arg(r.size())
                              .arg(n * stride);
        return reading;
    }
    TokenData &tokens = TokenData::in(reading);
    qint64 wrongType = 0;
    for (qsizetype i = 0; i < n && (i + 1) * stride <= r.size(); ++i) {
        const RedisValue &pttl = r.at(i * stride);
        if (pttl.isError()) {
            reading.status = Reading::Status::Error;
            reading.message = QStringLiteral("Reading token \"%1\" failed: %2")
                                  .arg(printableBytes(o.members.at(i)), pttl.errorMessage());
            return reading;
        }
        const qint64 ttl = pttl.toInteger();
        if (ttl == -2)
            continue; // consumed, revoked or expired since discovery
        if (o.countedTokens) {
            const RedisValue &used = r.at(i * stride + 1);
            if (used.errorCode() == "WRONGTYPE") {
                ++wrongType;
                continue;
            }
            if (used.toInteger() > 0)
                ++tokens.used;
        }
        ++tokens.count;
        if (ttl == -1) {
            ++tokens.withoutTtl;
            continue;
        }
        tokens.minTtlMs = tokens.minTtlMs < 0 ? ttl : std::min(tokens.minTtlMs, ttl);
        tokens.maxTtlMs = std::max(tokens.maxTtlMs, ttl);
    }
    if (n < o.members.size() && n > 0) // extrapolate from the sample
        tokens.count = tokens.count * o.members.size() / n;
    if (wrongType > 0)
        reading.message = QStringLiteral("%1 keys of the family are not hashes with a \"%2\" "
                                         "counter; they are not counted.")
                              .arg(wrongType)
                              .arg(QString::fromUtf8(o.params.countField));
    else if (tokens.withoutTtl > 0)
        reading.message
            = QStringLiteral("%1 tokens have no TTL and never expire.").arg(tokens.withoutTtl);
    if (tokens.count == 0 && wrongType == 0) {
        reading.status = Reading::Status::Missing;
        reading.message
            = QStringLiteral("No live tokens in family \"%1\".").arg(printableBytes(o.key));
    }
    return reading;
}

QList<QByteArray> TokenFamilyUnit::liveMembers(const PatternObject &o, const QList<RedisValue> &r)
{
    const qsizetype n = probedMembers(o);
    const int stride = o.countedTokens ? 2 : 1;
    QList<QByteArray> live;
    for (qsizetype i = 0; i < o.members.size(); ++i) {
        // Members beyond the probed sample are kept: nothing is known of them.
        if (i >= n || i * stride >= r.size() || r.at(i * stride).isError()
            || r.at(i * stride).toInteger() != -2)
            live.append(o.members.at(i));
    }
    return live;
}

QString TokenFamilyUnit::familyProblem(const QByteArray &prefix)
{
    const QString shown = printableBytes(prefix, 80);
    if (prefix.isEmpty() || prefix.size() > MaxFamilyBytes)
        return QStringLiteral("A token family is 1 to %1 bytes (got %2).")
            .arg(MaxFamilyBytes)
            .arg(prefix.size());
    for (char ch : prefix) {
        const auto c = static_cast<unsigned char>(ch);
        if (c <= ' ' || c == 0x7f || ch == '*' || ch == '?' || ch == '[' || ch == ']' || ch == '\\')
            return QStringLiteral("Token family \"%1\" contains a space, a control character or "
                                  "a glob character (* ? [ ] \\); use letters, digits and "
                                  "separators such as \"code:\".")
                .arg(shown);
    }
    if (!QByteArray(FamilySeparators).contains(prefix.back()))
        return QStringLiteral("Token family \"%1\" must end with a separator (one of %2), so "
                              "its tokens cannot be mistaken for other keys: try \"%1:\".")
            .arg(shown, QString::fromLatin1(FamilySeparators));
    return {};
}

QString TokenFamilyUnit::payloadProblem(const QByteArray &json)
{
    if (json.size() > MaxPayloadBytes)
        return QStringLiteral("The payload is %1 bytes; at most %2 are accepted.")
            .arg(json.size())
            .arg(MaxPayloadBytes);
    // QJsonDocument parses only objects and arrays: a scalar is checked as the
    // one element of an array.
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson('[' + json + ']', &error);
    if (error.error != QJsonParseError::NoError)
        return QStringLiteral("The payload is not valid JSON (at byte %1: %2).")
            .arg(std::max(0, error.offset - 1))
            .arg(error.errorString());
    if (doc.array().size() != 1)
        return QStringLiteral("The payload must be one JSON value (got %1).")
            .arg(doc.array().size());
    return {};
}

QString TokenFamilyUnit::ttlProblem(qint64 ttlSeconds)
{
    if (ttlSeconds <= 0)
        return QStringLiteral("A token needs a time to live in seconds (> 0): a token that never "
                              "expires is a leak.");
    if (ttlSeconds > MaxTtlSeconds)
        return QStringLiteral("A token lives at most %1 s (366 days); got %2 s.")
            .arg(MaxTtlSeconds)
            .arg(ttlSeconds);
    return {};
}

QByteArray TokenFamilyUnit::newToken()
{
    // QRandomGenerator::system() reads the operating system's CSPRNG.
    QByteArray raw(24, Qt::Uninitialized);
    QRandomGenerator::system()->fillRange(reinterpret_cast<quint32 *>(raw.data()),
                                          raw.size() / int(sizeof(quint32)));
    return raw.toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals);
}

ScriptCall TokenFamilyUnit::issue(const PatternObject &family, const QByteArray &token,
                                  const QByteArray &value, qint64 ttlSeconds)
{
    ScriptCall call;
    call.action = QStringLiteral("token.issue");
    call.script = QStringLiteral("token_issue");
    call.keys = {family.key + token};
    call.args = {value, QByteArray::number(ttlSeconds)};
    call.issued = token;
    const QString key = printableBytes(call.keys.first());
    call.meaning = [key](const RedisValue &reply) {
        return reply.toInteger() == 1
                   ? ReplyMeaning{true, QStringLiteral("Issued token \"%1\".").arg(key)}
                   : ReplyMeaning{false, QStringLiteral("Key \"%1\" exists already (a "
                                                        "collision); nothing was overwritten.")
                                             .arg(key)};
    };
    // The secret is not in the confirmation: it is shown once, after it ran.
    QByteArray masked = call.keys.first();
    masked.replace(token, QByteArray(token.left(4) + "..."));
    call.summary = QStringLiteral("Create token \"%1\" expiring in %2 s (never overwrites an "
                                  "existing key; the full token is shown once, after it is "
                                  "created).")
                       .arg(printableBytes(masked))
                       .arg(ttlSeconds);
    return call;
}

ScriptCall TokenFamilyUnit::revoke(const QByteArray &tokenKey, const QList<QByteArray> &families)
{
    ScriptCall call;
    call.action = QStringLiteral("token.revoke");
    call.script = QStringLiteral("token_revoke");
    call.keys = {tokenKey};
    call.keyRoles = {QStringLiteral("token")};
    call.args = {QByteArray()};
    call.forceable = true;
    call.forceArg = 0;
    bool member = false;
    QByteArray family;
    for (const QByteArray &f : families) {
        if (tokenKey.size() > f.size() && tokenKey.startsWith(f) && f.size() > family.size())
            family = f;
    }
    member = !family.isEmpty();
    if (families.isEmpty()) {
        family = tokenPrefix(tokenKey);
        member = !family.isEmpty();
    }
    // The code after the family's prefix is the token's secret.
    if (member && tokenKey.size() - family.size() >= 6)
        call.secret = tokenKey.mid(family.size());
    if (!member) {
        QStringList known;
        for (const QByteArray &f : families.mid(0, 5))
            known << QLatin1Char('"') + printableBytes(f, 40) + QLatin1Char('"');
        call.refusal
            = families.isEmpty()
                  ? QStringLiteral("\"%1\" is not a token: no token family is known and its "
                                   "last segment does not look generated.")
                        .arg(printableBytes(tokenKey, 80))
                  : QStringLiteral("\"%1\" is in no known token family (%2).")
                        .arg(printableBytes(tokenKey, 80), known.join(QLatin1String(", ")));
    }
    call.summary = QStringLiteral("Delete token \"%1\"; it can no longer be used.")
                       .arg(printableBytes(tokenKey));
    const QString key = printableBytes(tokenKey);
    call.meaning = [key](const RedisValue &reply) {
        return reply.isNil()
                   ? ReplyMeaning{false, QStringLiteral("Token \"%1\" does not exist (used, "
                                                        "expired or revoked); nothing changed.")
                                             .arg(key)}
                   : ReplyMeaning{true, QStringLiteral("Revoked token \"%1\".").arg(key)};
    };
    return call;
}

namespace {

// token_revoke (KEYS[1] the token): chosen from a list read a while ago, so
// the confirmation says how many of the chosen still exist (one EXISTS each).
[[maybe_unused]] const bool s_revokeCounted
    = MatchCounter::add(QStringLiteral("token_revoke"),
                        {[](const ScriptCall &call, qint64) {
                             return QList<QList<QByteArray>>{{"EXISTS", call.keys.value(0)}};
                         },
                         [](const QList<RedisValue> &r) { return r.value(0).toInteger(); },
                         {}});

} // namespace

Section TokenFamilyUnit::section() const
{
    return sections::token();
}

bool TokenFamilyUnit::parseRule(RuleReader &r, const QJsonObject &o, ProfileRule &rule) const
{
    return r.boolean(o, "counted", &rule.counted)
           && r.string(o, "countField", &rule.params.countField);
}

void TokenFamilyUnit::writeRule(const ProfileRule &r, QJsonObject &o) const
{
    if (r.counted)
        o.insert(QStringLiteral("counted"), true);
    if (r.counted || r.params.countField != PatternParams().countField)
        o.insert(QStringLiteral("countField"), QString::fromUtf8(r.params.countField));
}

QList<QByteArray> TokenFamilyUnit::scanGlobs(const ProfileRule &rule) const
{
    return {rule.prefix + '*'};
}

std::optional<PatternObject> TokenFamilyUnit::objectFor(const ProfileRule &rule,
                                                        const QByteArray &key) const
{
    if (!key.startsWith(rule.prefix) || key.size() <= rule.prefix.size())
        return std::nullopt;
    PatternObject o = baseObject(rule, rule.prefix);
    o.members = {key};
    o.countedTokens = rule.counted;
    return o;
}

PatternObject TokenFamilyUnit::conventionalObject(const QByteArray &key) const
{
    // A token key names its family by its prefix; a prefix is the family.
    PatternObject o = PatternUnit::conventionalObject(key);
    const QByteArray prefix = tokenPrefix(key);
    if (!prefix.isEmpty()) {
        o.key = prefix;
        o.members = {key};
    }
    return o;
}

bool TokenFamilyUnit::merge(PatternObject &current, const PatternObject &found) const
{
    const QSet<QByteArray> known(current.members.cbegin(), current.members.cend());
    bool changed = false;
    for (const QByteArray &m : found.members) {
        if (!known.contains(m)) {
            current.members.append(m);
            changed = true;
        }
    }
    return changed;
}

std::optional<PatternObject> TokenFamilyUnit::afterRead(const PatternObject &probed,
                                                        const PatternObject &current,
                                                        const QList<RedisValue> &replies) const
{
    QList<QByteArray> live = liveMembers(probed, replies);
    // Members added since the probe stay until a tick reads them.
    const QSet<QByteArray> probedMembers(probed.members.cbegin(), probed.members.cend());
    for (const QByteArray &m : current.members) {
        if (!probedMembers.contains(m))
            live.append(m);
    }
    if (live.size() == current.members.size())
        return std::nullopt;
    PatternObject changed = current;
    changed.members = std::move(live);
    return changed;
}

QList<Figure> TokenFamilyUnit::figures() const
{
    return {TokenData::liveTokens()};
}

QList<Column> TokenFamilyUnit::columns() const
{
    return tokenColumns();
}

QList<Column> TokenFamilyUnit::tokenColumns()
{
    Column live = Column::count(QStringLiteral("Live"), &TokenData::count);
    Column range;
    range.header = QStringLiteral("TTL range");
    range.movesWithTime = true;
    range.text = [](const ObjectState &s, qint64 now) -> QString {
        const Reading &r = s.reading;
        return QStringLiteral("%1 – %2").arg(
            formatMs(r.countdownAt(TokenData::of(r).minTtlMs, now)),
            formatMs(r.countdownAt(TokenData::of(r).maxTtlMs, now)));
    };
    Column noTtl = Column::count(QStringLiteral("No TTL"), &TokenData::withoutTtl);
    return {Column::key(QStringLiteral("Family")), live, range, noTtl, Column::status()};
}

void TokenFamilyUnit::writeJson(const ObjectState &s, const Reading &r, qint64,
                                QJsonObject &j) const
{
    j.insert(QStringLiteral("count"), double(TokenData::of(r).count));
    j.insert(QStringLiteral("withoutTtl"), double(TokenData::of(r).withoutTtl));
    j.insert(QStringLiteral("minTtlMs"), double(TokenData::of(r).minTtlMs));
    j.insert(QStringLiteral("maxTtlMs"), double(TokenData::of(r).maxTtlMs));
    j.insert(QStringLiteral("counted"), s.object->countedTokens);
    if (s.object->countedTokens)
        j.insert(QStringLiteral("used"), double(TokenData::of(r).used));
}

QList<PatternAction> TokenFamilyUnit::actions() const
{
    PatternAction issueAction;
    issueAction.id = QStringLiteral("token.issue");
    issueAction.verb = QStringLiteral("issue");
    issueAction.label = QStringLiteral("Issue token…");
    issueAction.objectName = QStringLiteral("issueTokenButton");
    issueAction.usage = QStringLiteral("token issue FAMILY --ttl S [--value JSON]");
    issueAction.targetIsPrefix = true;
    ActionInput ttl{QStringLiteral("ttl"), QStringLiteral("Time to live (s)")};
    ttl.integer = true;
    ActionInput value{QStringLiteral("value"), QStringLiteral("Payload (JSON)")};
    value.required = false;
    issueAction.inputs = {ttl, value};
    issueAction.check = [](const ActionRequest &r) -> QString {
        if (QString e = familyProblem(r.target); !e.isEmpty())
            return e;
        if (QString e = ttlProblem(r.integer(QStringLiteral("ttl"))); !e.isEmpty())
            return QStringLiteral("token issue --ttl: ") + e;
        if (r.has(QStringLiteral("value"))) {
            if (QString e = payloadProblem(r.input(QStringLiteral("value"))); !e.isEmpty())
                return QStringLiteral("--value: ") + e;
        }
        return QString();
    };
    issueAction.build = [](const ActionRequest &r) {
        PatternObject family;
        family.kind = Kind;
        family.key = r.target;
        return issue(family, newToken(), r.input(QStringLiteral("value")),
                     r.integer(QStringLiteral("ttl")));
    };

    PatternAction revokeAction;
    revokeAction.id = QStringLiteral("token.revoke");
    revokeAction.verb = QStringLiteral("revoke");
    revokeAction.label = QStringLiteral("Revoke token…");
    revokeAction.objectName = QStringLiteral("revokeTokenButton");
    revokeAction.usage = QStringLiteral("token revoke KEY");
    revokeAction.targetIsPrefix = true; // the target is a token key, not the family
    revokeAction.build = [](const ActionRequest &r) {
        return revoke(r.target, r.families);
    };
    return {issueAction, revokeAction};
}

namespace {

// Digits or letters, 4 to 64 of them: a code an application generated.
bool isShortCode(const QByteArray &segment)
{
    if (segment.size() < 4 || segment.size() > 64)
        return false;
    for (char c : segment) {
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')))
            return false;
    }
    return true;
}

// The digits of a one-time code: six to ten of them, or four and more
// starting with a zero, which no counter has.
bool looksLikeCode(const QByteArray &value)
{
    if (value.size() < 4 || value.size() > 10)
        return false;
    for (char c : value) {
        if (c < '0' || c > '9')
            return false;
    }
    return value.size() >= 6 || value.at(0) == '0';
}

} // namespace

bool TokenFamilyUnit::prefixNamedLikeToken(const QByteArray &prefix) const
{
    // Asked for every string that expires with a short last segment (a
    // million cached values "cache:product:1234" ask it of one prefix):
    // remembered per prefix, per thread, within a bound.
    thread_local QHash<QByteArray, bool> s_named;
    const auto it = s_named.constFind(prefix);
    if (it != s_named.cend())
        return *it;
    if (s_named.size() >= 4096)
        s_named.clear();
    const bool named = !matchWord(familyWords(familyOf(prefix)), wordsFor()).isEmpty();
    s_named.insert(prefix, named);
    return named;
}

std::optional<KeyClaim> TokenFamilyUnit::claimKey(const KeyShape &s, qint64) const
{
    // "<prefix>:<random>" that expires (a one-time code), or a hash with a
    // use counter (seed 002's counted tokens).
    if (s.type == "string" && s.pttlMs > 0 && !isInteger(s.head) && !tokenPrefix(s.key).isEmpty())
        return KeyClaim{QStringLiteral("token"), 20};
    // A short code that is no id by its look ("otp:483920", "otp:abcdef") is
    // a token by its family's name: its siblings are grouped with it by prefix.
    // Its value may be the code the user types ("483920", "0042"), but not a
    // count ("3" attempts).
    const qsizetype colon = s.key.lastIndexOf(':');
    if (s.type == "string" && s.pttlMs > 0 && (!isInteger(s.head) || looksLikeCode(s.head))
        && colon > 0 && isShortCode(s.key.mid(colon + 1))
        && prefixNamedLikeToken(s.key.left(colon)))
        return KeyClaim{QStringLiteral("token"), 20};
    if (s.type == "hash" && s.hasHashField(PatternParams().countField))
        return KeyClaim{QStringLiteral("counted-token"), 10};
    return std::nullopt;
}

QList<PatternObject> TokenFamilyUnit::groupClaims(ClaimPool &pool) const
{
    QMap<QByteArray, PatternObject> families;
    for (const QByteArray &key : pool.won(Kind)) {
        QByteArray prefix = tokenPrefix(key);
        if (prefix.isEmpty() && pool.roleOf(key, Kind) == QLatin1String("token"))
            prefix = key.left(key.lastIndexOf(':') + 1); // a short code under a token word
        if (prefix.isEmpty())
            continue;
        PatternObject &family = families[prefix];
        family.kind = Kind;
        family.key = prefix;
        family.source = QStringLiteral("autodetected");
        family.countedTokens |= pool.roleOf(key, Kind) == QLatin1String("counted-token");
        family.members.append(key); // in key order
        pool.take(key);
    }
    return families.values();
}

ProfileRule TokenFamilyUnit::suggestRule(const PatternObject &object) const
{
    ProfileRule rule = PatternUnit::suggestRule(object);
    rule.match.clear();
    rule.prefix = object.key;
    rule.counted = object.countedTokens;
    return rule;
}

QList<QByteArray> TokenFamilyUnit::wordsFor() const
{
    return {"otp",          "token",  "tokens",  "code",     "codes",   "nonce",      "verify",
            "verification", "invite", "magic",   "reset",    "confirm", "activation", "mfa",
            "2fa",          "ticket", "onetime", "passcode", "pin"};
}

QList<Evidence> TokenFamilyUnit::structureEvidence(const PatternObject &o,
                                                   const ClaimPool &pool) const
{
    if (o.countedTokens)
        return {{Evidence::Kind::Structure, 3,
                 QStringLiteral("hashes with a use counter (%1)")
                     .arg(QString::fromLatin1(o.params.countField))}};
    qint64 expiring = 0;
    for (const QByteArray &m : o.members) {
        if (const ClaimPool::Entry *e = pool.find(m); e && e->shape.pttlMs > 0)
            ++expiring;
    }
    return {{Evidence::Kind::Structure, 2,
             QStringLiteral("%1 keys %2<generated id>, %3 of them expiring, none holding a "
                            "number")
                 .arg(o.members.size())
                 .arg(printableBytes(o.key, 60))
                 .arg(expiring)}};
}

QList<Evidence> TokenFamilyUnit::familyEvidence(const PatternObject &o, const ClaimPool &pool) const
{
    // The family is the instance: siblings that share the prefix but not the
    // shape (ids of another kind, literal names) argue against.
    QHash<QByteArray, qint64> shapes;
    for (const QByteArray &m : o.members) {
        if (const ClaimPool::Entry *e = pool.find(m))
            ++shapes[e->family];
    }
    if (shapes.size() == 1) {
        const QByteArray family = shapes.cbegin().key();
        const FamilyStats *f = pool.family(family);
        const qint64 all = f ? f->keys : o.members.size();
        if (all >= 4 && o.members.size() * 2 < all)
            return {{Evidence::Kind::Family, -2,
                     QStringLiteral("only %1 of the %2 keys named %3 look like tokens")
                         .arg(o.members.size())
                         .arg(all)
                         .arg(printableBytes(family, 60))}};
        return {{Evidence::Kind::Family, 0,
                 QStringLiteral("%1 siblings of one shape (%2), grouped whatever the id's length")
                     .arg(o.members.size())
                     .arg(printableBytes(family, 60))}};
    }
    return {
        {Evidence::Kind::Family, 0,
         QStringLiteral("%1 members in %2 name shapes").arg(o.members.size()).arg(shapes.size())}};
}

std::unique_ptr<DemoTraffic> TokenFamilyUnit::demoTraffic(quint32 seed) const
{
    return std::make_unique<TokenFamilyDemo>(seed);
}

} // namespace gatehouse
