-- KEYS[1] the resource, a hash: field token -> the highest token seen, field value -> the value
-- ARGV[1] the writer's fencing token, ARGV[2] the value to write
-- Returns 1 if written, 0 if refused: a holder with a greater token has written since.
if tonumber(ARGV[1]) < (tonumber(redis.call('hget', KEYS[1], 'token')) or 0) then
    return 0
end
redis.call('hset', KEYS[1], 'token', ARGV[1], 'value', ARGV[2])
return 1
