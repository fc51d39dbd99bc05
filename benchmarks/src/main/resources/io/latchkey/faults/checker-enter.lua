-- A holder enters the critical section of one lock name: marks itself inside, then writes to the
-- fenced resource with its token (a writer) or reads it (a reader), in one step, so that no stale
-- write can slip in between a new hold's entry and its first write (the window the README names
-- as fencing's limit).
-- Runs on the checker Redis, never on the lock's Redis.
-- KEYS[1] the lock's inside hash of exclusive holders (writers): holder id -> token
-- KEYS[2] the lock's resource hash: token (highest written), writer (its holder), read (highest
--         token read), granted (highest entered), wgranted (highest entered by a writer)
-- KEYS[3] the run's statistics hash: fields '<fault>:<counter>'
-- KEYS[4] the string naming the fault now under way
-- KEYS[5] the hash lock name -> when it was last entered, Redis TIME in ms
-- KEYS[6] the lock's inside hash of shared holders (readers): holder id -> token
-- KEYS[7] the run's per-kind hash: fields '<kind>:<counter>'
-- ARGV[1] the holder id (unique per hold, '<worker>:<thread>:<seq>'), ARGV[2] its fencing token,
-- ARGV[3] the lock name, ARGV[4] 'write' (exclusive) or 'read' (shared), ARGV[5] the lock's kind
-- Returns {others inside before this entry that exclude it, outcome: 1 written or read, 0 refused,
--          2 stale accepted}
-- An exclusive holder excludes everyone; a reader excludes writers only, so readers inside
-- together are no overlap. A reader's check is the resource's for a read: refused below the
-- highest token written (a later writer wrote), never raising it, since readers of two clients
-- are not ordered by their tokens; a writer is refused below the highest token written or read.
-- Cost: O(1) for a writer; O(readers inside) for a reader (it looks for readers of its worker).
local fault = redis.call('get', KEYS[4]) or 'none'
local kind = ARGV[5]
local reading = ARGV[4] == 'read'
local now = redis.call('time')
local nowMs = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local last = tonumber(redis.call('hget', KEYS[5], ARGV[3]))
if last then
    local gap = nowMs - last
    if gap > (tonumber(redis.call('hget', KEYS[3], fault .. ':max_gap_ms')) or 0) then
        redis.call('hset', KEYS[3], fault .. ':max_gap_ms', gap)
    end
    if gap > (tonumber(redis.call('hget', KEYS[7], kind .. ':max_gap_ms')) or 0) then
        redis.call('hset', KEYS[7], kind .. ':max_gap_ms', gap)
    end
end
redis.call('hset', KEYS[5], ARGV[3], nowMs)
redis.call('hincrby', KEYS[3], fault .. ':acquisitions', 1)
redis.call('hincrby', KEYS[7], kind .. ':holds', 1)

local others = redis.call('hlen', KEYS[1])
if reading then
    redis.call('hincrby', KEYS[7], kind .. ':reads', 1)
    local readers = redis.call('hkeys', KEYS[6])
    if #readers > 0 then
        redis.call('hincrby', KEYS[7], kind .. ':reads_beside_readers', 1)
        local worker = string.match(ARGV[1], '^[^:]*:')
        for _, reader in ipairs(readers) do
            if string.sub(reader, 1, string.len(worker)) == worker then
                redis.call('hincrby', KEYS[7], kind .. ':reads_beside_own_readers', 1)
                break
            end
        end
    end
    redis.call('hset', KEYS[6], ARGV[1], ARGV[2])
else
    others = others + redis.call('hlen', KEYS[6])
    redis.call('hset', KEYS[1], ARGV[1], ARGV[2])
end
if others > 0 then
    redis.call('hincrby', KEYS[3], fault .. ':overlaps', 1)
    redis.call('hincrby', KEYS[7], kind .. ':overlaps', 1)
end

local token = tonumber(ARGV[2])
local granted = tonumber(redis.call('hget', KEYS[2], 'granted')) or 0
if token > granted then
    redis.call('hset', KEYS[2], 'granted', ARGV[2])
end
if not reading and token > (tonumber(redis.call('hget', KEYS[2], 'wgranted')) or 0) then
    redis.call('hset', KEYS[2], 'wgranted', ARGV[2])
end
-- The fenced write (or read), as fenced-write.lua in lock-tests and the README do it, with the
-- verdict kept (checker-write.lua makes the same check for the holder's later write or read).
local stored = tonumber(redis.call('hget', KEYS[2], 'token')) or 0
local highestRead = tonumber(redis.call('hget', KEYS[2], 'read')) or 0
if token < stored or (not reading and token < highestRead) then
    redis.call('hincrby', KEYS[3], fault .. ':refused', 1)
    redis.call('hincrby', KEYS[7], kind .. ':refused', 1)
    return {others, 0}
end
local outcome = 1
local stale
if reading then
    -- A writer with a later token entered, or one has this token too.
    stale = token < (tonumber(redis.call('hget', KEYS[2], 'wgranted')) or 0) or token == stored
else
    -- A token handed out again (to this hold and an earlier one): the README's script lets it write.
    stale = token < granted or token == highestRead
        or (token == stored and redis.call('hget', KEYS[2], 'writer') ~= ARGV[1])
end
if stale then
    outcome = 2
    redis.call('hincrby', KEYS[3], fault .. ':stale_accepted', 1)
    redis.call('hincrby', KEYS[7], kind .. ':stale_accepted', 1)
end
if reading then
    if token > highestRead then
        redis.call('hset', KEYS[2], 'read', ARGV[2])
    end
else
    redis.call('hset', KEYS[2], 'token', ARGV[2], 'writer', ARGV[1])
end
return {others, outcome}
