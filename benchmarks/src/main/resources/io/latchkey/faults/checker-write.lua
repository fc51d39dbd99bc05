-- A holder writes to the fenced resource of one lock name again, later in its critical section.
-- The resource's own check is fenced-write.lua's (refuse a token below the highest written);
-- the checker also knows the highest token that entered, so it can tell which accepted writes
-- were stale all the same.
-- Runs on the checker Redis, never on the lock's Redis.
-- KEYS[1] the lock's resource hash: token (highest written), writer (its holder), granted (highest entered)
-- KEYS[2] the run's statistics hash: fields '<fault>:<counter>'
-- KEYS[3] the string naming the fault now under way
-- ARGV[1] the holder id, ARGV[2] its fencing token
-- Returns 1 written, 0 refused, 2 written although stale (a later hold had entered, or had the same token)
-- Cost: O(1).
local fault = redis.call('get', KEYS[3]) or 'none'
local token = tonumber(ARGV[2])
local stored = tonumber(redis.call('hget', KEYS[1], 'token')) or 0
if token < stored then
    redis.call('hincrby', KEYS[2], fault .. ':refused', 1)
    return 0
end
local outcome = 1
local granted = tonumber(redis.call('hget', KEYS[1], 'granted')) or 0
if token < granted or (token == stored and redis.call('hget', KEYS[1], 'writer') ~= ARGV[1]) then
    outcome = 2
    redis.call('hincrby', KEYS[2], fault .. ':stale_accepted', 1)
end
redis.call('hset', KEYS[1], 'token', ARGV[2], 'writer', ARGV[1])
return outcome
