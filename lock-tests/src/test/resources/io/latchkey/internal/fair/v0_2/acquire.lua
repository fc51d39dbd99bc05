-- One try at a fair lock. Grants it when the lock is free and the caller is first in line (or
-- the line is empty); otherwise puts the caller at the back of the line, or keeps its place and
-- pushes its eviction deadline back, and answers how long it may wait before trying again.
-- KEYS[1]  the lock hash: field <clientId>:<ownerId> -> hold count, and the owner's last call id
--          (see lock-core's acquire.lua)
-- KEYS[2]  the queue: list of waiter fields, first in line at the head
-- KEYS[3]  the timeouts: sorted set of waiter field -> eviction deadline (ms, Redis TIME)
-- KEYS[4]  the lock's unlock channel
-- ARGV[1]  lease in milliseconds
-- ARGV[2]  the caller's field
-- ARGV[3]  fairLockWaitTimeout in milliseconds: how long a place lasts without a try
-- ARGV[4]  the publish command: 'publish' or 'spublish'
-- ARGV[5]  this call's id, so that release.lua can undo exactly this grant if its answer is lost
-- Returns {1, hold count} when the caller now holds the lock, else {0, the milliseconds to wait
-- at most before
-- the next try (which also keeps the caller's place)}: at most half of ARGV[3]; for the first in
-- line also at most the holder's lease; for the second in line also at most the time until the
-- first one's place runs out, so that a dead first waiter is evicted without any message.
-- Whenever someone else becomes first in line (the caller took the lock, or evicted the ones
-- before it), that waiter is woken by name: it must watch the holder's lease from now on.
-- Cost: O(log n) in the queue length n, plus O(log n) for each expired waiter evicted; at most
-- 100 evictions per call, however many waiters died at once.
local lock, queue, timeouts, channel = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local lease, caller, place, publish, call = tonumber(ARGV[1]), ARGV[2], tonumber(ARGV[3]), ARGV[4], ARGV[5]
local max_evictions = 100

-- One more hold for the caller; a re-entry never shortens the lease.
local function grant()
    -- The call's id first: a user whose ACL lacks HSET is refused before anything changed.
    redis.call('hset', lock, caller .. ':call', call)
    local count = redis.call('hincrby', lock, caller, 1)
    if redis.call('pttl', lock) < lease then
        redis.call('pexpire', lock, lease)
    end
    return count
end

-- Re-entry, and a free lock nobody queues for: no clock, no queue.
if redis.call('hexists', lock, caller) == 1
        or (redis.call('exists', lock) == 0 and redis.call('exists', queue) == 0) then
    return {1, grant()}
end

local time = redis.call('time')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)

-- Evict waiters at the head whose place ran out: they stopped trying, so their process is
-- taken for dead. A waiter without a deadline counts as run out; the caller is alive.
local evicted = 0
local head = redis.call('lindex', queue, 0)
while head and head ~= caller and evicted < max_evictions do
    local deadline = redis.call('zscore', timeouts, head)
    if deadline and tonumber(deadline) > now then
        break
    end
    redis.call('lpop', queue)
    redis.call('zrem', timeouts, head)
    evicted = evicted + 1
    head = redis.call('lindex', queue, 0)
end

if redis.call('exists', lock) == 0 then
    if not head or head == caller then
        local count = grant()
        if head then
            redis.call('lpop', queue)
            redis.call('zrem', timeouts, caller)
            local next_waiter = redis.call('lindex', queue, 0)
            if next_waiter then
                redis.call(publish, channel, next_waiter)
            end
        end
        return {1, count}
    end
end
if evicted > 0 and head and head ~= caller then
    redis.call(publish, channel, head)
end

-- Join the back of the line, or keep the place and push the deadline back.
if redis.call('zadd', timeouts, now + place, caller) == 1 then
    redis.call('rpush', queue, caller)
end
head = head or caller
-- Both keys last until the latest deadline, so they vanish even if every waiter dies.
local latest = redis.call('zrange', timeouts, -1, -1, 'withscores')
local keys_ttl = math.max(1, tonumber(latest[2]) - now)
redis.call('pexpire', queue, keys_ttl)
redis.call('pexpire', timeouts, keys_ttl)

local wait = math.max(1, math.floor(place / 2))
if head == caller then
    local holder_lease = redis.call('pttl', lock)
    if holder_lease > 0 and holder_lease < wait then
        wait = holder_lease
    end
elseif evicted == max_evictions or redis.call('lindex', queue, 1) == caller then
    local deadline = redis.call('zscore', timeouts, head)
    local left = deadline and (tonumber(deadline) - now) or 0
    wait = math.max(1, math.min(wait, left))
end
return {0, wait}
