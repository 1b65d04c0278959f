// SPDX-License-Identifier: MIT
// Tokens kept as the fields of one hash: revoke one field; issue one with
// its own expiry where the server has per-field expiry (elsewhere
// tst_tokenhashabsent checks it is refused).
#include "kit/actioncases.h"

#include <patterns/token-hash/tokenhashunit.h>

#include "redisserver.h"

#include <QTest>

namespace gatehouse::test {
namespace {

PatternActionRows rows(const ServerIdentity &server)
{
    PatternActionRows r;
    r.cases.append({QStringLiteral("token.revoke-field"),
                    {"otp:pending"},
                    {{{"HSET", "otp:pending", "tok-5f2a9c", "user:1"}}},
                    {{{"HSET", "otp:pending", "tok-other", "user:2"}}},
                    {"hash"},
                    [] {
                        return TokenHashUnit::revoke("otp:pending", "tok-5f2a9c");
                    }});
    if (server.has(ServerIdentity::Capability::HashFieldExpiry))
        r.cases.append(
            {QStringLiteral("token.issue-field"),
             {"otp:pending"},
             {{{"HSET", "otp:pending", "tok-other", "user:2"}}},
             {{{"HSET", "otp:pending", "tok-5f2a9c", "user:1"}}}, // a collision
             {"hash"},
             [server] {
                 return TokenHashUnit::issue("otp:pending", "tok-5f2a9c", "user:3", 90000, server);
             },
             [](const ActionCaseRun &r) {
                 if (r.out.result != ActionOutcome::Result::Done)
                     return;
                 const RedisValue ttl
                     = call(r.client, {"HPTTL", r.target, "FIELDS", "1", "tok-5f2a9c"});
                 QVERIFY2(ttl.at(0).toInteger() > 60000, qPrintable(ttl.at(0).errorMessage()));
                 QCOMPARE(call(r.client, {"HGET", r.target, "tok-5f2a9c"}).bytes(),
                          QByteArray("user:3"));
             }});
    return r;
}

const ActionRowsRegistrar s_registrar("token-hash", &rows);

} // namespace
} // namespace gatehouse::test
