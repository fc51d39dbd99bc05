-- Withdraws a client's claim on a lock when its last waiter left without taking it (see
-- acquire.lua): deletes the waiting mark and the turn if they name that client, so that no holder
-- bounds its hand-offs, or keeps the lock free, for a client that no longer waits.
-- KEYS[1]  the lock's waiting mark
-- KEYS[2]  the lock's turn
-- ARGV[1]  the client's id
-- Returns the number of keys deleted.
-- Cost: O(1).
local deleted = 0
for _, key in ipairs(KEYS) do
    if redis.call('get', key) == ARGV[1] then
        deleted = deleted + redis.call('del', key)
    end
end
return deleted
