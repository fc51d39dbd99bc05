-- One try at a fair lock. Grants it when the lock is free and the caller is first in line (or
-- the line is empty); otherwise puts the caller at the back of the line, or keeps its place and
-- pushes its eviction deadline back, and answers how long it may wait before trying again.
-- KEYS[1]  the lock hash: field <clientId>:<ownerId> -> hold count, and the owner's last call id
--          (see lock-core's acquire.lua)
-- KEYS[2]  the queue: list of waiter fields, first in line at the head
-- KEYS[3]  the timeouts: sorted set of waiter field -> eviction deadline (ms, Redis TIME)
-- KEYS[4]  the lock's unlock channel
-- KEYS[5]  the fencing counter of the lock's hash slot (see lock-core's acquire.lua): a new hold's
--          token is max(counter + 1, Redis TIME in microseconds), and the counter ends at it
-- KEYS[6]  the secrets: hash of waiter field -> the secret its last try left with its place
-- ARGV[1]  lease in milliseconds
-- ARGV[2]  the caller's field
-- ARGV[3]  fairLockWaitTimeout in milliseconds: how long a place lasts without a try
-- ARGV[4]  the publish command: 'publish' or 'spublish'
-- ARGV[5]  this call's id, so that release.lua can undo exactly this grant if its answer is lost
-- ARGV[6]  '' to take the lock or re-enter whatever hold the caller has; else the token of the
--          hold to re-enter, which must still be there (also the hold that release.lua granted
--          the caller, taken on the strength of its message: sent again with the same call id,
--          it answers as the first time and changes nothing)
-- ARGV[7]  a one-time secret of this try, made by the caller (random, never used again): kept
--          with the caller's place if it queues, in place of the secret of its earlier try, so
--          that release.lua's grant message can prove to the caller that it is real and came
--          after this try ran (see release.lua); '' or absent keeps none
-- A hold of count 0 is one that release.lua granted the caller and the caller has not taken yet:
-- any try of the caller takes it (count 1, the lock's PEXPIRE = the caller's lease, in place of
-- the grant's, which was the caller's place in line), and wakes the new first in line if the
-- lease ends before that waiter's place does, so that it watches the caller's lease from now on.
-- Returns {1, hold count, token} when the caller now holds the lock; {-1, 0} when ARGV[6] names
-- a hold that is gone, and nothing changed; else {0, the milliseconds to wait at most before
-- the next try (which also keeps the caller's place), ARGV[7] as kept}: the wait at most half of
-- ARGV[3]; for the first in line also at most the holder's lease; for everyone behind it also at
-- most the time until the first one's place runs out, so that dead waiters at the head, however
-- many in a row, are evicted as their places run out, without any message.
-- Whenever someone else becomes first in line (the caller took the lock, or evicted the ones
-- before it), that waiter is woken by name: it must watch the holder's lease from now on.
-- Cost: O(log n) in the queue length n, plus O(log n) for each expired waiter evicted; at most
-- 100 evictions per call, however many waiters died at once.
local lock, queue, timeouts, channel, counter, secrets = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local lease, caller, place, publish, call, held = tonumber(ARGV[1]), ARGV[2], tonumber(ARGV[3]), ARGV[4], ARGV[5], ARGV[6]
local secret = ARGV[7] or ''
-- Checked before anything is written: a lease Redis cannot take once left a hold with no expiry.
if not lease or lease < 1 or lease > 31536000000 or lease ~= math.floor(lease) then
    return redis.error_reply('ERR latchkey: the lease must be 1 to 31536000000 ms (a year), not ' .. tostring(ARGV[1]))
end
local max_evictions = 100
local token_field = caller .. ':token'
local max_token = 9007199254740991 -- 2^53 - 1

-- A new hold's fencing token, as an exact decimal string, and the counter's increment that takes
-- it, or an error reply: max(counter + 1, Redis TIME in microseconds), the rule of lock-core's
-- acquire.lua (see there why), so that fair and plain holds share one token sequence per slot.
local function next_token()
    local value = redis.call('get', counter)
    local last = tonumber(value or '0')
    local time = redis.call('time')
    local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
    if not last or last < 0 or last ~= math.floor(last) or math.max(last + 1, now) > max_token then
        return nil, redis.error_reply('ERR latchkey: the fencing counter ' .. counter .. ' holds ' .. (value or 'nothing')
                .. ', not a count of tokens that leaves room for 1 more below 2^53')
    end
    local first = math.max(last + 1, now)
    return string.format('%.0f', first), string.format('%.0f', first - last)
end

-- One more hold for the caller, a new hold taking the next token; a re-entry never shortens the
-- lease, a new hold or a granted one taken gets exactly the caller's (the grant's TTL was a place
-- in line, not a lease).
local function grant()
    -- The counter first, then the call's id: a user whose ACL lacks INCRBY or HSET is refused
    -- before the lock changed (see lock-core's acquire.lua).
    local token = redis.call('hget', lock, token_field)
    local new_token = not token
    if new_token then
        local increment
        token, increment = next_token()
        if not token then
            return increment
        end
        redis.call('incrby', counter, increment)
    end
    redis.call('hset', lock, caller .. ':call', call)
    if new_token then
        redis.call('hset', lock, token_field, token)
    end
    local count = redis.call('hincrby', lock, caller, 1)
    if count == 1 or redis.call('pttl', lock) < lease then
        redis.call('pexpire', lock, lease)
    end
    if count == 1 and not new_token then
        -- A granted hold taken: its grant left the next waiter first in line, unwoken. That waiter
        -- comes back by itself within half its place of its last try (every answer bounds its
        -- wait so), so before its deadline minus half a place: woken only if the lease ends before
        -- its deadline, to watch the lease from now on. A take that outlasts it (the watchdog's
        -- lease with the default place) sends nothing, so that the waiter is not sent into a try
        -- just as the holder's release, pipelined behind the take, grants it the lock.
        local next_waiter = redis.call('lindex', queue, 0)
        if next_waiter then
            local deadline = tonumber(redis.call('zscore', timeouts, next_waiter) or '0')
            local time = redis.call('time')
            local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
            if deadline - now > lease then
                redis.call(publish, channel, next_waiter)
            end
        end
    end
    return {1, count, tonumber(token)}
end

-- A counter that cannot give another token fails a new hold's try before anything is written:
-- the evictions below write, and Redis keeps what a script wrote before an error.
if redis.call('hexists', lock, token_field) == 0 then
    local token, failure = next_token()
    if not token then
        return failure
    end
end

if held ~= '' then
    if redis.call('hget', lock, token_field) ~= held then
        return {-1, 0}
    end
    if redis.call('hget', lock, caller .. ':call') == call then
        -- This very call ran before and its answer was lost (a granted hold's take, sent again).
        return {1, tonumber(redis.call('hget', lock, caller)), tonumber(held)}
    end
    return grant()
end

-- Re-entry, and a free lock nobody queues for: no queue (the clock only for a new hold's token).
if redis.call('hexists', lock, caller) == 1
        or (redis.call('exists', lock) == 0 and redis.call('exists', queue) == 0) then
    return grant()
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
    redis.call('hdel', secrets, head)
    evicted = evicted + 1
    head = redis.call('lindex', queue, 0)
end

if redis.call('exists', lock) == 0 then
    if not head or head == caller then
        local granted = grant()
        if head then
            redis.call('lpop', queue)
            redis.call('zrem', timeouts, caller)
            redis.call('hdel', secrets, caller)
            local next_waiter = redis.call('lindex', queue, 0)
            if next_waiter then
                redis.call(publish, channel, next_waiter)
            end
        end
        return granted
    end
end
if evicted > 0 and head and head ~= caller then
    redis.call(publish, channel, head)
end

-- Join the back of the line, or keep the place and push the deadline back.
if redis.call('zadd', timeouts, now + place, caller) == 1 then
    redis.call('rpush', queue, caller)
end
if secret ~= '' then
    redis.call('hset', secrets, caller, secret)
else
    redis.call('hdel', secrets, caller)
end
head = head or caller
-- The keys of the line last until the latest deadline, so they vanish even if every waiter dies.
local latest = redis.call('zrange', timeouts, -1, -1, 'withscores')
local keys_ttl = math.max(1, tonumber(latest[2]) - now)
redis.call('pexpire', queue, keys_ttl)
redis.call('pexpire', timeouts, keys_ttl)
if secret ~= '' then
    redis.call('pexpire', secrets, keys_ttl)
end

local wait = math.max(1, math.floor(place / 2))
if head == caller then
    local holder_lease = redis.call('pttl', lock)
    if holder_lease > 0 and holder_lease < wait then
        wait = holder_lease
    end
else
    -- Everyone behind the first, not only the second, tries again when the first one's place
    -- runs out: if the waiters between are dead too, the second is no one to count on, and a
    -- waiter further back that kept its own cadence came up to half its place late (a free lock
    -- idle for 1.5 x the place, issue 28). A live first pushes its deadline back at least every
    -- half place, so this cap binds only when the first has stopped trying.
    local deadline = redis.call('zscore', timeouts, head)
    local left = deadline and (tonumber(deadline) - now) or 0
    wait = math.max(1, math.min(wait, left))
end
return {0, wait, secret}
