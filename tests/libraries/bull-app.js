// A real Bull application for Gatehouse's integration tests
// (tests/integration/tst_libraries.cpp), with the Bull major the test names.
//
//   node bull-app.js MODULE REDIS_URL QUEUE COMMAND [ARG]
//   MODULE       bull (4) or bull3
//   produce N    add jobs "job-1".."job-N"
//   produce-failing N  add "failing-1".."failing-N", failed on their first attempt
//   produce-delayed N  add "delayed-1".."delayed-N", delayed by an hour
//   produce-one ID     add one job "work" with that id
//   produce-priority N add "prio-1".."prio-N" with priority 2
//   hang         take one job and never finish it (the test kills us)
//   work LOG     run jobs: each run appends its id to the Redis list LOG
//   counts       print Bull's own job counts as JSON
//   paused       print whether Bull sees the queue paused (Queue#isPaused)
//   state ID     print a job's state as Bull sees it ("missing" when getJob finds none)
'use strict';
const [, , moduleName, url, queueName, command, arg] = process.argv;
const Queue = require(moduleName === 'bull3' ? 'bull3' : 'bull');

async function main() {
  // A short lock so a killed worker's job stalls within the test; a long
  // stall interval so Bull's own check does not run during it.
  const queue = new Queue(queueName, url, {
    settings: { lockDuration: 1500, stalledInterval: 3600 * 1000 },
  });
  switch (command) {
    case 'produce':
      for (let n = 1; n <= Number(arg); ++n) await queue.add('work', { n }, { jobId: `job-${n}` });
      break;
    case 'produce-failing':
      for (let n = 1; n <= Number(arg); ++n) {
        await queue.add('fail-once', { n }, { jobId: `failing-${n}`, attempts: 1 });
      }
      break;
    case 'produce-delayed':
      for (let n = 1; n <= Number(arg); ++n) {
        await queue.add('work', { n }, { jobId: `delayed-${n}`, delay: 3600 * 1000 });
      }
      break;
    case 'produce-priority':
      for (let n = 1; n <= Number(arg); ++n) {
        await queue.add('work', { n }, { jobId: `prio-${n}`, priority: 2 });
      }
      break;
    case 'produce-one':
      await queue.add('work', { n: 0 }, { jobId: arg });
      break;
    case 'paused':
      console.log(String(await queue.isPaused()));
      break;
    case 'state': {
      const job = await queue.getJob(arg);
      console.log(job ? await job.getState() : 'missing');
      break;
    }
    case 'work': {
      const client = queue.client;
      queue.process('*', 1, async (job) => {
        if (job.name === 'fail-once' && job.attemptsMade === 0
            && !(await client.sismember(`${arg}:failed`, job.id))) {
          await client.sadd(`${arg}:failed`, job.id);
          throw new Error('failing on purpose');
        }
        await client.rpush(arg, job.id);
        return 'ok';
      });
      console.log('working');
      return;
    }
    case 'counts':
      console.log(JSON.stringify(await queue.getJobCounts()));
      break;
    case 'hang':
      queue.process('work', 1, async (job) => {
        console.log(`taken ${job.id}`);
        await new Promise(() => {});
      });
      console.log('working');
      return;
    default:
      throw new Error(`unknown command ${command}`);
  }
  await queue.close();
}
main().catch((e) => { console.error(e.message); process.exit(1); });
