-- How many permits of a leased semaphore are free: the limit in force minus the valid permits.
-- KEYS[1]  the permits (see acquire.lua)
-- KEYS[2]  the limit in force
-- ARGV[1]  the caller's limit, which is the one in force when no valid permit is out
-- Returns the number of free permits; permits whose lease ran out are not counted. Read only.
-- Cost: O(log n) for n permits out.
local permits, limit_key = KEYS[1], KEYS[2]
local time = redis.call('time')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local valid = redis.call('zcount', permits, '(' .. now, '+inf')
local limit = tonumber(ARGV[1])
if valid > 0 then
    limit = tonumber(redis.call('get', limit_key)) or limit
end
return limit - valid
