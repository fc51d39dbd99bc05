-- Takes a waiter that gives up (its wait ran out, it was interrupted or cancelled) out of line,
-- and gives back a hold that release.lua granted it and it has not taken (its grant was on its way).
-- KEYS[1]  the queue: list of waiter fields, first in line at the head
-- KEYS[2]  the timeouts: sorted set of waiter field -> eviction deadline
-- KEYS[3]  the lock's unlock channel
-- KEYS[4]  the lock hash (see acquire.lua)
-- KEYS[5]  the secrets: hash of waiter field -> the secret its last try left (see acquire.lua)
-- ARGV[1]  the waiter's field
-- ARGV[2]  the publish command: 'publish' or 'spublish'
-- Returns 1 if the waiter was in line or gave a grant back, else 0. If it was first in line, or
-- gave a grant back, the next in line is woken in its place: to take the lock if it is free, else
-- to watch the holder's lease from now on. A grant given back wakes rather than grants the next
-- one: this is the rare path of a wait that ended as its grant came, and the woken waiter's try
-- takes the free lock (or evicts the dead ones before it, as after any unlock).
-- Only a hold of count 0 is given back: once taken (count 1 and more) it is the owner's, ended
-- by its release alone.
-- Cost: O(log n) for the deadline, and LREM's O(n) walk from the back of the line to the
-- waiter, the only O(n) step of the fair lock; only a waiter that gives up pays it.
local queue, timeouts, channel, lock, secrets = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local waiter, publish = ARGV[1], ARGV[2]

local given_back = 0
if redis.call('hget', lock, waiter) == '0' then
    redis.call('del', lock)
    given_back = 1
end
redis.call('zrem', timeouts, waiter)
redis.call('hdel', secrets, waiter)
local first = redis.call('lindex', queue, 0)
if not first then
    return given_back
end
local removed = redis.call('lrem', queue, -1, waiter)
if first == waiter or given_back == 1 then
    local next_waiter = redis.call('lindex', queue, 0)
    if next_waiter then
        redis.call(publish, channel, next_waiter)
    end
end
return math.max(removed, given_back)
