-- Deletes the lock whoever holds it and announces it.
-- KEYS[1]  the lock hash
-- KEYS[2]  the lock's unlock channel
-- ARGV[1]  the publish command: 'publish' or 'spublish'
-- Returns 1 if the lock existed, else 0.
if redis.call('del', KEYS[1]) == 1 then
    redis.call(ARGV[1], KEYS[2], '')
    return 1
end
return 0
