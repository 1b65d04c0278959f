# SPDX-License-Identifier: MIT
# RQ's own producer, worker and API for tests/integration/tst_lib_rq.cpp
# (Debian python3-rq, or an RQ 2 checkout on PYTHONPATH; run with /usr/bin/python3).
#   rq_app.py URL QUEUE produce-blocking ID   a job that blocks on its first run
#   rq_app.py URL QUEUE produce-failing ID    a job that fails on its first run
#   rq_app.py URL QUEUE produce ID            a job that just runs
#   rq_app.py URL QUEUE work                  a SimpleWorker, burst (prints "working")
#   rq_app.py URL QUEUE state ID              the job's status, by RQ
#   rq_app.py URL QUEUE counts                every count, by RQ's own API (JSON)
#   rq_app.py URL QUEUE times                 the finished and failed jobs' enqueued_at,
#                                             started_at and ended_at as RQ's Job reads
#                                             them (epoch ms), and the queued jobs' (JSON)
# Every job appends its id to the list "ran" when it completes and counts its
# runs in the hash "runs"; the blocking job appends to "taken" when it starts
# the run that blocks.
# The worker is a SimpleWorker: it runs the job in its own process, so a
# kill -9 of it stops the job too (a forking Worker's work horse would live
# on, then time out and fail the job by itself).
import calendar
import json
import sys
import time

import redis
from rq import Queue, SimpleWorker, get_current_job
from rq.job import Job
from rq.registry import (CanceledJobRegistry, DeferredJobRegistry, FailedJobRegistry,
                         FinishedJobRegistry, ScheduledJobRegistry, StartedJobRegistry)


def block():
    job = get_current_job()
    c = job.connection
    if c.hincrby('runs', job.id, 1) == 1:
        c.rpush('taken', job.id)
        time.sleep(3600)
    c.rpush('ran', job.id)


def fail_once():
    job = get_current_job()
    c = job.connection
    if c.hincrby('runs', job.id, 1) == 1:
        raise RuntimeError('failing once, as asked')
    c.rpush('ran', job.id)


def just_run():
    job = get_current_job()
    job.connection.rpush('ran', job.id)


def main():
    url, name, command = sys.argv[1], sys.argv[2], sys.argv[3]
    arg = sys.argv[4] if len(sys.argv) > 4 else None
    conn = redis.Redis.from_url(url)
    q = Queue(name, connection=conn)
    if command == 'produce-blocking':
        # A short timeout: its started-registry expiry is timeout + 60 s
        # (Worker.get_heartbeat_ttl) after a worker takes it.
        q.enqueue('rq_app.block', job_id=arg, job_timeout=2)
    elif command == 'produce-failing':
        q.enqueue('rq_app.fail_once', job_id=arg, job_timeout=30)
    elif command == 'produce':
        q.enqueue('rq_app.just_run', job_id=arg, job_timeout=30)
    elif command == 'work':
        worker = SimpleWorker([q], connection=conn)
        print('working', flush=True)
        worker.work(burst=True)
    elif command == 'state':
        # RQ 2 prints its JobStatus enum as "JobStatus.QUEUED": its value.
        status = Job.fetch(arg, connection=conn).get_status()
        print(getattr(status, 'value', status))
    elif command == 'counts':
        # Registry counts run RQ's cleanup (the started registry's moves
        # abandoned jobs to failed): only asked once the test is done with them.
        print(json.dumps({
            'queued': q.count,
            'started': StartedJobRegistry(queue=q).count,
            'finished': FinishedJobRegistry(queue=q).count,
            'failed': FailedJobRegistry(queue=q).count,
            'scheduled': ScheduledJobRegistry(queue=q).count,
            'deferred': DeferredJobRegistry(queue=q).count,
            'canceled': CanceledJobRegistry(queue=q).count,
            'finishedIds': sorted(FinishedJobRegistry(queue=q).get_job_ids()),
            'canceledIds': sorted(CanceledJobRegistry(queue=q).get_job_ids()),
            'queuedIds': q.job_ids,
        }))
    elif command == 'times':
        def ms(t):
            if t is None:
                return -1
            return calendar.timegm(t.utctimetuple()) * 1000 + t.microsecond // 1000

        def times(ids):
            out = []
            for job in Job.fetch_many(ids, connection=conn):
                if job is not None:
                    out.append({'id': job.id, 'enqueued': ms(job.enqueued_at),
                                'started': ms(job.started_at), 'ended': ms(job.ended_at)})
            return out
        print(json.dumps({
            'finished': times(FinishedJobRegistry(queue=q).get_job_ids()
                              + FailedJobRegistry(queue=q).get_job_ids()),
            'queued': times(q.job_ids),
        }))
    elif command == 'exists':
        print('true' if Job.exists(arg, connection=conn) else 'false')
    else:
        sys.exit('unknown command ' + command)


if __name__ == '__main__':
    main()
