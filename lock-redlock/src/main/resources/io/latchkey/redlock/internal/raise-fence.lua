-- Raises a fencing counter to at least a RedLock's token, so that the next hold that a majority
-- of masters grants sees it on one of them (see FencingQuorum).
-- KEYS[1]  the fencing counter of the lock's hash slot on this master (see lock-core's acquire.lua)
-- ARGV[1]  the token
-- Returns the counter's value afterwards. Cost: O(1).
local counter, token = KEYS[1], tonumber(ARGV[1])
local value = tonumber(redis.call('get', counter) or '0')
if value < token then
    redis.call('set', counter, token)
    return token
end
return value
