-- Acquires or re-enters a reentrant lock, and gives every new hold a fencing token.
-- KEYS[1]  the lock hash: field <clientId>:<ownerId> -> hold count; beside it field
--          <clientId>:<ownerId>:call -> the id of the owner's last call that changed the count,
--          and field <clientId>:<ownerId>:token -> the hold's fencing token
-- KEYS[2]  the fencing counter of the lock's hash slot, shared by every lock name in the slot
-- KEYS[3]  optional, for clients with local hand-off (a cohort): the lock's waiting mark, the id
--          of the last such client whose try found the lock held, kept for one lease of its try
--          or until that client takes the lock
-- KEYS[4]  with KEYS[3]: the lock's turn, the id of the client that the last cohort release
--          reserved the lock for (see release.lua); while it lasts, other cohort tries take nothing
-- KEYS[5]  with KEYS[3]: the lock's unlock channel, where a try that marks a waiter tells the
--          holder's client '!wait:<client id>' (a notice: it wakes no waiter)
-- ARGV[1]  lease in milliseconds
-- ARGV[2]  the owner's field
-- ARGV[3]  this call's id, so that release.lua can undo exactly this grant if its answer is lost
-- ARGV[4]  '' to take the lock or re-enter whatever hold the owner has; 'fresh' to start a new
--          hold, replacing one of the owner's that its client gave up for lost; else the token
--          of the hold to re-enter, which must still be there
-- ARGV[5]  with KEYS[3]: the size n of the block of fencing tokens a new hold reserves; the
--          hold's token is the block's first, the client hands the other n - 1 to the owners it
--          passes the hold to, and field 'cohort' keeps the hold's token, so that
--          force-release.lua can tell the cohort its hold was deleted
-- ARGV[6]  with KEYS[3]: the publish command, 'publish' or 'spublish'
-- Returns {1, hold count, token} when the owner now holds the lock (with KEYS[3], a fourth element:
-- 1 if the waiting mark named another client, whose cohort must bound its hand-offs); {0, the holder's remaining
-- lease in milliseconds (-1 if the lock has no expiry)} when someone else holds it, so the caller
-- knows how long to wait; {-1, 0} when ARGV[4] names a hold that is gone, and nothing changed.
-- Tokens: a hybrid logical clock. A new hold's token (or block's first) is max(counter + 1, Redis
-- TIME in microseconds), and the counter ends at the hold's last token. The counter only grows and
-- never expires, so a token exceeds every earlier hold's of any name in the slot, also after the
-- lock hash was deleted; the clock makes that outlive the counter itself: a counter lost (a restart
-- without persistence, FLUSHALL) or older than the latest token (a failover to a replica that had
-- not received it) starts again from the clock, above every token given, unless the server's clock
-- went back by more than the time since that token, or tokens were taken faster than one per
-- microsecond for long (see the README's "Fencing tokens"). Tokens stay below 2^53, where Lua's
-- numbers are exact: a counter at or beyond that is refused before anything is written.
-- A re-entry never shortens the lease: a shorter one than the hold already has is ignored.
-- Cost: O(1).
local lock, counter = KEYS[1], KEYS[2]
local lease, owner, call, held = tonumber(ARGV[1]), ARGV[2], ARGV[3], ARGV[4]
local waiting, turn, channel = KEYS[3], KEYS[4], KEYS[5]
local block = tonumber(ARGV[5] or '1')
local client = string.match(owner, '^[^:]*')
local max_token = 9007199254740991 -- 2^53 - 1

-- The first of n new fencing tokens, as an exact decimal string, and the counter's increment that
-- takes them (or an error reply, if the counter holds no count of tokens below 2^53). Only reads:
-- the caller increments the counter as its first write.
local function next_tokens(n)
    local value = redis.call('get', counter)
    local last = tonumber(value or '0')
    local time = redis.call('time')
    local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
    if not last or last < 0 or last ~= math.floor(last) or math.max(last + 1, now) > max_token - n + 1 then
        return nil, redis.error_reply('ERR latchkey: the fencing counter ' .. counter .. ' holds ' .. (value or 'nothing')
                .. ', not a count of tokens that leaves room for ' .. n .. ' more below 2^53')
    end
    local first = math.max(last + 1, now)
    -- '%.0f' writes an integer-valued double exactly; Redis's own conversion of a Lua number
    -- may use an exponent, which INCRBY and the token's field must never see.
    return string.format('%.0f', first), string.format('%.0f', first + n - 1 - last)
end

-- Checked before anything is written: a lease Redis cannot take once left a hold with no expiry.
if not lease or lease < 1 or lease > 31536000000 or lease ~= math.floor(lease) then
    return redis.error_reply('ERR latchkey: the lease must be 1 to 31536000000 ms (a year), not ' .. tostring(ARGV[1]))
end

-- Marks this client as waiting and tells the holder, whose cohort then bounds its hand-offs.
local function wait_for(left)
    redis.call('set', waiting, client, 'px', lease)
    redis.call(ARGV[6], channel, '!wait:' .. client)
    return {0, left}
end

local token_field = owner .. ':token'
local token, replace
if held ~= '' and held ~= 'fresh' then
    token = redis.call('hget', lock, token_field)
    if token ~= held then
        return {-1, 0}
    end
elseif redis.call('hexists', lock, owner) == 1 then
    if held == 'fresh' then
        -- A hold of this owner that its client gave up for lost: the new hold replaces it.
        replace = true
    else
        token = redis.call('hget', lock, token_field)
    end
elseif redis.call('exists', lock) == 1 then
    local left = redis.call('pttl', lock)
    if waiting then
        return wait_for(left)
    end
    return {0, left}
elseif waiting then
    local reserved = redis.call('get', turn)
    if reserved and reserved ~= client then
        return wait_for(redis.call('pttl', turn))
    end
end
-- Every read comes before the first write, so that a key of the wrong type (written by hand)
-- fails the script before anything changed: Redis keeps what a script wrote before an error.
local new_token = not token
local reserved_turn, marked, increment
if waiting and new_token then
    reserved_turn = redis.call('get', turn)
    marked = redis.call('get', waiting)
end
if new_token then
    -- A new hold; or one taken before tokens existed, which gets one now.
    token, increment = next_tokens(block)
    if not token then
        return increment
    end
end
-- Writes in this order, so that a user whose ACL lacks INCRBY or HSET is refused before the lock
-- changed (a lock hash written then would be left without an expiry): the counter first, where
-- a refused HSET leaves a gap only; the lease with the hash's first field.
if new_token then
    redis.call('incrby', counter, increment)
end
if replace then
    redis.call('del', lock)
end
redis.call('hset', lock, owner .. ':call', call)
if redis.call('pttl', lock) < lease then
    redis.call('pexpire', lock, lease)
end
if new_token then
    redis.call('hset', lock, token_field, token)
    if block > 1 then
        redis.call('hset', lock, 'cohort', token)
    end
end
local others_wait = 0
if reserved_turn == client then
    redis.call('del', turn)
end
if marked == client then
    redis.call('del', waiting)
elseif marked then
    -- Another client waits already: the reply tells this hold's cohort, which bounds its
    -- hand-offs from the start; the notice tells it again where the reply is not read.
    redis.call(ARGV[6], channel, '!wait:' .. marked)
    others_wait = 1
end
local count = redis.call('hincrby', lock, owner, 1)
if waiting then
    return {1, count, tonumber(token), others_wait}
end
return {1, count, tonumber(token)}
