-- Releases one hold; the last one deletes the lock and announces it.
-- KEYS[1]  the lock hash
-- KEYS[2]  the lock's unlock channel (a key, so Cluster routes sharded publishes to its slot)
-- ARGV[1]  the owner's field
-- ARGV[2]  the publish command: 'publish', or 'spublish' for sharded pub/sub
-- Returns nil when the owner does not hold the lock (nothing changes), else the holds left.
if redis.call('hexists', KEYS[1], ARGV[1]) == 0 then
    return nil
end
local left = redis.call('hincrby', KEYS[1], ARGV[1], -1)
if left > 0 then
    return left
end
redis.call('del', KEYS[1])
redis.call(ARGV[2], KEYS[2], '')
return 0
