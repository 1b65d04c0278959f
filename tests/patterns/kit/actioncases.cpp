// SPDX-License-Identifier: MIT
#include "kit/actioncases.h"

#include "redisserver.h"

#include <algorithm>

namespace gatehouse::test {

namespace {

using Make = std::function<PatternActionRows(const ServerIdentity &)>;

// Filled by the registrars during static initialisation, read by the test
// functions afterwards (one thread).
QMap<QString, Make> &registry()
{
    static QMap<QString, Make> s_registry;
    return s_registry;
}

void add(const char *pattern, Make make)
{
    Q_ASSERT_X(!registry().contains(QLatin1String(pattern)), "ActionRowsRegistrar",
               "a pattern registers its action rows once");
    registry().insert(QLatin1String(pattern), std::move(make));
}

} // namespace

ActionRowsRegistrar::ActionRowsRegistrar(const char *pattern,
                                         PatternActionRows (*make)(const ServerIdentity &))
{
    add(pattern, make);
}

ActionRowsRegistrar::ActionRowsRegistrar(const char *pattern, const char *conventionalKey)
{
    add(pattern, [key = QByteArray(conventionalKey)](const ServerIdentity &) {
        PatternActionRows rows;
        rows.conventionalKey = key;
        return rows;
    });
}

QMap<QString, PatternActionRows> registeredActionRows(const ServerIdentity &server)
{
    QMap<QString, PatternActionRows> out;
    for (auto it = registry().cbegin(); it != registry().cend(); ++it)
        out.insert(it.key(), it.value()(server));
    return out;
}

QList<QByteArray> listItems(RedisClient &client, const QList<QByteArray> &keys)
{
    QList<QByteArray> items;
    for (const QByteArray &k : keys) {
        if (call(client, {"TYPE", k}).bytes() != "list")
            continue;
        const RedisValue range = call(client, {"LRANGE", k, "0", "-1"});
        for (const RedisValue &v : range.elements())
            items << v.bytes();
    }
    std::sort(items.begin(), items.end());
    return items;
}

int countInList(RedisClient &client, const QByteArray &key, const QByteArray &item)
{
    if (call(client, {"TYPE", key}).bytes() != "list")
        return 0;
    int n = 0;
    const RedisValue range = call(client, {"LRANGE", key, "0", "-1"});
    for (const RedisValue &v : range.elements())
        n += v.bytes() == item ? 1 : 0;
    return n;
}

} // namespace gatehouse::test
