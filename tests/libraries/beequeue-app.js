// A real bee-queue application for Gatehouse's integration tests
// (tests/integration/tst_lib_beequeue.cpp).
//
//   node beequeue-app.js REDIS_URL QUEUE COMMAND [ARG]
//   produce N          add jobs "job-1".."job-N"
//   produce-failing N  add "failing-1".."failing-N", failed on their first run (no retries)
//   produce-delayed N  add "delayed-1".."delayed-N", delayed by an hour
//   produce-counted N  add N jobs with ids from bee-queue's own counter (bq:<queue>:id)
//   hang               take one job and never finish it (the test kills us)
//   work LOG           run jobs: each run appends its id to the Redis list LOG
//   health             print bee-queue's own Queue#checkHealth() as JSON
//   check-stalled [MS] run bee-queue's own stall check once (stall interval MS); print how
//                      many it requeued
//   exists ID          print whether Queue#getJob finds the job
//   created ID         print the job's creation time (Job#options.timestamp, ms) as Queue#getJob
//                      reads it
//
// BEE_QUEUE_MODULE names the package: bee-queue (2.x, the default) or
// bee-queue1 (1.x, package.json's alias).
'use strict';
const Queue = require(process.env.BEE_QUEUE_MODULE === 'bee-queue1' ? 'bee-queue1' : 'bee-queue');
const [, , url, queueName, command, arg] = process.argv;

// A short stall interval so a killed worker's job stalls within the test.
const StallInterval = 1000;

async function main() {
  const worker = command === 'hang' || command === 'work';
  const queue = new Queue(queueName, {
    redis: { url },
    isWorker: worker,
    getEvents: false,
    stallInterval: command === 'check-stalled' && arg ? Number(arg) : StallInterval,
  });
  await queue.ready();
  const save = (id, data, configure) => {
    const job = queue.createJob(data).setId(id);
    if (configure) configure(job);
    return job.save();
  };
  switch (command) {
    case 'produce':
      for (let n = 1; n <= Number(arg); ++n) await save(`job-${n}`, { n });
      break;
    case 'produce-failing':
      for (let n = 1; n <= Number(arg); ++n) await save(`failing-${n}`, { n, failOnce: true });
      break;
    case 'produce-delayed':
      for (let n = 1; n <= Number(arg); ++n) {
        await save(`delayed-${n}`, { n }, (job) => job.delayUntil(Date.now() + 3600 * 1000));
      }
      break;
    case 'produce-counted':
      for (let n = 1; n <= Number(arg); ++n) await queue.createJob({ n }).save();
      break;
    case 'health':
      console.log(JSON.stringify(await queue.checkHealth()));
      break;
    case 'check-stalled':
      console.log(String(await queue.checkStalledJobs()));
      break;
    case 'exists':
      console.log(String((await queue.getJob(arg)) !== null));
      break;
    case 'created':
      console.log(String((await queue.getJob(arg)).options.timestamp));
      break;
    case 'hang':
      queue.process(1, (job) => {
        console.log(`taken ${job.id}`);
        return new Promise(() => {});
      });
      console.log('working');
      return;
    case 'work': {
      const client = queue.client;
      const call = (...args) => new Promise((resolve, reject) => {
        client.send_command(args[0], args.slice(1), (e, r) => (e ? reject(e) : resolve(r)));
      });
      queue.process(1, async (job) => {
        if (job.data.failOnce && (await call('sadd', `${arg}:failed`, job.id)) === 1) {
          throw new Error('failing on purpose');
        }
        await call('rpush', arg, job.id);
        return 'ok';
      });
      console.log('working');
      return;
    }
    default:
      throw new Error(`unknown command ${command}`);
  }
  await queue.close();
}
main().catch((e) => { console.error(e.message); process.exit(1); });
