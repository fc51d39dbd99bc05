-- Returns a permit and wakes one waiter per client that waits; also settles an acquisition whose
-- answer was lost (run again, it finds nothing: permit ids are never reused), and ends a permit
-- that its client gave up for lost.
-- KEYS[1]  the permits (see acquire.lua)
-- KEYS[2]  the limit in force
-- KEYS[3]  the semaphore's channel (a key, so Cluster routes sharded publishes to its slot)
-- ARGV[1]  the permit's id
-- ARGV[2]  the publish command: 'publish', or 'spublish' for sharded pub/sub
-- Returns 1 if the permit was valid and is now returned; 0 if it was there but its lease had run
-- out (it is removed; no message, as its place was free since it ran out); nil if it is not there.
-- The last permit out deletes both keys; otherwise they expire when the last lease ends.
-- Cost: O(log n) for n permits out.
local permits, limit_key, channel = KEYS[1], KEYS[2], KEYS[3]
local id, publish = ARGV[1], ARGV[2]
local score = redis.call('zscore', permits, id)
if not score then
    return nil
end
local time = redis.call('time')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('zrem', permits, id)
local valid = tonumber(score) > now
if valid then
    redis.call(publish, channel, '')
end
local last = redis.call('zrange', permits, -1, -1, 'WITHSCORES')
if last[2] == nil then
    redis.call('del', permits, limit_key)
else
    redis.call('pexpireat', permits, last[2])
    redis.call('pexpireat', limit_key, last[2])
end
if valid then
    return 1
end
return 0
