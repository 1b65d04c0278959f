<?php
// SPDX-License-Identifier: MIT
// Laravel's Redis queue (Debian php-illuminate-queue 8.83) driven for the
// integration tests: Illuminate\Queue\RedisQueue's own push, later, pop,
// delete and size, over phpredis. Debian packages no Illuminate\Redis, so a
// small connection object hands RedisQueue's calls to phpredis the way
// Laravel's PhpRedisConnection does (eval's argument order, blpop).
//
//   php laravel_app.php URL PREFIX QUEUE COMMAND [ARG]
//   produce NAME            push a job whose data is {"name": NAME}
//   produce-blocking NAME   the same; the worker hangs in it
//   later SECONDS NAME      a delayed job
//   later-command SECONDS NAME  a delayed queued command (App\Jobs\SendDigest
//                           with its "name"): its payload's data.command is
//                           the PHP serialize() of the object, as for any
//                           ShouldQueue job dispatched
//   work [RETRY_AFTER]      pop jobs (retry_after s, 2 by default) and run them:
//                           RPUSH the name to "<prefix>ran", delete the job; a
//                           blocking job's first attempt RPUSHes "<prefix>taken"
//                           and hangs
//   produce-stamped NAME    push a job whose payload carries its creation time as
//                           Laravel 11 and later write it ("createdAt", epoch
//                           seconds), here through Laravel 8's own payload hook
//   oldest-created          the head's createdAt, as Laravel's later
//                           RedisQueue::creationTimeOfOldestPendingJob reads it
//                           (empty when the head has none or nothing waits)
//   size                    RedisQueue::size (ready + delayed + reserved)
//   counts                  {"ready", "delayed", "reserved"} as RedisQueue keeps them

require_once 'Illuminate/Queue/autoload.php';

use Illuminate\Container\Container;
use Illuminate\Contracts\Redis\Factory;
use Illuminate\Queue\RedisQueue;

final class PhpRedisConnection
{
    public function __construct(private \Redis $redis) {}

    public function eval($script, $numberOfKeys, ...$arguments)
    {
        return $this->redis->eval($script, $arguments, $numberOfKeys);
    }

    public function blpop(...$arguments)
    {
        $result = $this->redis->blPop(...$arguments);
        return empty($result) ? null : $result;
    }

    public function pipeline(callable $callback) { return $callback($this); }
    public function transaction(callable $callback) { return $callback($this); }

    public function __call($method, $parameters)
    {
        return $this->redis->{$method}(...$parameters);
    }
}

final class PhpRedisFactory implements Factory
{
    public function __construct(private PhpRedisConnection $connection) {}
    public function connection($name = null) { return $this->connection; }
}

[$self, $url, $prefix, $queueName, $command] = array_slice($argv, 0, 5);
$arg = $argv[5] ?? '';
$parts = parse_url($url);
$redis = new \Redis();
$redis->connect($parts['host'], $parts['port']);
// Laravel's application prefix (config database.redis.options.prefix),
// phpredis's OPT_PREFIX as Laravel's PhpRedisConnector sets it.
$redis->setOption(\Redis::OPT_PREFIX, $prefix);
$connection = new PhpRedisConnection($redis);
$retryAfter = $command === 'work' && $arg !== '' ? (int) $arg : 2;
$queue = new RedisQueue(new PhpRedisFactory($connection), $queueName, null, $retryAfter, 1);
$queue->setContainer(new Container());

switch ($command) {
    case 'produce':
    case 'produce-blocking':
        $job = $command === 'produce' ? 'App\\Jobs\\Run' : 'App\\Jobs\\Block';
        $queue->push($job, ['name' => $arg]);
        break;
    case 'produce-stamped':
        \Illuminate\Queue\Queue::createPayloadUsing(fn () => ['createdAt' => time()]);
        $queue->push('App\\Jobs\\Run', ['name' => $arg]);
        break;
    case 'oldest-created':
        $head = $redis->lIndex('queues:' . $queueName, 0);
        echo $head === false ? '' : (json_decode($head, true)['createdAt'] ?? ''), "\n";
        break;
    case 'later':
        $name = $argv[6];
        $queue->later((int) $arg, 'App\\Jobs\\Run', ['name' => $name]);
        break;
    case 'later-command':
        eval('namespace App\Jobs; final class SendDigest { '
             . 'public function __construct(public string $name) {} }');
        $queue->later((int) $arg, new \App\Jobs\SendDigest($argv[6]));
        break;
    case 'work':
        while (true) {
            $job = $queue->pop();
            if ($job === null) {
                continue;
            }
            $payload = $job->payload();
            if ($payload['job'] === 'App\\Jobs\\Block' && $job->attempts() === 1) {
                $redis->rPush('taken', $payload['data']['name']);
                while (true) {
                    sleep(1);
                }
            }
            $redis->rPush('ran', $payload['data']['name']);
            $job->delete();
        }
    case 'size':
        echo $queue->size(), "\n";
        break;
    case 'counts':
        $key = 'queues:' . $queueName;
        echo json_encode(['ready' => $redis->lLen($key),
                          'delayed' => $redis->zCard($key . ':delayed'),
                          'reserved' => $redis->zCard($key . ':reserved')]), "\n";
        break;
    default:
        fwrite(STDERR, "unknown command $command\n");
        exit(2);
}
