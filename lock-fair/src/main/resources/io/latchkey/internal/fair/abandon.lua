-- Takes a waiter that gives up (its wait ran out, it was interrupted or cancelled) out of line.
-- KEYS[1]  the lock hash
-- KEYS[2]  the queue: list of waiter fields, first in line at the head
-- KEYS[3]  the timeouts: sorted set of waiter field -> eviction deadline
-- KEYS[4]  the lock's unlock channel
-- ARGV[1]  the waiter's field
-- ARGV[2]  the publish command: 'publish' or 'spublish'
-- Returns 1 if the waiter was in line, else 0. If it was first in line and the lock is free
-- (it may have been woken to take it), the next in line is woken in its place.
-- Cost: O(log n) for the deadline, and LREM's O(n) walk from the back of the line to the
-- waiter, the only O(n) step of the fair lock; only a waiter that gives up pays it.
local lock, queue, timeouts, channel = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local waiter, publish = ARGV[1], ARGV[2]

redis.call('zrem', timeouts, waiter)
local first = redis.call('lindex', queue, 0)
if not first then
    return 0
end
local removed = redis.call('lrem', queue, -1, waiter)
if first == waiter and redis.call('exists', lock) == 0 then
    local next_waiter = redis.call('lindex', queue, 0)
    if next_waiter then
        redis.call(publish, channel, next_waiter)
    end
end
return removed
