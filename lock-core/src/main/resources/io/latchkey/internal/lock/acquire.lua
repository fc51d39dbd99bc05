-- Acquires or re-enters a reentrant lock.
-- KEYS[1]  the lock hash: field <clientId>:<ownerId> -> hold count
-- ARGV[1]  lease in milliseconds
-- ARGV[2]  the owner's field
-- Returns nil when the owner now holds the lock, else the holder's remaining lease in
-- milliseconds (-1 if the lock has no expiry) so the caller knows how long to wait at most.
if redis.call('exists', KEYS[1]) == 0 or redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
    redis.call('hincrby', KEYS[1], ARGV[2], 1)
    redis.call('pexpire', KEYS[1], ARGV[1])
    return nil
end
return redis.call('pttl', KEYS[1])
