// SPDX-License-Identifier: MIT
// Sidekiq: a deployment is one object per namespace, keyed by its queues
// SET, with every key of it.
#include "kit/shapecases.h"
#include "sidekiqshapes.h"

namespace gatehouse::test {
namespace {

PatternShapes shapes()
{
    const double now = double(ShapeNowMs);
    PatternShapes p;
    p.sample = sidekiqShapes("", now);

    // Its sets are not sliding windows, its counters not fixed windows or
    // tokens, its heartbeat hashes not token families. An application's own
    // "queues" SET, "retry" ZSET and lock with nothing of Sidekiq beside
    // them keep their own pattern (or none).
    ShapeCase c = objectsCase(
        "deployments are one object each",
        sidekiqShapes("", now) + sidekiqShapes("myapp:", now)
            + QList<KeyShape>{stringShape("app:order:7:lock", "3f9a1c2e-77b1-4c1d", 30000),
                              zsetShape("other:retry", now + 100, now + 3000)},
        {"lock app:order:7:lock", "sidekiq myapp:queues", "sidekiq queues",
         "sliding-window other"});
    for (const QByteArray &ns : {QByteArray(), QByteArray("myapp:")})
        c.members.insert(QStringLiteral("sidekiq ") + QString::fromUtf8(ns + "queues"),
                         {ns + "queue:default", ns + "web-1:4242:8266484eb2cf"});
    p.cases << c;
    return p;
}

const ShapeRegistrar s_registrar("sidekiq", &shapes);

} // namespace
} // namespace gatehouse::test
