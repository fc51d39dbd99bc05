-- One try at the read lock of a read-write lock: takes or re-enters the caller's read hold,
-- unless another owner writes or a writer waits; gives every new hold a fencing token.
-- KEYS[1]  the lock hash: field mode -> 'read' or 'write'; field writer -> the write hold's field
--          while one is held; per hold (field <clientId>:<ownerId>:read or ...:write) its count,
--          and beside it <field>:call -> the id of the hold's last call that changed the count
--          and <field>:token -> the hold's fencing token
-- KEYS[2]  the leases: sorted set of hold field -> the end of its lease, in ms of Redis TIME;
--          a hold whose lease ended is gone, whatever the hash still says
-- KEYS[3]  the waiting writers: sorted set of writer field -> the end of its place, in ms of
--          Redis TIME (see acquire-write.lua)
-- KEYS[4]  the fencing counter of the lock's hash slot, shared with every lock kind
-- ARGV[1]  lease in milliseconds
-- ARGV[2]  the caller's read field
-- ARGV[3]  the caller's write field, so that the writer's own read passes the waiting writers
-- ARGV[4]  this call's id, so that release.lua can undo exactly this grant if its answer is lost
-- ARGV[5]  '' to take the read lock or re-enter whatever read hold the caller has; else the
--          token of the read hold to re-enter, which must still be there
-- Returns {1, hold count, token} when the caller now holds the read lock; {-1, 0} when ARGV[5]
-- names a hold that is gone, and nothing changed; else {0, the milliseconds after which a retry
-- is worth it without a message}: the writer's remaining lease, or the time until the last
-- waiting writer's place runs out (a dead writer must not hold readers back for longer).
-- A caller that already holds the read lock re-enters it even while a writer waits: it is no new
-- arrival. A new reader waits while another owner writes or any writer waits. The key TTLs
-- follow the latest lease. A re-entry never shortens the lease.
-- Cost: O(log n) in the number of holds n; up to 10 holds whose leases ended are cleared out
-- per call (more than a call can add, so they never pile up).
local lock, leases, writers, counter = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local lease, reader, own_writer, call, held = tonumber(ARGV[1]), ARGV[2], ARGV[3], ARGV[4], ARGV[5]

local mode = redis.call('hget', lock, 'mode')
if not mode and redis.call('exists', lock) == 1 then
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

-- One more level of the caller's read hold; a new hold takes the next token.
local function grant(ends)
    -- The counter first: a user whose ACL lacks INCR is refused before the lock changed.
    local token = redis.call('hget', lock, reader .. ':token')
    local new_token = not token
    if new_token then
        token = redis.call('incr', counter)
    end
    local expires = now + lease
    if not ends or ends < expires then
        redis.call('zadd', leases, expires, reader)
    end
    if not mode then
        redis.call('hset', lock, 'mode', 'read')
    end
    redis.call('hset', lock, reader .. ':call', call)
    if new_token then
        redis.call('hset', lock, reader .. ':token', token)
    end
    local count = redis.call('hincrby', lock, reader, 1)
    if redis.call('zrange', leases, -1, -1)[1] == reader then
        -- The latest lease is now this one: both keys last as long.
        redis.call('pexpire', lock, lease)
        redis.call('pexpire', leases, lease)
    end
    return {1, count, tonumber(token)}
end

local ends = lease_end(reader)
local holding = ends and ends > now
if held ~= '' then
    if not holding or redis.call('hget', lock, reader .. ':token') ~= held then
        return {-1, 0}
    end
    return grant(ends)
end
if holding then
    return grant(ends)
end
if ends then
    drop(reader) -- an earlier hold of the caller whose lease ended: the grant starts a new one
    ends = nil
end

local writer = redis.call('hget', lock, 'writer')
if writer then
    local writer_ends = lease_end(writer)
    if writer_ends and writer_ends > now then
        if writer ~= own_writer then
            return {0, writer_ends - now}
        end
    else
        drop(writer)
        writer = nil
    end
end

for _, expired in ipairs(redis.call('zrangebyscore', leases, '-inf', now, 'LIMIT', 0, 10)) do
    drop(expired)
end

-- Writers are not starved: a new reader waits behind a live waiting writer. The writer's own
-- read is no arrival of that kind: the waiting writers wait for its hold to end anyway.
if not writer and redis.call('zcount', writers, '(' .. now, '+inf') > 0 then
    local last = redis.call('zrange', writers, -1, -1, 'WITHSCORES')
    return {0, math.max(1, tonumber(last[2]) - now)}
end
return grant(nil)
