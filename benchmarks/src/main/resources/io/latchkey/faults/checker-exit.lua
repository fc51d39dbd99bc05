-- A holder leaves the critical section of one lock name (or the harness removes a holder whose
-- JVM it killed). Runs on the checker Redis.
-- KEYS[1] the lock's inside hash of writers, KEYS[2] of readers: holder id -> token
-- ARGV[1] the holder id, or a prefix ending in ':' for every holder of one worker
-- Returns how many holders were removed.
-- Cost: O(1) for one holder; O(holders inside) for a prefix.
local id = ARGV[1]
local removed = 0
for _, inside in ipairs(KEYS) do
    if string.sub(id, -1) ~= ':' then
        removed = removed + redis.call('hdel', inside, id)
    else
        for _, holder in ipairs(redis.call('hkeys', inside)) do
            if string.sub(holder, 1, string.len(id)) == id then
                removed = removed + redis.call('hdel', inside, holder)
            end
        end
    end
end
return removed
