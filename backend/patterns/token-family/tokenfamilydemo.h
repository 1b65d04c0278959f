// SPDX-License-Identifier: MIT
#pragma once

#include <patterns/demotraffic.h>

namespace gatehouse {

// The one-time tokens of the demo, in two families: string codes
// ("<prefix>code:<id>", about one a second per scale, issued with
// token_issue.lua, 70 % consumed with token_consume.lua within 10 s) and
// counted hash tokens ("<prefix>user_token:<id>", one every 2 s, "used_by"
// counted by token_consume_counted.lua; a fifth of the consumers try a second
// use, which the script refuses). Both live 120 s.
class TokenFamilyDemo final : public DemoTraffic
{
public:
    static constexpr qint64 TtlS = 120;

    explicit TokenFamilyDemo(quint32 seed);

    void tick(DemoDriver &driver) override;
    QList<Instance> instances(const DemoDriver &driver) const override { return {}; }
    QList<QByteArray> families(const DemoDriver &driver) const override;

private:
    QRandomGenerator m_rng;
};

} // namespace gatehouse
