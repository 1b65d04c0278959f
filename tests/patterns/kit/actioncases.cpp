// SPDX-License-Identifier: MIT
#include "kit/actioncases.h"

namespace gatehouse::test {

namespace {

using Make = PatternActionRows (*)(const ServerIdentity &);

// Filled by the registrars during static initialisation, read by the test
// functions afterwards (one thread).
QMap<QString, Make> &registry()
{
    static QMap<QString, Make> s_registry;
    return s_registry;
}

} // namespace

ActionRowsRegistrar::ActionRowsRegistrar(const char *pattern, Make make)
{
    Q_ASSERT_X(!registry().contains(QLatin1String(pattern)), "ActionRowsRegistrar",
               "a pattern registers its action rows once");
    registry().insert(QLatin1String(pattern), make);
}

QMap<QString, PatternActionRows> registeredActionRows(const ServerIdentity &server)
{
    QMap<QString, PatternActionRows> out;
    for (auto it = registry().cbegin(); it != registry().cend(); ++it)
        out.insert(it.key(), it.value()(server));
    return out;
}

} // namespace gatehouse::test
