// SPDX-License-Identifier: MIT
#pragma once

#include <QByteArray>
#include <QString>

namespace gatehouse {

// A Lua script Gatehouse runs: its source (embedded from lua/ as the resource
// ":/lua/<name>.lua") and its SHA1, computed locally so the first call can be
// EVALSHA without a SCRIPT LOAD round trip. Inputs go only through KEYS/ARGV.
class RedisScript
{
public:
    RedisScript() = default;
    RedisScript(QString name, QByteArray source);

    // ":/lua/<pattern>/<name>.lua" (lua/ has one folder per pattern); empty
    // when no script has that name.
    static QString resourcePath(const QString &name);
    // Loads ":/lua/<pattern>/<name>.lua". A missing resource is a build error, so this
    // asserts in debug builds and returns an invalid script otherwise.
    static RedisScript fromResource(const QString &name);

    bool isValid() const { return !m_source.isEmpty(); }
    const QString &name() const { return m_name; }
    const QByteArray &source() const { return m_source; }
    const QByteArray &sha1() const { return m_sha1; } // lower-case hex, as Redis prints it

private:
    QString m_name;
    QByteArray m_source;
    QByteArray m_sha1;
};

} // namespace gatehouse
