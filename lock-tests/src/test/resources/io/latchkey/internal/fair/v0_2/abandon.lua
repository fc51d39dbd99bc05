-- Takes a waiter that gives up (its wait ran out, it was interrupted or cancelled) out of line.
-- KEYS[1]  the queue: list of waiter fields, first in line at the head
-- KEYS[2]  the timeouts: sorted set of waiter field -> eviction deadline
-- KEYS[3]  the lock's unlock channel
-- ARGV[1]  the waiter's field
-- ARGV[2]  the publish command: 'publish' or 'spublish'
-- Returns 1 if the waiter was in line, else 0. If it was first in line, the next in line is
-- woken in its place: to take the lock if it is free (the leaver may have been woken to take
-- it), else to watch the holder's lease from now on.
-- Cost: O(log n) for the deadline, and LREM's O(n) walk from the back of the line to the
-- waiter, the only O(n) step of the fair lock; only a waiter that gives up pays it.
local queue, timeouts, channel = KEYS[1], KEYS[2], KEYS[3]
local waiter, publish = ARGV[1], ARGV[2]

redis.call('zrem', timeouts, waiter)
local first = redis.call('lindex', queue, 0)
if not first then
    return 0
end
local removed = redis.call('lrem', queue, -1, waiter)
if first == waiter then
    local next_waiter = redis.call('lindex', queue, 0)
    if next_waiter then
        redis.call(publish, channel, next_waiter)
    end
end
return removed
