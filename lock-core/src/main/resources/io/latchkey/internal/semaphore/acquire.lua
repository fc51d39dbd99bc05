-- Takes one permit of a leased semaphore if one is free under the limit in force.
-- KEYS[1]  the permits: a sorted set of permit id -> the end of its lease, in milliseconds of
--          Redis's own clock (TIME), so that client clocks never have to agree
-- KEYS[2]  the limit in force: a string; it expires with KEYS[1]
-- ARGV[1]  lease in milliseconds
-- ARGV[2]  the permit's id, new for every acquisition
-- ARGV[3]  the caller's limit
-- Returns {1, 0} when the permit is granted (also when ARGV[2] is already a valid permit, whose
-- lease is then extended, never shortened); {0, milliseconds until the earliest lease ends} when
-- every permit of the limit is out, so the caller knows how long a wait is worth at most; {-1,
-- the limit in force} when permits are out under another limit; in both, nothing changed but the
-- removal of permits whose lease had run out.
-- When no valid permit is out, the caller's limit takes over.
-- Both keys expire when the last lease ends (PEXPIREAT the highest score), so a semaphore whose
-- permits all ran out leaves no key.
-- Cost: O(log n) for n permits out, plus O(log n) per expired permit removed (each is removed
-- once, so amortized O(log n)).
local permits, limit_key = KEYS[1], KEYS[2]
local lease, id, limit = tonumber(ARGV[1]), ARGV[2], tonumber(ARGV[3])
-- Checked before anything is written: a lease Redis cannot take once left a hold with no expiry.
if not lease or lease < 1 or lease > 31536000000 or lease ~= math.floor(lease) then
    return redis.error_reply('ERR latchkey: the lease must be 1 to 31536000000 ms (a year), not ' .. tostring(ARGV[1]))
end
local time = redis.call('time')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('zremrangebyscore', permits, '-inf', now)
local own = tonumber(redis.call('zscore', permits, id))
local out = redis.call('zcard', permits)
if out > 0 then
    local in_force = tonumber(redis.call('get', limit_key))
    if in_force and in_force ~= limit then
        return {-1, in_force}
    end
    if not own and out >= limit then
        local first = redis.call('zrange', permits, 0, 0, 'WITHSCORES')
        return {0, tonumber(first[2]) - now}
    end
end
local ends = now + lease
if not own or own < ends then
    redis.call('zadd', permits, ends, id)
end
redis.call('set', limit_key, limit)
local last = redis.call('zrange', permits, -1, -1, 'WITHSCORES')
redis.call('pexpireat', permits, last[2])
redis.call('pexpireat', limit_key, last[2])
return {1, 0}
