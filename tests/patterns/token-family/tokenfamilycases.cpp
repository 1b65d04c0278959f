// SPDX-License-Identifier: MIT
// Token families: keys of one prefix holding tokens that expire, or hashes
// counting their uses ("used_by"), grouped by prefix.
#include "keyshapes.h"
#include "kit/shapecases.h"

namespace gatehouse::test {
namespace {

KeyShape countedToken(const QByteArray &key)
{
    KeyShape s = sizedShape(key, "hash", 3);
    s.hashFields.insert("used_by", "0");
    return s;
}

PatternShapes shapes()
{
    PatternShapes p;
    p.sample
        = {stringShape("code:x7Kp2mQ9zA", "{}", 60000), stringShape("code:0aZ9bY8cX7", "{}", 60000),
           countedToken("user_token:0an3dks7000xcj201ls")};

    p.cases << profileCase("token families",
                           {stringShape("code:x7Kp2mQ9zA", "{\"user\":1}", 60000),
                            stringShape("code:0aZ9bY8cX7", "{\"user\":2}", 60000),
                            countedToken("user_token:0an3dks7000xcj201ls"),
                            countedToken("user_token:1bm4elt8111ydk312mt")},
                           {"token-family code: [] window=0ms unit=1ms "
                            "members=code:0aZ9bY8cX7,code:x7Kp2mQ9zA",
                            "token-family user_token: [] window=0ms unit=1ms "
                            "members=user_token:0an3dks7000xcj201ls,"
                            "user_token:1bm4elt8111ydk312mt counted"},
                           {R"({"pattern":"token-family","prefix":"code:"})",
                            R"({"countField":"used_by","counted":true,"pattern":"token-family",)"
                            R"("prefix":"user_token:"})"});

    QList<KeyShape> codes;
    for (const char *id : {"3fa9c1", "0b7e22", "483920", "c0ffee", "9d1e07"})
        codes << stringShape(QByteArray("code:") + id, "{\"user\":1}", 60000);
    p.cases << evidenceCase("one-time codes with a short suffix (one of digits)", codes,
                            {"token-family code:"}, {}, "\"code\" in its name");
    QList<KeyShape> refs;
    for (const char *id : {"3fa9c1", "0b7e22", "c0ffee", "9d1e07"})
        refs << stringShape(QByteArray("ref:") + id, "{\"to\":\"/home\"}", 60000);
    p.cases << evidenceCase("ids that expire, no word: only a candidate", refs, {},
                            {"token-family ref:{hex} 1"}, "expiring");
    QList<KeyShape> pages;
    for (const char *id : {"3fa9c1d2", "0b7e22aa", "c0ffee11", "9d1e07bb"})
        pages << stringShape(QByteArray("page:") + id, "<html>", 60000);
    p.cases << evidenceCase("page cache keyed by a hash is no token family", pages, {}, {}, {});
    return p;
}

const ShapeRegistrar s_registrar("token-family", &shapes);

} // namespace
} // namespace gatehouse::test
