-- One try at either side of a read-write lock: takes or re-enters the caller's read or write
-- hold, or answers how long a wait is worth; gives every new hold a fencing token.
-- KEYS[1]  the lock hash: field mode -> 'read' or 'write'; field writer -> the write hold's field
--          while one is held; per hold (field <clientId>:<ownerId>:read or ...:write) its count,
--          and beside it <field>:call -> the id of the hold's last call that changed the count
--          and <field>:token -> the hold's fencing token
-- KEYS[2]  the leases: sorted set of hold field -> the end of its lease, in ms of Redis TIME;
--          a hold whose lease ended is gone, whatever the hash still says
-- KEYS[3]  the waiting writers: sorted set of writer field -> the end of its place, in ms of
--          Redis TIME; a writer whose place ran out stopped trying (its process died) and no
--          longer holds readers back
-- KEYS[4]  the fencing counter of the lock's hash slot, shared with every lock kind: a new hold's
--          token is max(counter + 1, Redis TIME in microseconds), and the counter ends at it
-- ARGV[1]  the side: 'read' or 'write'
-- ARGV[2]  lease in milliseconds
-- ARGV[3]  the caller's field on that side
-- ARGV[4]  the caller's field on the other side
-- ARGV[5]  this call's id, so that release.lua can undo exactly this grant if its answer is lost
-- ARGV[6]  '' to take the lock or re-enter whatever hold the caller has on that side; 'fresh' to
--          take a new hold, replacing one of the caller's that Redis may still have (a client's
--          shared read hold that it gave up for lost must never be re-entered); else the token of
--          the hold to re-enter, which must still be there
-- ARGV[7]  how long a waiting writer's place lasts without a try, in milliseconds
-- ARGV[8]  optional, default 1: how many tokens a new hold reserves, its own the first of them
--          (a client's shared read hold: its local readers take the others; see reserve.lua)
-- Returns {1, hold count, token} when the caller now holds that side; {-1, 0} when ARGV[6] names
-- a hold that is gone; {-2, 0} when the caller asks for the write lock while it holds the read
-- lock and not the write lock (an upgrade, which would wait for itself: refused); in both cases
-- nothing changed. Else {0, the milliseconds after which a retry is worth it without a message}.
-- Read: a new reader waits while another owner writes (at most until the writer's lease ends) or
-- a live writer waits (at most until the last waiting writer's place runs out: a dead writer must
-- not hold readers back for longer). A caller that already reads re-enters even while a writer
-- waits: it is no new arrival; and the writer's own read passes the waiting writers.
-- Write: granted when nobody else reads or writes; otherwise the caller keeps its place among the
-- waiting writers, which holds new readers back, and waits at most half a place (so that a live
-- writer keeps it) and at most until the holders' leases end. The writer re-enters also while it
-- reads.
-- The keys last as long as the latest lease (the waiting writers: the latest place). A re-entry
-- never shortens the lease.
-- Cost: O(log n) in the number of holds and waiting writers; up to 10 holds whose leases ended
-- are cleared out per call (more than a call can add, so they never pile up), and a waiting
-- writer's try clears out every waiting writer whose place ran out.
local lock, leases, writers, counter = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local side, lease, field, sibling, call, held, place =
    ARGV[1], tonumber(ARGV[2]), ARGV[3], ARGV[4], ARGV[5], ARGV[6], tonumber(ARGV[7])
local block = tonumber(ARGV[8] or '1')
local reading = side == 'read'
local fresh = held == 'fresh'
if fresh then
    held = ''
end

-- Checked before anything is written: a lease Redis cannot take once left a hold with no expiry.
if not lease or lease < 1 or lease > 31536000000 or lease ~= math.floor(lease) then
    return redis.error_reply('ERR latchkey: the lease must be 1 to 31536000000 ms (a year), not ' .. tostring(ARGV[2]))
end
if not block or block < 1 or block > 1000000 or block ~= math.floor(block) then
    return redis.error_reply('ERR latchkey: the token block must be 1 to 1000000, not ' .. tostring(ARGV[8]))
end

local mode = redis.call('hget', lock, 'mode')
if not mode and redis.call('exists', lock) == 1 then
    -- Another lock kind (getLock, getFairLock) holds this name.
    return {0, redis.call('pttl', lock)}
end
local time = redis.call('time')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local now_micros = tonumber(time[1]) * 1000000 + tonumber(time[2])
local max_token = 9007199254740991 -- 2^53 - 1

-- A new hold's fencing token, as an exact decimal string, and the counter's increment that takes
-- it, or an error reply: max(counter + 1, Redis TIME in microseconds), the rule of the plain
-- lock's acquire.lua (see there why), so that every kind shares one token sequence per slot.
local function next_token()
    local value = redis.call('get', counter)
    local last = tonumber(value or '0')
    if not last or last < 0 or last ~= math.floor(last) or math.max(last + 1, now_micros) > max_token - (block - 1) then
        return nil, redis.error_reply('ERR latchkey: the fencing counter ' .. counter .. ' holds ' .. (value or 'nothing')
                .. ', not a count of tokens that leaves room for ' .. block .. ' more below 2^53')
    end
    local first = math.max(last + 1, now_micros)
    return string.format('%.0f', first), string.format('%.0f', first + block - 1 - last)
end

-- The end of a hold's lease, or nil if it has none.
local function lease_end(hold)
    local score = redis.call('zscore', leases, hold)
    return score and tonumber(score)
end

-- Clears out a hold whose lease ended.
local function drop(hold)
    redis.call('hdel', lock, hold, hold .. ':call', hold .. ':token')
    redis.call('zrem', leases, hold)
    if redis.call('hget', lock, 'writer') == hold then
        redis.call('hdel', lock, 'writer')
        redis.call('hset', lock, 'mode', 'read')
    end
end

-- One more level of the caller's hold; a new hold takes the next token.
local function grant(ends)
    -- The counter first: a user whose ACL lacks INCRBY is refused before the lock changed.
    local token = redis.call('hget', lock, field .. ':token')
    local new_token = not token
    if new_token then
        local increment
        token, increment = next_token()
        if not token then
            return increment
        end
        redis.call('incrby', counter, increment)
    end
    local expires = now + lease
    if not ends or ends < expires then
        redis.call('zadd', leases, expires, field)
    end
    if reading then
        if not mode then
            redis.call('hset', lock, 'mode', 'read')
        end
        if new_token then
            redis.call('hset', lock, field .. ':token', token)
        end
    elseif new_token then
        redis.call('zrem', writers, field)
        redis.call('hset', lock, 'mode', 'write', 'writer', field, field .. ':token', token)
    end
    redis.call('hset', lock, field .. ':call', call)
    local count = redis.call('hincrby', lock, field, 1)
    if redis.call('zrange', leases, -1, -1)[1] == field then
        -- The latest lease is now this one: both keys last as long.
        redis.call('pexpire', lock, lease)
        redis.call('pexpire', leases, lease)
    end
    return {1, count, tonumber(token)}
end

local ends = lease_end(field)
-- A fresh hold never re-enters one of the caller's: what Redis still has of it goes below.
local holding = not fresh and ends and ends > now
if held ~= '' then
    if not holding or redis.call('hget', lock, field .. ':token') ~= held then
        return {-1, 0}
    end
    return grant(ends)
end
if holding then
    return grant(ends)
end
if not reading then
    local read_ends = lease_end(sibling)
    if read_ends and read_ends > now then
        return {-2, 0}
    end
end

-- A new hold. A counter that cannot give another token fails it before anything is written: the
-- clean-ups below write, and Redis keeps what a script wrote before an error.
do
    local token, failure = next_token()
    if not token then
        return failure
    end
end
-- What an earlier hold of the caller on this side left (its lease ended) goes first.
if ends then
    drop(field)
end
local wait
local writer = redis.call('hget', lock, 'writer')
if writer then
    local writer_ends = lease_end(writer)
    if not writer_ends or writer_ends <= now then
        drop(writer)
        writer = nil
    elseif writer ~= sibling then
        wait = writer_ends - now
    end
end
if reading and wait then
    return {0, wait}
end
for _, expired in ipairs(redis.call('zrangebyscore', leases, '-inf', now, 'LIMIT', 0, 10)) do
    drop(expired)
end

if reading then
    -- Writers are not starved: a new reader waits behind a live waiting writer. The writer's own
    -- read (writer is the caller's sibling) is no arrival of that kind: the waiting writers wait
    -- for its hold to end anyway.
    if not writer and redis.call('zcount', writers, '(' .. now, '+inf') > 0 then
        local last = redis.call('zrange', writers, -1, -1, 'WITHSCORES')
        return {0, math.max(1, tonumber(last[2]) - now)}
    end
    return grant(nil)
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
redis.call('zadd', writers, now + place, field)
if redis.call('zrange', writers, -1, -1)[1] == field then
    -- The latest place is now this one: the set lasts as long.
    redis.call('pexpire', writers, place)
end
return {0, math.max(1, math.min(math.floor(place / 2), wait))}
