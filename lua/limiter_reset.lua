-- limiter_reset.lua: clear a limiter: its window(s) and retry slots.
--
-- KEYS     every key of the limiter (window, retry, counters)
-- Reply    the number of keys deleted
-- Cost     O(total members)
return redis.call('DEL', unpack(KEYS))
