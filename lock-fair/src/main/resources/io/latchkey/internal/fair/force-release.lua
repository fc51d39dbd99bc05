-- Deletes a fair lock whoever holds it and wakes the first in line.
-- KEYS[1]  the lock hash
-- KEYS[2]  the queue: list of waiter fields, first in line at the head
-- KEYS[3]  the lock's unlock channel
-- ARGV[1]  the publish command: 'publish' or 'spublish'
-- Returns 1 if the lock existed, else 0. The queue is left as it is: the waiters keep their order.
-- A hold that release.lua granted and its waiter has not taken yet is deleted like any other:
-- that waiter, already out of line, finds it gone (its take answers -1: a lease lost) or, if it
-- had not entered yet, queues again at the back at its next try.
-- Cost: O(1).
local lock, queue, channel = KEYS[1], KEYS[2], KEYS[3]

-- The queue is read first, so that a user whose ACL lacks LINDEX is refused before the lock changed.
local first = redis.call('lindex', queue, 0)
if redis.call('del', lock) == 0 then
    return 0
end
if first then
    redis.call(ARGV[1], channel, first)
end
return 1
