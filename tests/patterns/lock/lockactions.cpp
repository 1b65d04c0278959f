// SPDX-License-Identifier: MIT
// Locks: force-release and extend, each only while the key holds the token
// the console showed.
#include "kit/actioncases.h"

#include <patterns/lock/lockunit.h>

#include "redisserver.h"

#include <QTest>

namespace gatehouse::test {
namespace {

PatternActionRows rows(const ServerIdentity &)
{
    PatternObject lock;
    lock.kind = PatternKind("lock");
    lock.key = "lock:x";
    PatternActionRows r;
    r.cases.append({QStringLiteral("lock.force-release"),
                    {"lock:x"},
                    {{{"SET", "lock:x", "tok-5f2a9c", "PX", "60000"}}},
                    {{{"SET", "lock:x", "tok-someone-else", "PX", "60000"}}},
                    {"string"},
                    [lock] {
                        return LockUnit::forceRelease(lock, "tok-5f2a9c");
                    }});
    r.cases.append({QStringLiteral("lock.extend"),
                    {"lock:x"},
                    {{{"SET", "lock:x", "tok-5f2a9c", "PX", "60000"}}},
                    {{{"SET", "lock:x", "tok-someone-else", "PX", "60000"}}},
                    {"string"},
                    [lock] { return LockUnit::extend(lock, "tok-5f2a9c", 90000); },
                    [](const ActionCaseRun &r) {
                        if (r.out.result == ActionOutcome::Result::Done)
                            QVERIFY(call(r.client, {"PTTL", r.target}).toInteger() > 60000);
                    }});
    return r;
}

const ActionRowsRegistrar s_registrar("lock", &rows);

} // namespace
} // namespace gatehouse::test
