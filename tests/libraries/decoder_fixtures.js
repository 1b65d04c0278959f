// SPDX-License-Identifier: MIT
// Writes tests/unit/data/decoders/bullmq_opts.msgpack: a job's options packed
// as BullMQ packs them for its addJob scripts (msgpackr's Packr with
// BullMQ's own settings, classes/redis-queue-backend.js).
//   NODE_PATH=tests/libraries/node_modules node tests/libraries/decoder_fixtures.js DIR
const fs = require('fs');
const path = require('path');
const { Packr } = require('msgpackr');

const packer = new Packr({ useRecords: false, encodeUndefinedAsNil: true });
const opts = {
  attempts: 3,
  backoff: { type: 'exponential', delay: 1000 },
  delay: 0,
  jobId: 'invoice-4411',
  removeOnComplete: true,
  priority: 2,
  timestamp: 1715941805123,
  ratio: 0.25,
  parent: undefined,
};
fs.writeFileSync(path.join(process.argv[2], 'bullmq_opts.msgpack'), packer.pack(opts));
