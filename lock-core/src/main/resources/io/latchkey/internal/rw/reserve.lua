-- Tells a client that shares one read hold among its local readers whether it may go on
-- admitting them: whether its hold is still there and whether a writer waits; if it may, reserves
-- the next block of fencing tokens for the readers it admits next.
-- KEYS[1]  the lock hash (see acquire.lua)
-- KEYS[2]  the leases: sorted set of hold field -> the end of its lease, in ms of Redis TIME
-- KEYS[3]  the waiting writers: sorted set of writer field -> the end of its place
-- KEYS[4]  the fencing counter of the lock's hash slot (see acquire.lua)
-- ARGV[1]  the shared read hold's field
-- ARGV[2]  its token, as acquire.lua gave it
-- ARGV[3]  how many tokens to reserve, 1 to 1000000
-- Returns {0, 0, 0} when that hold is gone (its lease ended, it was force-unlocked, or another
-- hold of that field replaced it); {1, 1, 0} when it is there and a live writer waits (the client
-- admits no new reader; nothing changed); else {1, 0, the first token of the block}: the counter
-- now ends at the block's last token, so that every hold that begins after this call, a writer's
-- among them, takes a greater token than any of the block's.
-- Cost: O(log n) in the number of holds and waiting writers.
local lock, leases, writers, counter = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local field, token, block = ARGV[1], ARGV[2], tonumber(ARGV[3])

if not block or block < 1 or block > 1000000 or block ~= math.floor(block) then
    return redis.error_reply('ERR latchkey: the token block must be 1 to 1000000, not ' .. tostring(ARGV[3]))
end
local time = redis.call('time')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local now_micros = tonumber(time[1]) * 1000000 + tonumber(time[2])

local ends = redis.call('zscore', leases, field)
if not ends or tonumber(ends) <= now or redis.call('hget', lock, field .. ':token') ~= token then
    return {0, 0, 0}
end
if redis.call('zcount', writers, '(' .. now, '+inf') > 0 then
    return {1, 1, 0}
end
-- The rule of acquire.lua's next_token: max(counter + 1, Redis TIME in microseconds).
local value = redis.call('get', counter)
local last = tonumber(value or '0')
if not last or last < 0 or last ~= math.floor(last) or math.max(last + 1, now_micros) > 9007199254740991 - (block - 1) then
    return redis.error_reply('ERR latchkey: the fencing counter ' .. counter .. ' holds ' .. (value or 'nothing')
            .. ', not a count of tokens that leaves room for ' .. block .. ' more below 2^53')
end
local first = math.max(last + 1, now_micros)
redis.call('incrby', counter, string.format('%.0f', first + block - 1 - last))
return {1, 0, first}
