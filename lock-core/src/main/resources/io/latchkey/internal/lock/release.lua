-- Releases one hold; the last one deletes the lock and announces it. Also settles a call whose
-- answer was lost: completes a release, or undoes a grant, exactly once; and ends a hold that
-- its client gave up for lost.
-- KEYS[1]  the lock hash (see acquire.lua)
-- KEYS[2]  the lock's unlock channel (a key, so Cluster routes sharded publishes to its slot)
-- ARGV[1]  the owner's field
-- ARGV[2]  the publish command: 'publish', or 'spublish' for sharded pub/sub
-- ARGV[3]  this call's id; when settling, the id of the call being settled
-- ARGV[4]  'release' to release one hold unless call ARGV[3] already did (so sending it again
--          is harmless); 'requeue', for a cohort's hold, the same, and if the release deletes the
--          lock, the waiting mark then names the releasing client (owners of its own still wait);
--          'undo' to release one hold only if call ARGV[3] was the grant that
--          made the owner's last change (so an undo never takes back a hold it did not add);
--          'end' to release every level of the hold whose token is ARGV[5], if it is still there
-- ARGV[5]  with 'end', the token of the hold to end
-- KEYS[3], KEYS[4] and ARGV[6], for a cohort's hold (see acquire.lua): the lock's waiting mark,
--          its turn, and how many milliseconds a turn lasts. The release that deletes the lock
--          reserves it for the client the mark names, so that a cohort that releases after
--          passing its hold on locally lets the other client's waiter in before its own owners
-- ARGV[7]  with KEYS[3]: how many milliseconds a waiting mark that 'requeue' writes lasts. In the
--          same script as the release, so that the next holder's grant finds it: a mark written
--          after the release was seen to land after that grant, whose client then passed its
--          hold on a thousand times before it learnt of the waiter
-- Returns nil when there is nothing to do: the owner does not hold the lock, or the undo finds
-- its grant never happened or already gone; else the holds left.
-- Cost: O(1).
local lock, channel = KEYS[1], KEYS[2]
local owner, publish, call, mode = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local waiting, turn = KEYS[3], KEYS[4]
local client = string.match(owner, '^[^:]*')

local function delete()
    redis.call('del', lock)
    if waiting then
        local marked = redis.call('get', waiting)
        if marked and marked ~= client then
            redis.call('set', turn, marked, 'px', ARGV[6])
            redis.call('del', waiting)
        end
        if mode == 'requeue' then
            redis.call('set', waiting, client, 'px', ARGV[7])
        end
    end
    redis.call(publish, channel, '')
end

local marker = owner .. ':call'
if mode == 'end' then
    if redis.call('hget', lock, owner .. ':token') ~= ARGV[5] then
        return nil
    end
    delete()
    return 0
end
local last = redis.call('hget', lock, marker)
if mode == 'undo' then
    if last ~= call then
        return nil
    end
elseif last == call then
    return tonumber(redis.call('hget', lock, owner))
end
if redis.call('hexists', lock, owner) == 0 then
    return nil
end
local left = redis.call('hincrby', lock, owner, -1)
if left > 0 then
    if mode == 'undo' then
        redis.call('hdel', lock, marker)
    else
        redis.call('hset', lock, marker, call)
    end
    return left
end
delete()
return 0
