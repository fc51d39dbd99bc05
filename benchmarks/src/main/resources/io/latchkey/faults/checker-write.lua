-- A holder writes to the fenced resource of one lock name again (a reader: reads it again), later
-- in its critical section. The resource's own check is fenced-write.lua's (refuse a token below
-- the highest written; a writer's also below the highest read); the checker also knows the
-- highest token that entered, so it can tell which accepted writes were stale all the same. A
-- reader's read is stale when a writer with a later token entered; readers of two clients are not
-- ordered by their tokens, so a reader's token is never held against another reader's.
-- Runs on the checker Redis, never on the lock's Redis.
-- KEYS[1] the lock's resource hash: token (highest written), writer (its holder), read (highest
--         token read), granted (highest entered), wgranted (highest entered by a writer)
-- KEYS[2] the run's statistics hash: fields '<fault>:<counter>'
-- KEYS[3] the string naming the fault now under way
-- KEYS[4] the run's per-kind hash: fields '<kind>:<counter>'
-- ARGV[1] the holder id, ARGV[2] its fencing token, ARGV[3] 'write' or 'read', ARGV[4] the lock's kind
-- Returns 1 written (or read), 0 refused, 2 accepted although stale (a later hold had entered, or
-- had the same token)
-- Cost: O(1).
local fault = redis.call('get', KEYS[3]) or 'none'
local kind = ARGV[4]
local reading = ARGV[3] == 'read'
local token = tonumber(ARGV[2])
local stored = tonumber(redis.call('hget', KEYS[1], 'token')) or 0
local highestRead = tonumber(redis.call('hget', KEYS[1], 'read')) or 0
if token < stored or (not reading and token < highestRead) then
    redis.call('hincrby', KEYS[2], fault .. ':refused', 1)
    redis.call('hincrby', KEYS[4], kind .. ':refused', 1)
    return 0
end
local stale
if reading then
    stale = token < (tonumber(redis.call('hget', KEYS[1], 'wgranted')) or 0) or token == stored
else
    stale = token < (tonumber(redis.call('hget', KEYS[1], 'granted')) or 0) or token == highestRead
        or (token == stored and redis.call('hget', KEYS[1], 'writer') ~= ARGV[1])
end
local outcome = 1
if stale then
    outcome = 2
    redis.call('hincrby', KEYS[2], fault .. ':stale_accepted', 1)
    redis.call('hincrby', KEYS[4], kind .. ':stale_accepted', 1)
end
if reading then
    if token > highestRead then
        redis.call('hset', KEYS[1], 'read', ARGV[2])
    end
else
    redis.call('hset', KEYS[1], 'token', ARGV[2], 'writer', ARGV[1])
end
return outcome
