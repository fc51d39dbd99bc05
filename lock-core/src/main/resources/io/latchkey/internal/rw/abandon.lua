-- Takes a writer that gives up (its wait ran out, it was interrupted or cancelled) out of the
-- waiting writers; readers held back by it alone are woken.
-- KEYS[1]  the lock hash (see acquire.lua)
-- KEYS[2]  the leases: sorted set of hold field -> the end of its lease, in ms of Redis TIME
-- KEYS[3]  the waiting writers: sorted set of writer field -> the end of its place
-- KEYS[4]  the readers' channel: '*' wakes every waiting reader
-- ARGV[1]  the writer's field
-- ARGV[2]  the publish command: 'publish' or 'spublish'
-- Returns 1 if the writer was waiting, else 0. When no live writer waits any more and none
-- holds the lock, every waiting reader is woken: they can all go.
-- Cost: O(log n) in the number of waiting writers.
local lock, leases, writers, read_channel = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local writer, publish = ARGV[1], ARGV[2]

if redis.call('zrem', writers, writer) == 0 then
    return 0
end
local time = redis.call('time')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
if redis.call('zcount', writers, '(' .. now, '+inf') > 0 then
    return 1
end
local holder = redis.call('hget', lock, 'writer')
local ends = holder and redis.call('zscore', leases, holder)
if not ends or tonumber(ends) <= now then
    redis.call(publish, read_channel, '*')
end
return 1
