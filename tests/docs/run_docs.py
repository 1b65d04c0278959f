#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Runs the commands that README.md and docs/ mark as runnable, against a private
redis-server, and fails on an exit status or an output line that differs.

Marked blocks are fenced code blocks whose info string ends in "runnable":

  ```sh runnable         every line is a command (a trailing "\\" continues it)
  ```console runnable    "$ " starts a command; the lines after it, up to the next
                         "$ ", are output that must appear in what it prints

A command must exit 0, or with a status its comment (at its end, or on the lines
just above it) names: "# ... exit 3 ...".
In shown output, "..." stands for anything and a number for any number; spaces
count once. Before a command runs, redis://127.0.0.1:6379 becomes the private
server's URL, 127.0.0.1:9187 a free port, `watch --count N` counts 3 ticks and a
`serve` without --seconds stops after 2 s. Commands run in bash (pipefail), in
the order they appear, with the built gatehouse-cli first on PATH and HOME (so the
settings, history and audit log) in a temporary directory. The server is
seeded first: `gatehouse-cli simulate --seconds 3`, then what the examples name
(lock:report, a Sidekiq deployment, a BullMQ queue bull:emails).

Usage: run_docs.py SOURCE_DIR GATEHOUSE_CLI REDIS_SERVER [--list]"""
import json
import os
import pathlib
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time

DOCS_URL = 'redis://127.0.0.1:6379'
DOCS_METRICS = '127.0.0.1:9187'
COMMAND_TIMEOUT_S = 30


def marked_commands(root):
    """(page, line, command, expected exit codes, expected output lines) in order."""
    pages = [root / 'README.md'] + sorted((root / 'docs').rglob('*.md'))
    out = []
    for page in pages:
        text = page.read_text()
        for m in re.finditer(r'^```(\w+) runnable\n(.*?)^```', text, re.S | re.M):
            kind, body = m.group(1), m.group(2)
            first = text.count('\n', 0, m.start()) + 2
            lines = body.splitlines()
            i = 0
            above = ''  # comment lines just above a command belong to it
            while i < len(lines):
                line, at = lines[i], first + i
                i += 1
                if kind == 'console':
                    if not line.startswith('$ '):
                        raise SystemExit(f'{page}:{at}: output before the first "$ "')
                    line = line[2:]
                elif line.lstrip().startswith('#'):
                    above += line
                    continue
                elif not line.strip():
                    above = ''
                    continue
                while line.endswith('\\') and i < len(lines):
                    line = line[:-1] + ' ' + lines[i].strip()
                    i += 1
                shown = []
                while kind == 'console' and i < len(lines) and not lines[i].startswith('$ '):
                    if lines[i].strip():
                        shown.append(lines[i])
                    i += 1
                comment, above = above + line.partition(' #')[2], ''
                codes = {0} | {int(c) for c in re.findall(r'\bexits? (\d)\b', comment)}
                out.append((page.relative_to(root), at, line, codes, shown))
    return out


def line_pattern(shown):
    parts = re.split(r'(\.\.\.|…|\d+(?:\.\d+)?)', ' '.join(shown.split()))
    regex = ''.join('.*' if p in ('...', '…') else r'\d+(?:\.\d+)?' if p[:1].isdigit()
                    else re.escape(p) for p in parts)
    return re.compile(regex)


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def encode(*args):
    out = b'*%d\r\n' % len(args)
    for a in args:
        a = a if isinstance(a, bytes) else str(a).encode()
        out += b'$%d\r\n%s\r\n' % (len(a), a)
    return out


def send(port, commands):
    """Sends commands on one connection; raises on an error reply."""
    with socket.create_connection(('127.0.0.1', port), timeout=5) as s:
        s.sendall(b''.join(encode(*c) for c in commands))
        f = s.makefile('rb')

        def reply():
            line = f.readline()
            if line[:1] == b'-':
                raise RuntimeError(line.decode().strip())
            if line[:1] in (b'$',) and int(line[1:]) >= 0:
                f.read(int(line[1:]) + 2)
            elif line[:1] == b'*':
                for _ in range(max(0, int(line[1:]))):
                    reply()
        for _ in commands:
            reply()


def seed(port, now_s):
    """What the examples name, beside simulate's sim: keys."""
    identity = 'web-1:4242:8266484eb2cf'
    job = ('{"class":"ReportJob","queue":"default","args":[7],"jid":"6f1a2b3c4d5e6f708192a3b4",'
           '"created_at":%.3f,"enqueued_at":%.3f}' % (now_s - 60, now_s - 60))
    # The payload a string, as Sidekiq's launcher writes it.
    work = json.dumps({'queue': 'default', 'payload': job, 'run_at': now_s - 50})
    send(port, [
        ['SET', 'lock:report', '8f1c2e7a', 'PX', 600000],
        # Sidekiq: a process whose heartbeat hash is gone, its work left behind.
        ['SADD', 'queues', 'default'],
        ['LPUSH', 'queue:default', job.replace('6f1a', '7f1a')],
        ['SADD', 'processes', identity],
        ['HSET', identity + ':work', 'tid-1', work],
        ['PEXPIRE', identity + ':work', 600000],
        ['ZADD', 'retry', now_s + 20, job.replace('6f1a', '8f1a')],
        ['ZADD', 'dead', now_s - 86400, job.replace('6f1a', '9f1a')],
        ['SET', 'stat:processed', 1234],
        # BullMQ: job 2 active without a lock.
        ['HSET', 'bull:emails:meta', 'opts.maxLenEvents', 10000, 'version', 'bullmq:5.12.0'],
        ['SET', 'bull:emails:id', 3],
        ['XADD', 'bull:emails:events', '*', 'event', 'added', 'jobId', 3],
        ['LPUSH', 'bull:emails:wait', 3],
        ['LPUSH', 'bull:emails:active', 2],
        ['ZADD', 'bull:emails:completed', now_s * 1000 - 5000, 1],
        ['ZADD', 'bull:emails:marker', 0, 0],
        ['HSET', 'bull:emails:1', 'name', 'welcome', 'data', '{}', 'timestamp',
         now_s * 1000 - 9000, 'finishedOn', now_s * 1000 - 5000],
        ['HSET', 'bull:emails:2', 'name', 'welcome', 'data', '{}', 'timestamp',
         now_s * 1000 - 8000, 'processedOn', now_s * 1000 - 7000],
        ['HSET', 'bull:emails:3', 'name', 'welcome', 'data', '{}', 'timestamp',
         now_s * 1000 - 1000],
    ])


def main():
    root, cli, redis_server = pathlib.Path(sys.argv[1]), sys.argv[2], sys.argv[3]
    commands = marked_commands(root)
    if '--list' in sys.argv:
        for page, at, command, codes, shown in commands:
            print(f'{page}:{at}: {command}')
        return 0
    if not commands:
        print('no runnable commands found')
        return 1
    tmp = tempfile.TemporaryDirectory(prefix='gatehouse-docs-')
    port = free_port()
    server = subprocess.Popen(
        [redis_server, '--port', str(port), '--bind', '127.0.0.1', '--save', '',
         '--appendonly', 'no', '--dir', tmp.name],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def stop(*_):
        if server.poll() is None:
            server.kill()
            server.wait()
        sys.exit(1)
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    failures = []
    try:
        for _ in range(100):
            try:
                send(port, [['PING']])
                break
            except OSError:
                time.sleep(0.05)
        url = f'redis://127.0.0.1:{port}'
        # The default paths, under a HOME of its own (what `info` shows).
        env = {k: v for k, v in os.environ.items()
               if k not in ('XDG_CONFIG_HOME', 'XDG_DATA_HOME', 'GATEHOUSE_HISTORY_DIR',
                            'GATEHOUSE_AUDIT_LOG', 'REDISCLI_AUTH')}
        env.update(PATH=str(pathlib.Path(cli).resolve().parent) + ':' + env.get('PATH', ''),
                   HOME=tmp.name)
        sim = subprocess.run([cli, '--url', url, 'simulate', '--seconds', '3'], env=env,
                             capture_output=True, text=True, timeout=COMMAND_TIMEOUT_S)
        if sim.returncode != 0:
            print(f'seeding: simulate exited {sim.returncode}: {sim.stderr.strip()}')
            return 1
        seed(port, int(time.time()))
        for page, at, command, codes, shown in commands:
            run = command.replace(DOCS_URL, url).replace(DOCS_METRICS, f'127.0.0.1:{free_port()}')
            if re.search(r'\bwatch\b', run):
                run = re.sub(r'--count \d+', '--count 3', run)
            if re.search(r'\bserve\b', run) and '--seconds' not in run:
                run = re.sub(r'\bserve\b', 'serve --seconds 2', run, count=1)
            started = time.monotonic()
            try:
                p = subprocess.run(['bash', '-o', 'pipefail', '-c', run], env=env, cwd=tmp.name,
                                   capture_output=True, text=True, timeout=COMMAND_TIMEOUT_S)
                code, out, err = p.returncode, p.stdout, p.stderr
            except subprocess.TimeoutExpired:
                code, out, err = 'timeout', '', f'no end after {COMMAND_TIMEOUT_S} s'
            where = f'{page}:{at}: {command}'
            printed = [' '.join(line.split()) for line in (out + err).splitlines()]
            missing = [s for s in shown
                       if not any(line_pattern(s).fullmatch(line) for line in printed)]
            if code not in codes or missing:
                failures.append(where)
                print(f'FAIL {where}\n  exit {code} (expected {sorted(codes)})')
                for s in missing:
                    print(f'  not printed: {s}')
                print('  ' + '\n  '.join((out + err).strip().splitlines()[:20]))
            else:
                print(f'ok   {where} ({time.monotonic() - started:.1f} s)')
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
        tmp.cleanup()
    print(f'{len(commands) - len(failures)} of {len(commands)} documented commands ran as shown')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
