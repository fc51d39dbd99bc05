-- Releases one hold of a fair lock; the last one deletes the lock and wakes the first in line.
-- Also settles a call whose answer was lost: completes a release, or undoes a grant, exactly once.
-- KEYS[1]  the lock hash: field <clientId>:<ownerId> -> hold count, and the owner's last call id
-- KEYS[2]  the queue: list of waiter fields, first in line at the head
-- KEYS[3]  the lock's unlock channel
-- ARGV[1]  the owner's field
-- ARGV[2]  the publish command: 'publish' or 'spublish'
-- ARGV[3]  this call's id; when settling, the id of the call being settled
-- ARGV[4]  'release' or 'undo', as in lock-core's release.lua
-- Returns nil when there is nothing to do (the owner does not hold the lock, or the undo finds
-- its grant never happened or already gone), else the holds left.
-- The wake-up message is the first waiter's field, so that only that waiter wakes; if it is
-- dead, the waiter behind it evicts it when its place runs out (see acquire.lua).
-- Cost: O(1).
local lock, queue, channel = KEYS[1], KEYS[2], KEYS[3]
local owner, publish, call, mode = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local marker = owner .. ':call'
local last = redis.call('hget', lock, marker)
if mode == 'undo' then
    if last ~= call then
        return nil
    end
elseif last == call then
    return tonumber(redis.call('hget', lock, owner))
end
if redis.call('hexists', lock, owner) == 0 then
    return nil
end
local left = redis.call('hincrby', lock, owner, -1)
if left > 0 then
    if mode == 'undo' then
        redis.call('hdel', lock, marker)
    else
        redis.call('hset', lock, marker, call)
    end
    return left
end
redis.call('del', lock)
local first = redis.call('lindex', queue, 0)
if first then
    redis.call(publish, channel, first)
end
return 0
