-- One try at the write lock of a read-write lock: takes or re-enters the caller's write hold
-- when nobody else holds either lock; otherwise keeps the caller's place among the waiting
-- writers, which holds new readers back. Gives every new hold a fencing token.
-- KEYS[1]  the lock hash (see acquire-read.lua)
-- KEYS[2]  the leases: sorted set of hold field -> the end of its lease, in ms of Redis TIME
-- KEYS[3]  the waiting writers: sorted set of writer field -> the end of its place, in ms of
--          Redis TIME; a writer whose place ran out stopped trying (its process died) and no
--          longer holds readers back
-- KEYS[4]  the fencing counter of the lock's hash slot, shared with every lock kind
-- ARGV[1]  lease in milliseconds
-- ARGV[2]  the caller's write field
-- ARGV[3]  the caller's read field
-- ARGV[4]  this call's id, so that release.lua can undo exactly this grant if its answer is lost
-- ARGV[5]  '' to take the write lock or re-enter whatever write hold the caller has; else the
--          token of the write hold to re-enter, which must still be there
-- ARGV[6]  how long a waiting writer's place lasts without a try, in milliseconds
-- Returns {1, hold count, token} when the caller now holds the write lock; {-1, 0} when ARGV[5]
-- names a hold that is gone; {-2, 0} when the caller holds the read lock and not the write lock
-- (an upgrade, which would wait for itself: refused); in both cases nothing changed. Else {0,
-- the milliseconds to wait at most before the next try}: at most half a place, so that a live
-- writer keeps it, and at most the time until the holders' leases end.
-- The owner of the write lock re-enters it also while it holds the read lock.
-- Cost: O(log n) in the number of holds and waiting writers; up to 10 holds whose leases ended
-- are cleared out per call, and every waiting writer whose place ran out.
local lock, leases, writers, counter = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local lease, writer, own_reader, call, held, place =
    tonumber(ARGV[1]), ARGV[2], ARGV[3], ARGV[4], ARGV[5], tonumber(ARGV[6])

if not redis.call('hget', lock, 'mode') and redis.call('exists', lock) == 1 then
    -- Another lock kind (getLock, getFairLock) holds this name.
    return {0, redis.call('pttl', lock)}
end
local time = redis.call('time')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)

-- The end of a hold's lease, or nil if it has none.
local function lease_end(field)
    local score = redis.call('zscore', leases, field)
    return score and tonumber(score)
end

-- Clears out a hold whose lease ended.
local function drop(field)
    redis.call('hdel', lock, field, field .. ':call', field .. ':token')
    redis.call('zrem', leases, field)
    if redis.call('hget', lock, 'writer') == field then
        redis.call('hdel', lock, 'writer')
        redis.call('hset', lock, 'mode', 'read')
    end
end

-- One more level of the caller's write hold; a new hold takes the next token.
local function grant(ends)
    -- The counter first: a user whose ACL lacks INCR is refused before the lock changed.
    local token = redis.call('hget', lock, writer .. ':token')
    local new_token = not token
    if new_token then
        token = redis.call('incr', counter)
    end
    local expires = now + lease
    if not ends or ends < expires then
        redis.call('zadd', leases, expires, writer)
    end
    if new_token then
        redis.call('zrem', writers, writer)
        redis.call('hset', lock, 'mode', 'write', 'writer', writer, writer .. ':token', token)
    end
    redis.call('hset', lock, writer .. ':call', call)
    local count = redis.call('hincrby', lock, writer, 1)
    if redis.call('zrange', leases, -1, -1)[1] == writer then
        -- The latest lease is now this one: both keys last as long.
        redis.call('pexpire', lock, lease)
        redis.call('pexpire', leases, lease)
    end
    return {1, count, tonumber(token)}
end

local ends = lease_end(writer)
local holding = ends and ends > now
if held ~= '' then
    if not holding or redis.call('hget', lock, writer .. ':token') ~= held then
        return {-1, 0}
    end
    return grant(ends)
end
if holding then
    return grant(ends)
end
local reading = lease_end(own_reader)
if reading and reading > now then
    return {-2, 0}
end

-- A new hold. What the caller's earlier holds left (their leases ended) goes first.
if ends then
    drop(writer)
end
if reading then
    drop(own_reader)
end
local wait
local other = redis.call('hget', lock, 'writer')
if other then
    local other_ends = lease_end(other)
    if other_ends and other_ends > now then
        wait = other_ends - now
    else
        drop(other)
    end
end
for _, expired in ipairs(redis.call('zrangebyscore', leases, '-inf', now, 'LIMIT', 0, 10)) do
    drop(expired)
end
if not wait and redis.call('zcount', leases, '(' .. now, '+inf') > 0 then
    -- Readers hold it: the last of their leases to end bounds the wait.
    wait = tonumber(redis.call('zrange', leases, -1, -1, 'WITHSCORES')[2]) - now
end
if not wait then
    return grant(nil)
end

-- Keep the caller's place: new readers wait behind it from now on.
redis.call('zremrangebyscore', writers, '-inf', now)
redis.call('zadd', writers, now + place, writer)
if redis.call('zrange', writers, -1, -1)[1] == writer then
    -- The latest place is now this one: the set lasts as long.
    redis.call('pexpire', writers, place)
end
return {0, math.max(1, math.min(math.floor(place / 2), wait))}
