// SPDX-License-Identifier: MIT
#include "matchcounter.h"

#include <QHash>
#include <QMutex>

#include <memory>

namespace gatehouse {

namespace {

struct Counters
{
    QMutex mutex; // registrations run at static initialisation, reads on any thread
    QHash<QString, std::shared_ptr<const MatchCounter>> byScript; // guarded by mutex
};

Counters &counters()
{
    static Counters c;
    return c;
}

} // namespace

bool MatchCounter::add(const QString &script, MatchCounter counter)
{
    Counters &c = counters();
    const QMutexLocker lock(&c.mutex);
    c.byScript.insert(script, std::make_shared<const MatchCounter>(std::move(counter)));
    return true;
}

const MatchCounter *MatchCounter::of(const ScriptCall &call)
{
    Counters &c = counters();
    const QMutexLocker lock(&c.mutex);
    const auto it = c.byScript.constFind(call.script);
    // Entries are never removed or replaced once read: the pointer stays valid.
    return it == c.byScript.cend() ? nullptr : it->get();
}

} // namespace gatehouse
