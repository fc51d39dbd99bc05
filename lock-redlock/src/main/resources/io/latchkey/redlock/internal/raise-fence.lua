-- Raises a fencing counter to at least a RedLock's token, so that the next hold that a majority
-- of masters grants sees it on one of them (see FencingQuorum).
-- KEYS[1]  the fencing counter of the lock's hash slot on this master (see lock-core's acquire.lua)
-- ARGV[1]  the token: a decimal integer from 1 to 2^53 - 1, as every acquire script answers
-- Returns the counter's value afterwards. Cost: O(1).
-- The counter is set to ARGV[1] as given, never to a Lua number, whose conversion back to a
-- string may use an exponent that neither INCRBY nor a comparison with a token could read.
local counter, given = KEYS[1], ARGV[1]
local token = tonumber(given)
if not token or not string.match(given, '^[1-9]%d*$') or token > 9007199254740991 then
    return redis.error_reply('ERR latchkey: a token must be a whole number from 1 to 2^53 - 1, not ' .. given)
end
local value = redis.call('get', counter)
local current = tonumber(value or '0')
if not current then
    return redis.error_reply('ERR latchkey: the fencing counter ' .. counter .. ' holds ' .. value .. ', not a number')
end
if current < token then
    redis.call('set', counter, given)
    return token
end
return current
