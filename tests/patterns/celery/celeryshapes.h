// SPDX-License-Identifier: MIT
#pragma once

#include "keyshapes.h"

namespace gatehouse::test {

// A Celery 5 deployment on kombu 5's Redis transport as a worker leaves it
// (tst_lib_celery reads a live one): the default queue "celery" and a
// priority sub-list, its binding and the worker's pidbox and event
// bindings, one unacked message scored by its delivery time in seconds, the
// restore mutex, and a result of the Redis result backend.
inline QList<KeyShape> celeryShapes(double nowMs)
{
    const double s = nowMs / 1000;
    return {sizedShape("_kombu.binding.celery", "set", 1),
            sizedShape("_kombu.binding.celeryev", "set", 2),
            sizedShape("_kombu.binding.celery.pidbox", "set", 1),
            listShape("celery"),
            listShape(QByteArray("celery\x06\x16") + '9'),
            sizedShape("unacked", "hash", 1),
            zsetShape("unacked_index", s - 4000, s - 4000),
            stringShape("unacked_mutex", "8d3c1a2e5b7f4c1d9e2a77b1f0c3d4e5", 290000),
            stringShape("celery-task-meta-e907e370-ed3b-4042-b334-95f979e802dd",
                        "{\"status\": \"SUCCESS\", \"result\": \"job\"", 86000000)};
}

} // namespace gatehouse::test
