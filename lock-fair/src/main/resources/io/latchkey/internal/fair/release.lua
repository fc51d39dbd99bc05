-- Releases one hold of a fair lock; the last one deletes the lock and wakes the first in line.
-- KEYS[1]  the lock hash: field <clientId>:<ownerId> -> hold count
-- KEYS[2]  the queue: list of waiter fields, first in line at the head
-- KEYS[3]  the lock's unlock channel
-- ARGV[1]  the owner's field
-- ARGV[2]  the publish command: 'publish' or 'spublish'
-- Returns nil when the owner does not hold the lock (nothing changes), else the holds left.
-- The wake-up message is the first waiter's field, so that only that waiter wakes; if it is
-- dead, the waiter behind it evicts it when its place runs out (see acquire.lua).
-- Cost: O(1).
local lock, queue, channel = KEYS[1], KEYS[2], KEYS[3]
local owner, publish = ARGV[1], ARGV[2]

if redis.call('hexists', lock, owner) == 0 then
    return nil
end
local left = redis.call('hincrby', lock, owner, -1)
if left > 0 then
    return left
end
redis.call('del', lock)
local first = redis.call('lindex', queue, 0)
if first then
    redis.call(publish, channel, first)
end
return 0
