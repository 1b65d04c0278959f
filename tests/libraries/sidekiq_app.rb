# SPDX-License-Identifier: MIT
# Sidekiq's own client, API and worker for tests/integration/tst_lib_sidekiq
# (Debian ruby-sidekiq 6.x, or a Sidekiq 7 checkout through RUBYLIB). Loaded by the worker (sidekiq -r THIS) and run as
# a command:  ruby sidekiq_app.rb URL COMMAND [ARG]
#   push CLASS TAG  enqueue one job with Sidekiq::Client; prints its jid
#   stats           Sidekiq::Stats, Sidekiq::Queue and Sidekiq::RetrySet as JSON
#   scan-dead TEXT  Sidekiq Web's filter on the dead set (SortedSet#scan: ZSCAN
#                   MATCH *TEXT*); prints {"matched", "ms"}
#   waits           the jobs running now: run_at - enqueued_at (ms) of each, by
#                   Sidekiq::Workers
#   dead N          N failed jobs into the dead set by Sidekiq::DeadSet#kill (args
#                   ["customer-<i>"]; every third one's error a Net::ReadTimeout)
# Every job appends its tag to the list "ran" once it has run; HangJob first
# appends it to "started" and then blocks (the test kills its worker); a
# FailOnceJob raises on its first run (and waits an hour for its retry).
require "sidekiq"
require "sidekiq/api"
require "json"

# Sidekiq connects to REDIS_URL (the worker's environment; a command's URL).
ENV["REDIS_URL"] = ARGV[0] if $PROGRAM_NAME == __FILE__

class HangJob
  include Sidekiq::Worker
  sidekiq_options retry: false

  def perform(tag)
    Sidekiq.redis { |r| r.rpush("started", tag) }
    sleep 1 while Sidekiq.redis { |r| r.get("hang") } # redis-rb 4 and redis-client alike
    Sidekiq.redis { |r| r.rpush("ran", tag) }
  end
end

class FailOnceJob
  include Sidekiq::Worker
  sidekiq_options retry: 5
  sidekiq_retry_in { |_count, _exception| 3600 }

  def perform(tag)
    first = Sidekiq.redis { |r| r.set("failed:#{tag}", "1", nx: true) }
    raise "failing once on purpose" if first
    Sidekiq.redis { |r| r.rpush("ran", tag) }
  end
end

if $PROGRAM_NAME == __FILE__
  # Sidekiq 7 logs its connection to stdout, where a command's answer goes.
  Sidekiq.logger.level = Logger::WARN
  case ARGV[1]
  when "push"
    klass = Object.const_get(ARGV[2])
    puts Sidekiq::Client.push("class" => klass, "args" => [ARGV[3]])
  when "stats"
    s = Sidekiq::Stats.new
    puts JSON.generate(
      "enqueued" => s.enqueued, "scheduled" => s.scheduled_size,
      "retry" => s.retry_size, "dead" => s.dead_size,
      "processed" => s.processed, "failed" => s.failed,
      "queues" => Sidekiq::Queue.all.map { |q| [q.name, q.size] }.to_h,
      "retries" => Sidekiq::RetrySet.new.map { |e| {"jid" => e.jid, "score" => e.score.to_s} }
    )
  when "waits"
    # Sidekiq::Workers: each job running now, its run_at and its payload's
    # enqueued_at (epoch seconds), as ms.
    waits = Sidekiq::Workers.new.map do |_process, _thread, work|
      payload = work["payload"]
      payload = JSON.parse(payload) if payload.is_a?(String)
      (work["run_at"].to_f * 1000).floor - (payload["enqueued_at"].to_f * 1000).floor
    end
    puts JSON.generate(waits)
  when "scan-dead"
    started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    matched = 0
    Sidekiq::DeadSet.new.scan(ARGV[2]) { |_entry| matched += 1 }
    ms = ((Process.clock_gettime(Process::CLOCK_MONOTONIC) - started) * 1000).round
    puts JSON.generate("matched" => matched, "ms" => ms)
  when "dead"
    dead = Sidekiq::DeadSet.new
    (1..ARGV[2].to_i).each do |i|
      now = Time.now.to_f
      timeout = (i % 3).zero?
      dead.kill(JSON.generate(
                  "class" => timeout ? "SyncJob" : "ChargeJob", "args" => ["customer-#{i}"],
                  "jid" => format("dead%020d", i), "queue" => "default", "retry" => true,
                  "created_at" => now - 7200, "enqueued_at" => now - 7200,
                  "failed_at" => now - 3600, "retry_count" => 25,
                  "error_class" => timeout ? "Net::ReadTimeout" : "RuntimeError",
                  "error_message" => timeout ? "Net::ReadTimeout with #<TCPSocket>" : "card declined"
                ), notify_failure: false)
    end
    puts dead.size
  else
    warn "usage: sidekiq_app.rb URL push CLASS TAG | stats | dead N"
    exit 2
  end
end
