# SPDX-License-Identifier: MIT
# Writes the payload fixtures of tests/unit/tst_decoders.cpp with the real
# libraries' own serialisers (Debian python3-rq, python3-celery/kombu; run
# with /usr/bin/python3), no server needed:
#   /usr/bin/python3 tests/libraries/decoder_fixtures.py tests/unit/data/decoders
# BullMQ's msgpack is written by decoder_fixtures.js beside it.
import base64
import datetime
import gzip
import json
import os
import struct
import sys

import redis
from celery import Celery
from kombu import Connection
from kombu.serialization import dumps
from rq.job import Job

out = sys.argv[1]


def write(name, data):
    with open(os.path.join(out, name), 'wb') as f:
        f.write(data)


# RQ: Job.data is zlib.compress(pickle.dumps((func, instance, args, kwargs))).
job = Job.create('rq_app.just_run', args=(4411, 'customer'),
                 kwargs={'when': datetime.datetime(2024, 5, 17, 10, 30, 5, 123000),
                         'tags': {'a', 'b'}, 'ratio': 0.5, 'raw': b'\x00\x01'},
                 connection=redis.Redis(), id='fixture-job')
write('rq_job_data.bin', job.to_dict()['data'])

# Celery/kombu: a task message as the Redis transport stores it (a JSON
# envelope with the body base64-encoded), by Celery's as_task_v2 and kombu's
# virtual channel (prepare_message, encode_body).
app = Celery('fixtures', broker='memory://')
task = app.amqp.as_task_v2('0b1c2d3e-fixture', 'tasks.add', args=(2, 3),
                           kwargs={'customer': 4411})
for serializer, name in (('json', 'kombu_json_message.json'),
                         ('pickle', 'kombu_pickle_message.json')):
    content_type, encoding, body = dumps(task.body, serializer)
    with Connection('memory://') as conn:
        ch = conn.channel()
        message = ch.prepare_message(body, 0, content_type, encoding, task.headers,
                                     task.properties)
        message['body'], message['properties']['body_encoding'] = ch.encode_body(
            message['body'], ch.body_encoding)
        write(name, json.dumps(message).encode())


# Laravel: a queued job's payload (Illuminate\Queue\Queue::createObjectPayload)
# whose command is PHP's serialize() of the job object, written here in
# that format (PHP is not installed for the tests).
def php_s(s):
    b = s.encode()
    return b's:%d:"%s";' % (len(b), b)


props = (php_s('\0App\\Jobs\\SendInvoice\0customerId') + b'i:4411;'
         + php_s('\0*\0queue') + php_s('emails')
         + php_s('tries') + b'i:3;'
         + php_s('chained') + b'a:0:{}')
command = (b'O:%d:"App\\Jobs\\SendInvoice":4:{' % len('App\\Jobs\\SendInvoice') + props + b'}')
write('laravel_payload.json', json.dumps({
    'uuid': 'b7c1e2a4-fixture', 'displayName': 'App\\Jobs\\SendInvoice',
    'job': 'Illuminate\\Queue\\CallQueuedHandler@call', 'maxTries': None,
    'data': {'commandName': 'App\\Jobs\\SendInvoice', 'command': command.decode()}}).encode())


# asynq's TaskMessage (protobuf, internal/proto/asynq.proto): type = 1,
# payload = 2, id = 3, queue = 4, retry = 5, timeout = 8.
def varint(n):
    b = b''
    while True:
        if n < 0x80:
            return b + bytes([n])
        b += bytes([(n & 0x7f) | 0x80])
        n >>= 7


def field(number, wire, data):
    key = varint(number << 3 | wire)
    return key + (varint(len(data)) + data if wire == 2 else data)


write('asynq_task.pb', field(1, 2, b'email:deliver')
      + field(2, 2, json.dumps({'user_id': 4411}).encode())
      + field(3, 2, b'f0a1-fixture') + field(4, 2, b'default')
      + field(5, 0, varint(25)) + field(8, 0, varint(1800)))


# A gzip body (gzip.compress, as a producer that compresses with gzip writes
# it), and the same base64-encoded.
gz = gzip.compress(json.dumps({'order': 4411, 'items': ['a', 'b']}).encode(), mtime=0)
write('gzip_json.bin', gz)
write('gzip_json.b64', base64.b64encode(gz))
