// SPDX-License-Identifier: MIT
// Python limits (limits 2.8): a fixed-window counter and a moving window
// (hit times in epoch seconds), each deleted only while it holds what the
// library writes, with its TTL.
#include "kit/actioncases.h"

#include <patterns/python-limits/pythonlimitsunit.h>

namespace gatehouse::test {
namespace {

PatternActionRows rows(const ServerIdentity &)
{
    PatternObject counter;
    counter.kind = PythonLimitsUnit::Kind;
    counter.key = "LIMITER/api/alice/10/1/minute";
    PatternObject moving;
    moving.kind = PythonLimitsUnit::Kind;
    moving.key = "LIMITER/api/bob/5/1/minute";
    const QByteArray hitAt = QByteArray::number(double(matrixNowMs()) / 1000.0, 'f', 6);
    PatternActionRows r;
    r.cases.append({QStringLiteral("limiter.reset limits fixed"),
                    {counter.key},
                    {{{"SET", counter.key, "4", "EX", "60"}}},
                    {{{"SET", counter.key, "<html>cached page</html>", "EX", "60"}}},
                    {"string"},
                    [counter] {
                        return PythonLimitsUnit::resetCall(counter, "string");
                    }});
    r.cases.append({QStringLiteral("limiter.reset limits moving"),
                    {moving.key},
                    {{{"LPUSH", moving.key, hitAt, hitAt}, {"EXPIRE", moving.key, "60"}}},
                    {{{"LPUSH", moving.key, "jobA", "jobB"}, {"EXPIRE", moving.key, "60"}}},
                    {"list"},
                    [moving] {
                        return PythonLimitsUnit::resetCall(moving, "list");
                    }});
    return r;
}

const ActionRowsRegistrar s_registrar("python-limits", &rows);

} // namespace
} // namespace gatehouse::test
