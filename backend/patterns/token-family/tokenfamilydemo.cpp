// SPDX-License-Identifier: MIT
#include "tokenfamilydemo.h"

namespace gatehouse {

TokenFamilyDemo::TokenFamilyDemo(quint32 seed)
    : m_rng(seed)
{}

void TokenFamilyDemo::tick(DemoDriver &d)
{
    const QByteArray ttl = QByteArray::number(TtlS);
    for (int i = 0; i < d.scale(); ++i) {
        if (m_rng.generateDouble() < 0.1 * d.rate() || d.tick() == 1) {
            const QByteArray key = d.prefix() + "code:" + DemoDriver::randomId(m_rng);
            const QByteArray value
                = "{\"user\":" + QByteArray::number(m_rng.bounded(10000)) + ",\"scope\":\"login\"}";
            d.send(QStringLiteral("token_issue"), {key}, {value, ttl});
            if (m_rng.generateDouble() < 0.7) {
                d.schedule(10 + m_rng.bounded(90),
                           [&d, key] { d.send(QStringLiteral("token_consume"), {key}, {}); });
            }
        }
        if (m_rng.generateDouble() < 0.05 * d.rate() || d.tick() == 1) {
            const QByteArray key = d.prefix() + "user_token:" + DemoDriver::randomId(m_rng);
            d.sendCommands(
                {{"MULTI"},
                 {"HSET", key, "used_by", "0", "user", QByteArray::number(m_rng.bounded(10000))},
                 {"EXPIRE", key, ttl},
                 {"EXEC"}});
            if (m_rng.generateDouble() < 0.6) {
                const int uses = m_rng.generateDouble() < 0.2 ? 2 : 1; // some try a second use
                d.schedule(10 + m_rng.bounded(90), [&d, key, uses] {
                    for (int u = 0; u < uses; ++u)
                        d.send(QStringLiteral("token_consume_counted"), {key}, {"used_by", "1"});
                });
            }
        }
    }
}

QList<QByteArray> TokenFamilyDemo::families(const DemoDriver &d) const
{
    return {d.prefix() + "code:", d.prefix() + "user_token:"};
}

} // namespace gatehouse
