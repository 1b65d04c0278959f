// A real BullMQ application for Gatehouse's integration tests
// (tests/integration/tst_libraries.cpp): producer, worker and the library's
// own view of a queue, with the BullMQ major the test names.
//
//   node bullmq-app.js MODULE REDIS_URL QUEUE COMMAND [ARG]
//   MODULE   bullmq (6) or bullmq5
//   BULL_PREFIX (env) the prefix, "bull" by default; BULL_CLUSTER=1 (env) the
//   server is a Cluster node
//   produce N          add jobs "job-1".."job-N" (name "work", data {n})
//   produce-delayed N  add N jobs delayed by an hour (DELAY_MS: by that)
//   produce-failing N  add N jobs a worker fails on their first attempt
//                      (ids from JOB_ID_BASE+1 when that is set)
//   produce-one ID     add one job with that id
//   produce-big BYTES  add job "big-1", data {customerId: 4411, blob of BYTES}
//   produce-timed N MS add jobs "timed-1".."timed-N" that run for MS ms each
//   paused             print whether the library sees the queue paused
//   work LOG           run jobs: each run appends "<id>" to the Redis list LOG
//                      (RPUSH), so a test counts how often each job ran
//   hang               take one job and never finish it (the test kills us)
//   counts             print the library's own job counts as JSON
//   state ID           print a job's state as the library sees it
//   times              every finished job's times as the library's Job reads
//                      them ({"finished": [{id, timestamp, delay, processedOn,
//                      finishedOn}]}) and the waiting jobs' ({"waiting": [...]})
//   search-data N      the library's own way to find a job by its data: every
//                      completed job read with Queue#getJobs, 1000 at a time,
//                      data.n compared; prints {"matched", "scanned", "ms"}
'use strict';
const [, , moduleName, url, queueName, command, arg] = process.argv;
const { Queue, Worker } = require(moduleName === 'bullmq5' ? 'bullmq5' : 'bullmq');
const IORedis = require('ioredis');
const parsed = new URL(url);
const node = { host: parsed.hostname, port: Number(parsed.port) };
// BULL_CLUSTER=1: the server is a node of a Cluster, reached as BullMQ's
// documentation says (an ioredis Cluster; the prefix in braces, {bull}).
const clustered = process.env.BULL_CLUSTER === '1';
const connection = clustered
  ? new IORedis.Cluster([node], { redisOptions: { maxRetriesPerRequest: null } })
  : { ...node, maxRetriesPerRequest: null };
const prefix = process.env.BULL_PREFIX || 'bull';

async function main() {
  const queue = new Queue(queueName, { connection, prefix });
  await queue.waitUntilReady();
  switch (command) {
    case 'produce':
    case 'produce-delayed':
    case 'produce-failing':
      // JOB_ID_BASE: ids from base+1, for a second batch in the same queue.
      const base = Number(process.env.JOB_ID_BASE || 0);
      for (let n = base + 1; n <= base + Number(arg); ++n) {
        const opts = { jobId: `${command === 'produce' ? 'job' : command.slice(8)}-${n}` };
        if (command === 'produce-delayed') opts.delay = Number(process.env.DELAY_MS || 3600 * 1000);
        if (command === 'produce-failing') opts.attempts = 1;
        await queue.add(command === 'produce-failing' ? 'fail-once' : 'work', { n }, opts);
      }
      break;
    case 'produce-one':
      await queue.add('work', { n: 0 }, { jobId: arg });
      break;
    case 'produce-big': // job "big-1": data {customerId: 4411, blob} of ARG bytes and more
      await queue.add('big', { customerId: 4411, blob: 'x'.repeat(Number(arg)) }, { jobId: 'big-1' });
      break;
    case 'produce-timed':
      for (let n = 1; n <= Number(arg); ++n)
        await queue.add('timed', { n, sleepMs: Number(process.argv[7]) }, { jobId: `timed-${n}` });
      break;
    case 'times': {
      // The delay it was added with: BullMQ sets the hash's to 0 when it
      // promotes the job; its options keep it.
      const pick = (job) => ({ id: job.id, timestamp: job.timestamp,
                               delay: Math.max(job.delay || 0, (job.opts && job.opts.delay) || 0),
                               processedOn: job.processedOn, finishedOn: job.finishedOn });
      const finished = (await queue.getJobs(['completed', 'failed'], 0, -1)).filter(Boolean);
      const waiting = (await queue.getJobs(['wait'], 0, -1)).filter(Boolean);
      console.log(JSON.stringify({ finished: finished.map(pick), waiting: waiting.map(pick) }));
      break;
    }
    case 'paused':
      console.log(String(await queue.isPaused()));
      break;
    case 'counts':
      console.log(JSON.stringify(await queue.getJobCounts()));
      break;
    case 'state': {
      const job = await queue.getJob(arg);
      console.log(job ? await job.getState() : 'missing');
      break;
    }
    case 'search-data': {
      const want = Number(arg);
      const started = Date.now();
      let matched = 0;
      let scanned = 0;
      const total = await queue.getJobCountByTypes('completed');
      for (let start = 0; start < total; start += 1000) {
        const jobs = await queue.getJobs(['completed'], start, start + 999, true);
        scanned += jobs.length;
        for (const job of jobs) if (job && job.data && job.data.n === want) ++matched;
      }
      console.log(JSON.stringify({ matched, scanned, ms: Date.now() - started }));
      break;
    }
    case 'work':
    case 'hang': {
      // A short lock so a killed worker's job stalls within the test; a long
      // stall interval so only Gatehouse, not BullMQ's own check, recovers it.
      const client = clustered ? new IORedis.Cluster([node]) : new IORedis(node);
      const worker = new Worker(queueName, async (job) => {
        if (command === 'hang') {
          console.log(`taken ${job.id}`);
          await new Promise(() => {});
        }
        if (job.name === 'fail-once' && job.attemptsMade === 0) throw new Error('failing on purpose');
        if (job.data && job.data.sleepMs) await new Promise((r) => setTimeout(r, job.data.sleepMs));
        await client.rpush(arg, job.id);
        return 'ok';
      }, { connection, prefix, lockDuration: 1500, stalledInterval: 3600 * 1000, concurrency: 1 });
      process.on('SIGTERM', async () => { await worker.close(); process.exit(0); });
      console.log('working');
      return; // runs until killed
    }
    default:
      throw new Error(`unknown command ${command}`);
  }
  await queue.close();
  if (clustered) await connection.quit(); // shared, so not closed with the queue
}
main().catch((e) => { console.error(e.message); process.exit(1); });
