-- Renews the leases of many semaphore permits in one round trip (LeaseRenewer.Renewal, two keys
-- per permit).
-- KEYS[2i-1]  the permits of permit i's semaphore (see acquire.lua)
-- KEYS[2i]    that semaphore's limit in force
-- ARGV[1]     lease in milliseconds
-- ARGV[i+1]   the id of permit i
-- Returns, per permit, 1 if it was still there with its lease running and now runs at least
-- ARGV[1] from now, else 0 (it ran out, was removed, or the key holds something else than a
-- sorted set), in which case nothing changes. A longer lease is never shortened. The keys'
-- expiry is moved on with the lease, so that they outlive every valid permit.
-- Cost: O(log n) per permit, for n permits out of its semaphore.
local lease = tonumber(ARGV[1])
local time = redis.call('time')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local ends = now + lease
local renewed = {}
for i = 1, #ARGV - 1 do
    local permits, limit_key, id = KEYS[2 * i - 1], KEYS[2 * i], ARGV[i + 1]
    local score = redis.pcall('zscore', permits, id)
    if type(score) == 'string' and tonumber(score) > now then
        if tonumber(score) < ends then
            redis.call('zadd', permits, ends, id)
        end
        if redis.call('pttl', permits) < lease then
            redis.call('pexpireat', permits, ends)
        end
        if redis.call('pttl', limit_key) < lease then
            redis.call('pexpireat', limit_key, ends)
        end
        renewed[i] = 1
    else
        renewed[i] = 0
    end
end
return renewed
