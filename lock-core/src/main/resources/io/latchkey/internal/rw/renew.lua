-- Renews the leases of many read and write holds of read-write locks in one round trip.
-- KEYS[2i-1] the lock hash of hold i (see acquire.lua)
-- KEYS[2i]   its leases: sorted set of hold field -> the end of its lease, in ms of Redis TIME
-- ARGV[1]    lease in milliseconds
-- ARGV[i+1]  the field of hold i
-- Returns, per hold, 1 if it was still there (in the hash, its lease not ended) and its lease now
-- runs at least ARGV[1] from now, else 0 (the hold was lost: its lease ended, it was
-- force-unlocked, a failover dropped it, or a key now holds something else), in which case
-- nothing changes. Each hold's lease is its own: renewing one never brings back another whose
-- lease ended, and never shortens a longer one. The keys last until the latest lease ends.
-- Cost: O(log n) per hold, n the holds of its lock.
local lease = tonumber(ARGV[1])
local time = redis.call('time')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local expires = now + lease
local renewed = {}
for i = 1, #KEYS / 2 do
    local lock, leases, field = KEYS[2 * i - 1], KEYS[2 * i], ARGV[i + 1]
    local ends = redis.pcall('zscore', leases, field)
    if type(ends) == 'string' and tonumber(ends) > now and redis.pcall('hexists', lock, field) == 1 then
        if tonumber(ends) < expires then
            redis.call('zadd', leases, expires, field)
            if redis.call('zrange', leases, -1, -1)[1] == field then
                redis.call('pexpire', lock, lease)
                redis.call('pexpire', leases, lease)
            end
        end
        renewed[i] = 1
    else
        renewed[i] = 0
    end
end
return renewed
