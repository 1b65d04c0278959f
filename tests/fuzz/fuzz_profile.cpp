// SPDX-License-Identifier: MIT
// libFuzzer target: Profile::fromJson on arbitrary bytes. Properties: no
// crash; a refused profile says why; a parsed profile's toJson() parses again
// to an equivalent profile (same rules, field by field, and the same JSON);
// objectFor() on keys derived from the input and from the rules never crashes
// and gives an object of a rule's kind.

#include "fuzzcheck.h"

#include <monitor/profile.h>
#include <patterns/patternregistry.h>

using namespace gatehouse;

namespace {

void checkEquivalent(const Profile &a, const Profile &b, const QByteArray &json)
{
    const QString what = QString::fromUtf8(json.left(300));
    GATEHOUSE_FUZZ_CHECK(a.name == b.name, what);
    GATEHOUSE_FUZZ_CHECK(a.rules.size() == b.rules.size(), what);
    for (qsizetype i = 0; i < a.rules.size(); ++i) {
        const ProfileRule &x = a.rules.at(i);
        const ProfileRule &y = b.rules.at(i);
        // Every field: a pattern reads only the fields it writes back
        // (PatternUnit::parseRule / writeRule), so all of them survive.
        GATEHOUSE_FUZZ_CHECK(x.kind == y.kind, what);
        GATEHOUSE_FUZZ_CHECK(x.prefix == y.prefix, what);
        GATEHOUSE_FUZZ_CHECK(x.match == y.match, what);
        GATEHOUSE_FUZZ_CHECK(x.exclude == y.exclude, what);
        GATEHOUSE_FUZZ_CHECK(x.params.limit == y.params.limit, what);
        GATEHOUSE_FUZZ_CHECK(x.params.windowMs == y.params.windowMs, what);
        GATEHOUSE_FUZZ_CHECK(x.params.scoreUnitMs == y.params.scoreUnitMs, what);
        GATEHOUSE_FUZZ_CHECK(x.params.stuckAfterMs == y.params.stuckAfterMs, what);
        GATEHOUSE_FUZZ_CHECK(x.params.pageSize == y.params.pageSize, what);
        GATEHOUSE_FUZZ_CHECK(x.params.countField == y.params.countField, what);
        GATEHOUSE_FUZZ_CHECK(x.consumerLimit == y.consumerLimit, what);
        GATEHOUSE_FUZZ_CHECK(x.consumerMarker == y.consumerMarker, what);
        GATEHOUSE_FUZZ_CHECK(x.retryKey == y.retryKey, what);
        GATEHOUSE_FUZZ_CHECK(x.processingKey == y.processingKey, what);
        GATEHOUSE_FUZZ_CHECK(x.claimsKey == y.claimsKey, what);
        GATEHOUSE_FUZZ_CHECK(x.deadKey == y.deadKey, what);
        GATEHOUSE_FUZZ_CHECK(x.counted == y.counted, what);
    }
}

void checkObjectFor(const Profile &p, const QByteArray &key)
{
    const std::optional<PatternObject> o = p.objectFor(key);
    if (!o)
        return;
    bool ruleKind = false;
    for (const ProfileRule &r : p.rules)
        ruleKind |= r.kind == o->kind;
    GATEHOUSE_FUZZ_CHECK(ruleKind, QString::fromUtf8(key));
    (void)o->keys();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QByteArray json(reinterpret_cast<const char *>(data), qsizetype(size));
    QString error;
    const std::optional<Profile> p = Profile::fromJson(json, QStringLiteral("fuzz.json"), &error);
    if (!p) {
        GATEHOUSE_FUZZ_CHECK(!error.isEmpty(), QString::fromUtf8(json.left(300)));
        return 0;
    }
    const QByteArray out = p->toJson();
    const std::optional<Profile> again
        = Profile::fromJson(out, QStringLiteral("again.json"), &error);
    GATEHOUSE_FUZZ_CHECK(again.has_value(), error + QString::fromUtf8(out.left(300)));
    checkEquivalent(*p, *again, json);
    GATEHOUSE_FUZZ_CHECK(again->toJson() == out, QString::fromUtf8(out.left(300)));
    (void)p->scanGlob();

    // Keys: the rules' own globs and templates filled in with pieces of the
    // input, and the pieces themselves. Few of each: every objectFor() call
    // matches against all rules, and executions per second matter here.
    QList<QByteArray> pieces{QByteArray(), json.left(8), json.right(8)};
    for (qsizetype i = 0; i + 4 <= json.size() && pieces.size() < 5; i += qMax(4, int(size) / 2))
        pieces.append(json.mid(i, 8));
    // Matching is O(pattern x key x class length): a profile of dozens of
    // rules of long globs full of [classes] took milliseconds per input.
    // objectFor() is probed on profiles of a realistic size only.
    qsizetype globBytes = 0;
    for (const ProfileRule &r : p->rules) {
        globBytes += r.match.size();
        for (const QByteArray &e : r.exclude)
            globBytes += e.size();
    }
    if (p->rules.size() > 8 || globBytes > 256)
        return 0;
    int checked = 0;
    for (const ProfileRule &r : p->rules) {
        if (++checked > 4)
            break;
        for (const QByteArray &piece : std::as_const(pieces)) {
            QByteArray key = r.match;
            key.replace('*', piece).replace('?', piece.left(1));
            key.truncate(64); // a rule of a hundred '*' filled in with pieces
            checkObjectFor(*p, key);
            checkObjectFor(*p, r.prefix + piece);
            checkObjectFor(*p, piece);
            for (const QByteArray &t : {r.retryKey, r.processingKey, r.claimsKey, r.deadKey}) {
                if (!t.isEmpty()) {
                    const QByteArray related = applyTemplate(t, key);
                    checkObjectFor(*p, related);
                    (void)baseOfTemplate(t, related);
                    (void)baseOfTemplate(t, piece);
                }
            }
            checkObjectFor(*p, key + r.consumerMarker + piece);
        }
        (void)r.scanGlob();
    }
    return 0;
}
