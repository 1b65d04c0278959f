// SPDX-License-Identifier: MIT
// npm redis-semaphore 5 for Gatehouse's integration tests
// (tests/integration/tst_lib_limiters.cpp): its own Semaphore,
// MultiSemaphore and Mutex against the test's server.
//
//   node semaphore-app.js REDIS_URL COMMAND ARGS...
//   hold KEY LIMIT PERMITS TIMEOUT_MS   acquire (PERMITS 0: a Semaphore; N: a
//                        MultiSemaphore of N permits), print the identifier,
//                        then hold it, refreshing, until killed; prints
//                        "lost" if the library reports the lock lost
//   mutex KEY TIMEOUT_MS  acquire a Mutex, print its identifier, hold until killed
//   try KEY LIMIT TIMEOUT_MS  one tryAcquire of a Semaphore: prints "acquired"
//                        (then releases) or "full"
'use strict';
const [, , url, command, ...args] = process.argv;
const Redis = require('ioredis');
const { Semaphore, MultiSemaphore, Mutex } = require('redis-semaphore');

async function main() {
  const client = new Redis(url);
  const onLockLost = () => process.stdout.write('lost\n');
  switch (command) {
    case 'hold': {
      const [key, limit, permits, timeout] = args.map((a, i) => (i === 0 ? a : Number(a)));
      const options = { lockTimeout: timeout, acquireTimeout: 5000, onLockLost };
      const s = permits > 0 ? new MultiSemaphore(client, key, limit, permits, options)
                            : new Semaphore(client, key, limit, options);
      await s.acquire();
      process.stdout.write(s.identifier + '\n');
      return; // the refresh timer is unref'd: keep the process alive below
    }
    case 'mutex': {
      const m = new Mutex(client, args[0], { lockTimeout: Number(args[1]), onLockLost });
      await m.acquire();
      process.stdout.write(m.identifier + '\n');
      return;
    }
    case 'try': {
      const s = new Semaphore(client, args[0], Number(args[1]),
                              { lockTimeout: Number(args[2]), acquireTimeout: 100 });
      const ok = await s.tryAcquire();
      if (ok) await s.release();
      process.stdout.write((ok ? 'acquired' : 'full') + '\n');
      await client.quit();
      return;
    }
    default:
      throw new Error('unknown command ' + command);
  }
}

main().then(
  () => {
    if (command === 'hold' || command === 'mutex') setInterval(() => {}, 1 << 30);
  },
  (err) => {
    process.stderr.write(String(err && err.stack || err) + '\n');
    process.exit(1);
  });
