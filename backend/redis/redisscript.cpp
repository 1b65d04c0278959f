// SPDX-License-Identifier: MIT
#include "redisscript.h"

#include <QCryptographicHash>
#include <QFile>

namespace gatehouse {

RedisScript::RedisScript(QString name, QByteArray source)
    : m_name(std::move(name))
    , m_source(std::move(source))
    , m_sha1(QCryptographicHash::hash(m_source, QCryptographicHash::Sha1).toHex())
{}

RedisScript RedisScript::fromResource(const QString &name)
{
    QFile file(QStringLiteral(":/lua/") + name + QStringLiteral(".lua"));
    if (!file.open(QIODevice::ReadOnly)) {
        Q_ASSERT_X(false, "RedisScript::fromResource", qPrintable(name));
        return {};
    }
    return RedisScript(name, file.readAll());
}

} // namespace gatehouse
