// SPDX-License-Identifier: MIT
#include "tokenhashunit.h"

#include <patterns/sections.h>
#include <patterns/token-family/tokendata.h>
#include <patterns/token-family/tokenfamilyunit.h>
#include <redis/redisscript.h>

#include <limits>

namespace gatehouse {

namespace {

const QByteArray &sampleProbe()
{
    static const QByteArray source
        = RedisScript::fromResource(QStringLiteral("token_hash_sample")).source();
    return source;
}

// The words of a family of application keys that hold sessions: a hash of
// sessions whose fields expire one by one is the same structure as one of
// codes, so they do not argue against it.
bool isSessionWord(const QByteArray &word)
{
    return word == "session" || word == "sess" || word == "sid";
}

[[maybe_unused]] const bool s_judged
    = registerJudgement(TokenHashUnit::Kind, {&TokenData::health, {}, {}, {}});

} // namespace

Section TokenHashUnit::section() const
{
    return sections::token();
}

int TokenHashUnit::expiringFields(const KeyShape &s)
{
    return int(std::count_if(s.fieldTtlsMs.cbegin(), s.fieldTtlsMs.cend(),
                             [](qint64 ttl) { return ttl > 0; }));
}

std::optional<KeyClaim> TokenHashUnit::claimKey(const KeyShape &s, qint64) const
{
    // Only servers with per-field expiry were asked for fieldTtlsMs: on the
    // others a hash never carries this evidence and stays what it was.
    if (s.type != "hash" || expiringFields(s) == 0)
        return std::nullopt;
    return KeyClaim{QStringLiteral("token-hash"), 35};
}

QList<PatternObject> TokenHashUnit::groupClaims(ClaimPool &pool) const
{
    return eachWonKey(pool);
}

QList<QByteArray> TokenHashUnit::wordsFor() const
{
    QList<QByteArray> words = TokenFamilyUnit().wordsFor();
    words << "session"
          << "sessions"
          << "pending"
          << "otps";
    return words;
}

QList<QByteArray> TokenHashUnit::wordsAgainst() const
{
    QList<QByteArray> words = ordinaryWords();
    words.removeIf(isSessionWord);
    return words;
}

QList<Evidence> TokenHashUnit::structureEvidence(const PatternObject &o,
                                                 const ClaimPool &pool) const
{
    const ClaimPool::Entry *e = pool.find(o.key);
    const int expiring = e ? expiringFields(e->shape) : 0;
    const int sampled = e ? int(e->shape.fieldTtlsMs.size()) : 0;
    return {{Evidence::Kind::Structure, 3,
             QStringLiteral("a hash whose fields expire one by one (%1 of %2 sampled fields "
                            "carry their own TTL)")
                 .arg(expiring)
                 .arg(sampled)}};
}

QList<PatternUnit::Command> TokenHashUnit::probe(const PatternObject &o, const ProbeContext &) const
{
    return {{"EVAL", sampleProbe(), "1", o.key, QByteArray::number(SampledFields)}};
}

Reading TokenHashUnit::read(const PatternObject &o, const QList<RedisValue> &r,
                            const ProbeContext &c) const
{
    Reading reading;
    reading.atMs = c.nowMs;
    if (r.isEmpty()) // the probe's one reply is missing: nothing is known
        return *failure(o, r, {o.key}, c.nowMs);
    const RedisValue reply = r.value(0);
    if (reply.isError()) {
        const bool wrongType = reply.errorCode() == "GHTYPE";
        reading.status = wrongType ? Reading::Status::WrongType : Reading::Status::Error;
        reading.message = wrongType ? QStringLiteral("\"%1\" is not a hash (%2).")
                                          .arg(printableBytes(o.key), reply.errorMessage())
                                    : QStringLiteral("Reading token hash \"%1\" failed: %2 "
                                                     "(per-field TTLs need Redis 7.4 or later).")
                                          .arg(printableBytes(o.key), reply.errorMessage());
        return reading;
    }
    const QList<RedisValue> &v = reply.elements();
    if (v.size() < 6) {
        reading.status = Reading::Status::Missing;
        reading.message = QStringLiteral("Token hash \"%1\" does not exist (every field expired "
                                         "or was revoked).")
                              .arg(printableBytes(o.key));
        return reading;
    }
    const qint64 fields = v.at(0).toInteger();
    const qint64 sampled = v.at(1).toInteger();
    const qint64 gone = v.at(2).toInteger();
    const qint64 without = v.at(3).toInteger();
    TokenData &tokens = TokenData::in(reading);
    tokens.fields = fields;
    tokens.sampledFields = sampled;
    tokens.minTtlMs = v.at(4).toInteger();
    tokens.maxTtlMs = v.at(5).toInteger();
    // A sample of part of the hash speaks for all of it in proportion.
    // In double, clamped: counts no server holds never overflow.
    const auto scaled = [&](qint64 n) -> qint64 {
        if (sampled <= 0)
            return 0;
        const double v = double(n) * double(fields) / double(sampled);
        return v >= 9.2e18    ? std::numeric_limits<qint64>::max()
               : v <= -9.2e18 ? std::numeric_limits<qint64>::min()
                              : qint64(v);
    };
    const bool whole = sampled >= fields;
    tokens.count = std::max<qint64>(0, saturatingSub(fields, whole ? gone : scaled(gone)));
    tokens.withoutTtl = whole ? without : scaled(without);
    if (!whole)
        reading.message
            = QStringLiteral("TTLs read in a sample of %1 of %2 fields.").arg(sampled).arg(fields);
    else if (tokens.withoutTtl > 0)
        reading.message
            = QStringLiteral("%1 fields have no TTL and never expire.").arg(tokens.withoutTtl);
    if (tokens.count == 0) {
        reading.status = Reading::Status::Missing;
        reading.message
            = QStringLiteral("No live fields in token hash \"%1\".").arg(printableBytes(o.key));
    }
    return reading;
}

qint64 TokenHashUnit::validUntilMs(const PatternObject &, const Reading &r) const
{
    // The soonest field expiry changes the count; a sample of part of the
    // hash does not know the soonest: read every tick.
    if (!r.isOk() || TokenData::of(r).sampledFields < TokenData::of(r).fields)
        return r.atMs;
    if (TokenData::of(r).minTtlMs <= 0)
        return Reading::Forever; // no field expires: only a write changes it
    return saturatingAdd(r.atMs, TokenData::of(r).minTtlMs);
}

QList<Figure> TokenHashUnit::figures() const
{
    return {TokenData::liveTokens()};
}

QList<Column> TokenHashUnit::columns() const
{
    // The token section's columns, by the same headers as a token family's.
    return TokenFamilyUnit::tokenColumns();
}

void TokenHashUnit::writeJson(const ObjectState &, const Reading &r, qint64, QJsonObject &j) const
{
    j.insert(QStringLiteral("count"), double(TokenData::of(r).count));
    j.insert(QStringLiteral("withoutTtl"), double(TokenData::of(r).withoutTtl));
    j.insert(QStringLiteral("minTtlMs"), double(TokenData::of(r).minTtlMs));
    j.insert(QStringLiteral("maxTtlMs"), double(TokenData::of(r).maxTtlMs));
    j.insert(QStringLiteral("fields"), double(TokenData::of(r).fields));
    j.insert(QStringLiteral("sampledFields"), double(TokenData::of(r).sampledFields));
}

QString TokenHashUnit::fieldProblem(const QByteArray &field)
{
    if (field.isEmpty() || field.size() > MaxFieldBytes)
        return QStringLiteral("A token field is 1 to %1 bytes (got %2).")
            .arg(MaxFieldBytes)
            .arg(field.size());
    return {};
}

ScriptCall TokenHashUnit::issue(const QByteArray &hash, const QByteArray &field,
                                const QByteArray &value, qint64 ttlMs, const ServerIdentity &server)
{
    using Cap = ServerIdentity::Capability;
    ScriptCall call;
    call.action = QStringLiteral("token.issue-field");
    call.keys = {hash};
    call.keyRoles = {QStringLiteral("token hash")};
    call.args = {field, value, QByteArray::number(ttlMs)};
    const QString shownHash = printableBytes(hash);
    if (!server.has(Cap::HashFieldExpiry)) {
        // HSET would write a field that HPEXPIRE then cannot expire.
        call.refusal = QStringLiteral("%1 has no per-field expiry (HPEXPIRE: Redis 7.4 or "
                                      "later); no token field can be issued into \"%2\".")
                           .arg(server.displayName(), shownHash);
        return call;
    }
    call.script = server.has(Cap::HashGetSetEx) ? QStringLiteral("token_field_issue_ex")
                                                : QStringLiteral("token_field_issue");
    call.summary = QStringLiteral("Add a token field to hash \"%1\", expiring in %2 s; an "
                                  "existing field is not overwritten.")
                       .arg(shownHash)
                       .arg(ttlMs / 1000);
    call.meaning = [shownHash](const RedisValue &reply) {
        return reply.toInteger() == 1
                   ? ReplyMeaning{true,
                                  QStringLiteral("Issued a token field in \"%1\".").arg(shownHash)}
                   : ReplyMeaning{false, QStringLiteral("The field exists already in \"%1\" (a "
                                                        "collision); nothing was overwritten.")
                                             .arg(shownHash)};
    };
    return call;
}

ScriptCall TokenHashUnit::revoke(const QByteArray &hash, const QByteArray &field)
{
    ScriptCall call;
    call.action = QStringLiteral("token.revoke-field");
    call.script = QStringLiteral("token_field_revoke");
    call.keys = {hash};
    call.keyRoles = {QStringLiteral("token hash")};
    call.args = {field};
    const QString shownHash = printableBytes(hash);
    const QString shownField = printableBytes(field, 80);
    call.summary = QStringLiteral("Delete field \"%1\" of token hash \"%2\"; that token can no "
                                  "longer be used.")
                       .arg(shownField, shownHash);
    call.meaning = [shownHash, shownField](const RedisValue &reply) {
        return reply.toInteger() == 1
                   ? ReplyMeaning{true, QStringLiteral("Revoked field \"%1\" of \"%2\".")
                                            .arg(shownField, shownHash)}
                   : ReplyMeaning{false, QStringLiteral("Field \"%1\" of \"%2\" does not exist "
                                                        "(used, expired or revoked); nothing "
                                                        "changed.")
                                             .arg(shownField, shownHash)};
    };
    return call;
}

QList<PatternAction> TokenHashUnit::actions() const
{
    PatternAction issueAction;
    issueAction.id = QStringLiteral("token.issue-field");
    issueAction.verb = QStringLiteral("issue-field");
    issueAction.label = QStringLiteral("Issue token field…");
    issueAction.objectName = QStringLiteral("issueTokenFieldButton");
    issueAction.usage = QStringLiteral("token issue-field HASH --ttl S [--field F] [--value V]");
    issueAction.targetIsPrefix = true; // a new hash is created by its first field
    ActionInput ttl{QStringLiteral("ttl"), QStringLiteral("Time to live (s)")};
    ttl.integer = true;
    ActionInput field{QStringLiteral("field"), QStringLiteral("Field (empty: a new random token)")};
    field.required = false;
    ActionInput value{QStringLiteral("value"), QStringLiteral("Value")};
    value.required = false;
    issueAction.inputs = {ttl, field, value};
    issueAction.check = [](const ActionRequest &r) -> QString {
        if (QString e = TokenFamilyUnit::ttlProblem(r.integer(QStringLiteral("ttl"))); !e.isEmpty())
            return QStringLiteral("token issue-field --ttl: ") + e;
        if (r.has(QStringLiteral("field")) && !r.input(QStringLiteral("field")).isEmpty()) {
            if (QString e = fieldProblem(r.input(QStringLiteral("field"))); !e.isEmpty())
                return QStringLiteral("--field: ") + e;
        }
        if (r.input(QStringLiteral("value")).size() > TokenFamilyUnit::MaxPayloadBytes)
            return QStringLiteral("--value: at most %1 bytes are accepted.")
                .arg(TokenFamilyUnit::MaxPayloadBytes);
        return QString();
    };
    issueAction.build = [](const ActionRequest &r) {
        QByteArray field = r.input(QStringLiteral("field"));
        const bool generated = field.isEmpty();
        if (generated)
            field = TokenFamilyUnit::newToken();
        ScriptCall call = issue(r.target, field, r.input(QStringLiteral("value")),
                                r.integer(QStringLiteral("ttl")) * 1000, r.server);
        if (generated)
            call.issued = field; // a secret: shown once, never in the audit log
        return call;
    };

    PatternAction revokeAction;
    revokeAction.id = QStringLiteral("token.revoke-field");
    revokeAction.verb = QStringLiteral("revoke-field");
    revokeAction.label = QStringLiteral("Revoke token field…");
    revokeAction.objectName = QStringLiteral("revokeTokenFieldButton");
    revokeAction.usage = QStringLiteral("token revoke-field HASH --field F");
    revokeAction.inputs = {{QStringLiteral("field"), QStringLiteral("Field (the token)")}};
    revokeAction.check = [](const ActionRequest &r) -> QString {
        if (QString e = fieldProblem(r.input(QStringLiteral("field"))); !e.isEmpty())
            return QStringLiteral("--field: ") + e;
        return QString();
    };
    revokeAction.build = [](const ActionRequest &r) {
        return revoke(r.target, r.input(QStringLiteral("field")));
    };
    return {issueAction, revokeAction};
}

} // namespace gatehouse
