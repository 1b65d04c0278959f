<?php
// SPDX-License-Identifier: MIT
// Symfony Messenger's Redis transport (Debian php-symfony-redis-messenger 5.4)
// driven for the integration tests: its own Connection (add, get, ack) over
// phpredis, on the stream "messages" with the group "symfony" (the
// transport's defaults) and its delayed set "messages__queue".
//
//   php symfony_app.php URL COMMAND [ARG]
//   produce NAME           add a message whose body is NAME
//   produce-blocking NAME  the same; the worker hangs in it
//   later MS NAME          a message delayed by MS
//   work CONSUMER          get messages as CONSUMER and ack them (RPUSH the
//                          name to "ran"); the first delivery of a blocking one
//                          RPUSHes "taken" and hangs
//   counts                 {"stream", "pending", "delayed"} as the transport keeps them

require_once 'Symfony/Component/Messenger/Bridge/Redis/autoload.php';

use Symfony\Component\Messenger\Bridge\Redis\Transport\Connection;

[$self, $url, $command] = array_slice($argv, 0, 3);
$arg = $argv[3] ?? '';
$options = ['delete_after_ack' => false, 'consumer' => $command === 'work' ? $arg : 'producer'];
$connection = Connection::fromDsn($url . '/messages', $options);
$parts = parse_url($url);
$redis = new \Redis();
$redis->connect($parts['host'], $parts['port']);

switch ($command) {
    case 'produce':
    case 'produce-blocking':
        $connection->add(($command === 'produce' ? 'run:' : 'block:') . $arg, []);
        break;
    case 'later':
        $connection->add('run:' . $argv[4], [], (int) $arg);
        break;
    case 'work':
        while (true) {
            $message = $connection->get();
            if ($message === null) {
                usleep(100000);
                continue;
            }
            $body = json_decode($message['data']['message'], true)['body'];
            $name = substr($body, strpos($body, ':') + 1);
            // A blocking message blocks its first delivery only.
            if (str_starts_with($body, 'block:') && $redis->rPush('taken', $name) === 1) {
                while (true) {
                    sleep(1);
                }
            }
            $redis->rPush('ran', $name);
            $connection->ack($message['id']);
        }
    case 'counts':
        $pending = $redis->xPending('messages', 'symfony');
        echo json_encode(['stream' => $redis->xLen('messages'),
                          'pending' => $pending[0] ?? 0,
                          'delayed' => $redis->zCard('messages__queue')]), "\n";
        break;
    default:
        fwrite(STDERR, "unknown command $command\n");
        exit(2);
}
