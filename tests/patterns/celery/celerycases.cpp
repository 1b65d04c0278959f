// SPDX-License-Identifier: MIT
// Celery on kombu's Redis transport: a deployment is one queue object.
#include "celeryshapes.h"
#include "kit/shapecases.h"

namespace gatehouse::test {
namespace {

PatternShapes shapes()
{
    const double now = double(ShapeNowMs);
    PatternShapes p;
    p.sample = celeryShapes(now);

    // Its bindings, unacked keys, mutex and results are not sets, windows,
    // locks or tokens; an app's own lock beside it stays a lock.
    p.cases << objectsCase(
        "deployment is one queue",
        celeryShapes(now)
            + QList<KeyShape>{stringShape("app:order:7:lock", "3f9a1c2e-77b1-4c1d", 30000)},
        {"celery celery", "lock app:order:7:lock"});
    // A lone "unacked" hash without kombu's keys is not taken.
    ShapeCase lone;
    lone.name = "lone unacked hash is not Celery";
    lone.shapes = {sizedShape("unacked", "hash", 1)};
    lone.absent = QStringList{"celery *"};
    p.cases << lone;
    return p;
}

const ShapeRegistrar s_registrar("celery", &shapes);

} // namespace
} // namespace gatehouse::test
