-- Renews the leases of many holds in one round trip.
-- KEYS[i]    a lock hash
-- ARGV[1]    lease in milliseconds
-- ARGV[i+1]  the owner's field for KEYS[i]
-- Returns, per key, 1 if the owner still held it and its lease runs at least ARGV[1] from now,
-- else 0 (the hold was lost: expired, force-unlocked, taken by a failover, or the key now holds
-- something else than a lock hash), in which case nothing changes. A lease longer than ARGV[1]
-- (a re-entry took a longer fixed lease) is left as it is: renewal never shortens a hold.
-- One key of the wrong type answers 0 for its own hold only, not an error for the whole batch.
-- Cost: O(1) per key.
local lease = tonumber(ARGV[1])
local renewed = {}
for i, key in ipairs(KEYS) do
    local held = redis.pcall('hexists', key, ARGV[i + 1])
    if held == 1 then
        if redis.call('pttl', key) < lease then
            redis.call('pexpire', key, lease)
        end
        renewed[i] = 1
    else
        renewed[i] = 0
    end
end
return renewed
