-- Answers the queries of one side of a read-write lock in one round trip.
-- KEYS[1]  the lock hash (see acquire.lua)
-- KEYS[2]  the leases: sorted set of hold field -> the end of its lease, in ms of Redis TIME
-- ARGV[1]  the side: 'read' or 'write'
-- ARGV[2]  an owner's field on that side, whose hold count to answer
-- Returns {1 if anyone holds that side else 0, the milliseconds until its latest lease ends (0 if
-- nobody holds it), the owner's hold count (0 if it holds nothing)}. A hold whose lease ended
-- counts as gone, whatever the hash still says.
-- Cost: O(log n) in the number of holds.
local lock, leases = KEYS[1], KEYS[2]
local side, field = ARGV[1], ARGV[2]

local time = redis.call('time')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)

local count = 0
local own = redis.call('zscore', leases, field)
if own and tonumber(own) > now then
    count = tonumber(redis.call('hget', lock, field)) or 0
end
local writer = redis.call('hget', lock, 'writer')
if side == 'write' then
    local ends = writer and redis.call('zscore', leases, writer)
    if ends and tonumber(ends) > now then
        return {1, tonumber(ends) - now, count}
    end
    return {0, 0, count}
end
-- The two latest leases: at most one of them is the writer's.
local latest = redis.call('zrevrangebyscore', leases, '+inf', '(' .. now, 'WITHSCORES', 'LIMIT', 0, 2)
for i = 1, #latest, 2 do
    if latest[i] ~= writer then
        return {1, tonumber(latest[i + 1]) - now, count}
    end
end
return {0, 0, count}
