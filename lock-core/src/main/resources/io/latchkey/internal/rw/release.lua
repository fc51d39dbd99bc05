-- Releases one level of a read or write hold of a read-write lock. Also settles a call whose
-- answer was lost: completes a release, or undoes a grant, exactly once; ends a hold that its
-- client gave up for lost; and ends holds whoever has them (forceUnlock).
-- KEYS[1]  the lock hash (see acquire.lua)
-- KEYS[2]  the leases: sorted set of hold field -> the end of its lease, in ms of Redis TIME
-- KEYS[3]  the waiting writers: sorted set of writer field -> the end of its place
-- KEYS[4]  the writers' channel: an empty message wakes one waiting writer per client
-- KEYS[5]  the readers' channel: '*' wakes every waiting reader
-- ARGV[1]  the hold's field; with 'force', the side: 'write' or 'read'
-- ARGV[2]  the publish command: 'publish', or 'spublish' for sharded pub/sub
-- ARGV[3]  this call's id; when settling, the id of the call being settled
-- ARGV[4]  'release', 'undo' or 'end', as in lock-core's lock/release.lua (an 'end' names the hold
--          by its token, ARGV[5]); or 'force': end the write hold, or every read hold, whoever
--          holds it
-- ARGV[5]  with 'end', the token of the hold to end
-- Returns nil when there is nothing to do: the hold is not there (its lease ended), or the undo
-- finds its grant never happened or already gone; else the levels left (0 when the hold ended).
-- 'force' returns 1 if it ended a hold, else 0.
-- When a hold ends, the next to go is woken, not a herd: one waiting writer if any waits and no
-- hold is left; else, when the writer's hold ended, every waiting reader (they can all go). A
-- reader's end that leaves other holds wakes nobody. With no hold left both keys are deleted;
-- else they last until the latest remaining lease ends.
-- Cost: O(log n) in the number of holds and waiting writers.
local lock, leases, writers, channel, read_channel = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local field, publish, call, mode = ARGV[1], ARGV[2], ARGV[3], ARGV[4]

local time = redis.call('time')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)

local function holds(hold)
    local score = hold and redis.call('zscore', leases, hold)
    return score and tonumber(score) > now
end

-- The hold is over: its fields go, and the next to go is woken.
local function finish(hold)
    local was_writer = redis.call('hget', lock, 'writer') == hold
    redis.call('hdel', lock, hold, hold .. ':call', hold .. ':token')
    redis.call('zrem', leases, hold)
    local writers_wait = redis.call('zcount', writers, '(' .. now, '+inf') > 0
    if redis.call('zcount', leases, '(' .. now, '+inf') == 0 then
        redis.call('del', lock, leases)
        if writers_wait then
            redis.call(publish, channel, '')
        elseif was_writer then
            redis.call(publish, read_channel, '*')
        end
        return 0
    end
    if was_writer then
        -- Its owner still reads (a downgrade): readers may join unless writers wait.
        redis.call('hdel', lock, 'writer')
        redis.call('hset', lock, 'mode', 'read')
        if not writers_wait then
            redis.call(publish, read_channel, '*')
        end
    end
    local latest = tonumber(redis.call('zrange', leases, -1, -1, 'WITHSCORES')[2])
    redis.call('pexpire', lock, latest - now)
    redis.call('pexpire', leases, latest - now)
    return 0
end

if mode == 'force' then
    local writer = redis.call('hget', lock, 'writer')
    local writing = holds(writer)
    if field == 'write' then
        if not writing then
            return 0
        end
        finish(writer)
        return 1
    end
    if writing then
        -- Beside a writer, the only reader can be the writer's own (<base>:write -> <base>:read).
        local own = string.sub(writer, 1, -7) .. ':read'
        if not holds(own) then
            return 0
        end
        finish(own)
        return 1
    end
    if redis.call('zcount', leases, '(' .. now, '+inf') == 0 then
        return 0
    end
    -- Only readers hold it: they all go at once.
    redis.call('del', lock, leases)
    if redis.call('zcount', writers, '(' .. now, '+inf') > 0 then
        redis.call(publish, channel, '')
    end
    return 1
end

local held = holds(field)
if mode == 'end' then
    if not held or redis.call('hget', lock, field .. ':token') ~= ARGV[5] then
        return nil
    end
    return finish(field)
end
local marker = field .. ':call'
local last = redis.call('hget', lock, marker)
if mode == 'undo' then
    if last ~= call then
        return nil
    end
elseif last == call then
    return tonumber(redis.call('hget', lock, field))
end
if not held or redis.call('hexists', lock, field) == 0 then
    return nil
end
local left = redis.call('hincrby', lock, field, -1)
if left > 0 then
    if mode == 'undo' then
        redis.call('hdel', lock, marker)
    else
        redis.call('hset', lock, marker, call)
    end
    return left
end
return finish(field)
