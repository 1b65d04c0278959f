# SPDX-License-Identifier: MIT
"""A small Celery 5 application for tst_lib_celery (Redis broker, kombu's
Redis transport), driven as the test's real producer and worker.

Environment: GATEHOUSE_CELERY_URL (redis://127.0.0.1:PORT/0) and
GATEHOUSE_CELERY_VISIBILITY (the transport's visibility_timeout, seconds).

    python3 celery_app.py produce [LABEL [QUEUE]]  -> prints the task id
    python3 celery_app.py result ID        -> prints the task's state and result
    python3 -m celery -A celery_app worker --pool=solo ...

The task "work" RPUSHes its id to the list "ran" when it runs; while the
key "hold" exists it first sets "started" to its id and blocks, so a worker
can be killed in the middle of it (acks_late: its message stays unacked).
"""
import os
import sys
import time

import redis
from celery import Celery

URL = os.environ.get("GATEHOUSE_CELERY_URL", "redis://127.0.0.1:6379/0")
VISIBILITY = float(os.environ.get("GATEHOUSE_CELERY_VISIBILITY", "3600"))

app = Celery("celery_app", broker=URL, backend=URL)
app.conf.update(
    task_acks_late=True,
    worker_prefetch_multiplier=1,
    broker_transport_options={"visibility_timeout": VISIBILITY},
    result_expires=3600,
    worker_hijack_root_logger=False,
)

_redis = redis.Redis.from_url(URL)


@app.task(bind=True, name="celery_app.work")
def work(self, label):
    if _redis.exists("hold"):
        _redis.set("started", self.request.id)
        while True:
            time.sleep(1)
    _redis.rpush("ran", self.request.id)
    return label


def main(argv):
    if argv[1] == "produce":
        label = argv[2] if len(argv) > 2 else "job"
        if len(argv) > 3:
            print(work.apply_async((label,), queue=argv[3]).id)
        else:
            print(work.delay(label).id)
    elif argv[1] == "result":
        r = app.AsyncResult(argv[2])
        print(r.state, r.result if r.ready() else "")
    else:
        sys.exit("usage: celery_app.py produce [LABEL [QUEUE]] | result ID")


if __name__ == "__main__":
    main(sys.argv)
