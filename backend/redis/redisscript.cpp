// SPDX-License-Identifier: MIT
#include "redisscript.h"

#include <QCryptographicHash>
#include <QDirIterator>
#include <QFile>
#include <QHash>

namespace gatehouse {

RedisScript::RedisScript(QString name, QByteArray source)
    : m_name(std::move(name))
    , m_source(std::move(source))
    , m_sha1(QCryptographicHash::hash(m_source, QCryptographicHash::Sha1).toHex())
{}

QString RedisScript::resourcePath(const QString &name)
{
    // lua/<pattern>/<name>.lua: names are unique across the folders (the
    // build checks it), so the name alone finds the file.
    static const QHash<QString, QString> s_paths = [] {
        QHash<QString, QString> paths;
        QDirIterator it(QStringLiteral(":/lua"), {QStringLiteral("*.lua")}, QDir::Files,
                        QDirIterator::Subdirectories);
        while (it.hasNext()) {
            const QString path = it.next();
            paths.insert(it.fileInfo().completeBaseName(), path);
        }
        return paths;
    }();
    return s_paths.value(name);
}

RedisScript RedisScript::fromResource(const QString &name)
{
    QFile file(resourcePath(name));
    if (!file.open(QIODevice::ReadOnly)) {
        Q_ASSERT_X(false, "RedisScript::fromResource", qPrintable(name));
        return {};
    }
    return RedisScript(name, file.readAll());
}

} // namespace gatehouse
