-- Renews the leases of many holds in one round trip.
-- KEYS[i]    a lock hash
-- ARGV[1]    lease in milliseconds
-- ARGV[i+1]  the owner's field for KEYS[i]
-- Returns, per key, 1 if the owner still held it and its lease was reset, else 0 (the hold was
-- lost: expired, force-unlocked or taken by a failover), in which case nothing changes.
local renewed = {}
for i, key in ipairs(KEYS) do
    if redis.call('hexists', key, ARGV[i + 1]) == 1 then
        redis.call('pexpire', key, ARGV[1])
        renewed[i] = 1
    else
        renewed[i] = 0
    end
end
return renewed
