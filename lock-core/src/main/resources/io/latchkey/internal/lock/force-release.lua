-- Deletes the lock whoever holds it and announces it; a client's cohort hold (see acquire.lua)
-- is also told by a second message naming its token, '!force:<token>', which wakes no waiter.
-- KEYS[1]  the lock hash
-- KEYS[2]  the lock's unlock channel
-- ARGV[1]  the publish command: 'publish' or 'spublish'
-- Returns 1 if the lock existed, else 0.
-- Cost: O(1).
local cohort = redis.call('hget', KEYS[1], 'cohort')
if redis.call('del', KEYS[1]) == 1 then
    redis.call(ARGV[1], KEYS[2], '')
    if cohort then
        redis.call(ARGV[1], KEYS[2], '!force:' .. cohort)
    end
    return 1
end
return 0
