-- Acquires or re-enters a reentrant lock.
-- KEYS[1]  the lock hash: field <clientId>:<ownerId> -> hold count, and beside it field
--          <clientId>:<ownerId>:call -> the id of the owner's last call that changed the count
-- ARGV[1]  lease in milliseconds
-- ARGV[2]  the owner's field
-- ARGV[3]  this call's id, so that release.lua can undo exactly this grant if its answer is lost
-- Returns {1, hold count} when the owner now holds the lock, else {0, the holder's remaining
-- lease in milliseconds} (-1 if the lock has no expiry) so the caller knows how long to wait.
-- A re-entry never shortens the lease: a shorter one than the hold already has is ignored.
-- Cost: O(1).
local lock, lease, owner, call = KEYS[1], tonumber(ARGV[1]), ARGV[2], ARGV[3]
if redis.call('exists', lock) == 0 or redis.call('hexists', lock, owner) == 1 then
    -- The call's id first: a user whose ACL lacks HSET is refused before anything changed.
    redis.call('hset', lock, owner .. ':call', call)
    local count = redis.call('hincrby', lock, owner, 1)
    if redis.call('pttl', lock) < lease then
        redis.call('pexpire', lock, lease)
    end
    return {1, count}
end
return {0, redis.call('pttl', lock)}
