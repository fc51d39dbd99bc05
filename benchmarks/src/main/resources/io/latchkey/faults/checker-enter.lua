-- A holder enters the critical section of one lock name: marks itself inside, then writes to the
-- fenced resource with its token, in one step, so that no stale write can slip in between a new
-- hold's entry and its first write (the window the README names as fencing's limit).
-- Runs on the checker Redis, never on the lock's Redis.
-- KEYS[1] the lock's inside hash: holder id -> token, one field per holder inside
-- KEYS[2] the lock's resource hash: token (highest written), writer (its holder), granted (highest entered)
-- KEYS[3] the run's statistics hash: fields '<fault>:<counter>'
-- KEYS[4] the string naming the fault now under way
-- KEYS[5] the hash lock name -> when it was last entered, Redis TIME in ms
-- ARGV[1] the holder id (unique per hold), ARGV[2] its fencing token, ARGV[3] the lock name
-- Returns {others inside before this entry, write outcome: 1 written, 0 refused, 2 stale accepted}
-- Cost: O(1): a handful of commands.
local fault = redis.call('get', KEYS[4]) or 'none'
local now = redis.call('time')
local nowMs = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local last = tonumber(redis.call('hget', KEYS[5], ARGV[3]))
if last then
    local gap = nowMs - last
    if gap > (tonumber(redis.call('hget', KEYS[3], fault .. ':max_gap_ms')) or 0) then
        redis.call('hset', KEYS[3], fault .. ':max_gap_ms', gap)
    end
end
redis.call('hset', KEYS[5], ARGV[3], nowMs)
redis.call('hincrby', KEYS[3], fault .. ':acquisitions', 1)

local others = redis.call('hlen', KEYS[1])
redis.call('hset', KEYS[1], ARGV[1], ARGV[2])
if others > 0 then
    redis.call('hincrby', KEYS[3], fault .. ':overlaps', 1)
end

local token = tonumber(ARGV[2])
local granted = tonumber(redis.call('hget', KEYS[2], 'granted')) or 0
if token > granted then
    redis.call('hset', KEYS[2], 'granted', ARGV[2])
end
-- The fenced write, as fenced-write.lua in lock-tests and the README do it, with the verdict kept.
local stored = tonumber(redis.call('hget', KEYS[2], 'token')) or 0
if token < stored then
    redis.call('hincrby', KEYS[3], fault .. ':refused', 1)
    return {others, 0}
end
local outcome = 1
if token < granted or (token == stored and redis.call('hget', KEYS[2], 'writer') ~= ARGV[1]) then
    -- A token handed out again (to this hold and an earlier one): the README's script lets it write.
    outcome = 2
    redis.call('hincrby', KEYS[3], fault .. ':stale_accepted', 1)
end
redis.call('hset', KEYS[2], 'token', ARGV[2], 'writer', ARGV[1])
return {others, outcome}
