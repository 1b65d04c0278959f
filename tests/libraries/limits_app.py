# SPDX-License-Identifier: MIT
"""Python `limits` (Debian python3-limits 2.8) for Gatehouse's integration
tests (tests/integration/tst_lib_limiters.cpp): the library's own strategies
on its own Redis storage against the test's server.

  limits_app.py REDIS_URL hit STRATEGY LIMIT N IDENTIFIER...
        STRATEGY fixed | elastic | moving; LIMIT as the library parses it
        ("10/minute"); N hits; prints how many were admitted
  limits_app.py REDIS_URL stats STRATEGY LIMIT IDENTIFIER...
        prints {"key", "remaining", "reset", "limit"} as the library sees them
        (get_window_stats; reset in epoch seconds)
"""
import json
import sys

from limits import parse, storage, strategies

STRATEGIES = {
    "fixed": strategies.FixedWindowRateLimiter,
    "elastic": strategies.FixedWindowElasticExpiryRateLimiter,
    "moving": strategies.MovingWindowRateLimiter,
}


def main():
    url, command, strategy, limit = sys.argv[1:5]
    backend = storage.RedisStorage(url)
    limiter = STRATEGIES[strategy](backend)
    item = parse(limit)
    if command == "hit":
        n = int(sys.argv[5])
        ids = sys.argv[6:]
        print(sum(1 for _ in range(n) if limiter.hit(item, *ids)))
    elif command == "stats":
        ids = sys.argv[5:]
        reset, remaining = limiter.get_window_stats(item, *ids)
        print(json.dumps({"key": item.key_for(*ids), "remaining": remaining,
                          "reset": reset, "limit": item.amount}))
    else:
        raise SystemExit("unknown command " + command)


if __name__ == "__main__":
    main()
