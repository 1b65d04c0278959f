// A real node-resque application for Gatehouse's integration tests
// (tests/integration/tst_lib_resque.cpp).
//
//   node resque-app.js REDIS_URL NAMESPACE COMMAND [ARG...]
//   produce QUEUE N          enqueue N jobs "add" with args [1]..[N]
//   produce-failing QUEUE N  enqueue N jobs "fail" (their worker throws)
//   produce-delayed QUEUE N  enqueue N jobs "add" an hour from now
//   drain QUEUE LOG          a worker runs every job of QUEUE (an "add" appends
//                            its argument to the Redis list LOG) and ends
//   hang QUEUE               a worker takes one job and never finishes it (the
//                            test kills it)
//   counts QUEUE...          node-resque's own figures as JSON: each queue's
//                            length, failedCount, stats, workers, allWorkingOn,
//                            the delayed jobs (scheduledAt of each timestamp)
//   failed                   queue.failed(0, -1) as JSON
//   clean-old AGE_MS         queue.cleanOldWorkers(AGE_MS), what it cleaned
'use strict';
const NR = require('node-resque');

const [, , url, namespace, command, ...args] = process.argv;
const u = new URL(url);
const connection = { host: u.hostname, port: Number(u.port), namespace };

const jobs = {
  add: { perform: async (n) => n },
  fail: {
    perform: async () => {
      throw new Error('failing on purpose');
    },
  },
};

async function counts(queue, names) {
  const length = {};
  for (const q of names) length[q] = await queue.length(q);
  const timestamps = await queue.timestamps();
  let delayed = 0;
  for (const t of timestamps) delayed += (await queue.delayedAt(t)).tasks.length;
  return {
    length,
    failedCount: await queue.failedCount(),
    stats: await queue.stats(),
    workers: await queue.workers(),
    workingOn: await queue.allWorkingOn(),
    delayed,
    queues: (await queue.queues()).sort(),
  };
}

async function main() {
  const queue = new NR.Queue({ connection }, jobs);
  await queue.connect();
  const [q, arg] = args;
  switch (command) {
    case 'produce':
      for (let n = 1; n <= Number(arg); ++n) await queue.enqueue(q, 'add', [n]);
      break;
    case 'produce-failing':
      for (let n = 1; n <= Number(arg); ++n) await queue.enqueue(q, 'fail', [n]);
      break;
    case 'produce-delayed':
      for (let n = 1; n <= Number(arg); ++n) await queue.enqueueIn(3600 * 1000, q, 'add', [n]);
      break;
    case 'drain': {
      const redis = queue.connection.redis;
      const log = arg;
      const worker = new NR.Worker(
        { connection, queues: [q], timeout: 100, name: `drain-${process.pid}` },
        {
          ...jobs,
          add: { perform: async (n) => redis.rpush(log, String(n)) },
        },
      );
      await worker.connect();
      worker.on('error', (e) => console.error(e));
      await new Promise((resolve) => {
        worker.on('poll', async () => {
          if ((await queue.length(q)) === 0 && !worker.working) resolve();
        });
        worker.start();
      });
      await worker.end();
      break;
    }
    case 'hang': {
      const worker = new NR.Worker(
        { connection, queues: [q], timeout: 100, name: `hang-${process.pid}` },
        {
          add: {
            perform: async () => {
              console.log('taken');
              await new Promise(() => {});
            },
          },
        },
      );
      await worker.connect();
      await worker.start();
      return;
    }
    case 'counts':
      console.log(JSON.stringify(await counts(queue, args)));
      break;
    case 'failed':
      console.log(JSON.stringify(await queue.failed(0, -1)));
      break;
    case 'clean-old':
      console.log(JSON.stringify(await queue.cleanOldWorkers(Number(q))));
      break;
    default:
      throw new Error(`unknown command ${command}`);
  }
  await queue.end();
}
main().catch((e) => {
  console.error(e.message);
  process.exit(1);
});
