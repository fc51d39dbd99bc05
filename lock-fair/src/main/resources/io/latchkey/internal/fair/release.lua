-- Releases one hold of a fair lock; the last one grants the lock to the first live waiter in line
-- and tells it so. Also settles a call whose answer was lost: completes a release, or undoes a
-- grant, exactly once; and ends a hold that its client gave up for lost.
-- KEYS[1]  the lock hash: field <clientId>:<ownerId> -> hold count, and the owner's last call id
-- KEYS[2]  the queue: list of waiter fields, first in line at the head
-- KEYS[3]  the lock's unlock channel
-- KEYS[4]  the timeouts: sorted set of waiter field -> eviction deadline (ms, Redis TIME)
-- KEYS[5]  the fencing counter of the lock's hash slot (see acquire.lua)
-- KEYS[6]  the secrets: hash of waiter field -> the secret its last try left (see acquire.lua)
-- ARGV[1]  the owner's field
-- ARGV[2]  the publish command: 'publish' or 'spublish'
-- ARGV[3]  this call's id; when settling, the id of the call being settled
-- ARGV[4]  'release', 'undo' or 'end', as in lock-core's release.lua
-- ARGV[5]  with 'end', the token of the hold to end
-- Returns nil when there is nothing to do (the owner does not hold the lock, or the undo finds
-- its grant never happened or already gone), else the holds left.
--
-- Grant at the release: the hand-off costs the releasing round trip and one message, not also a
-- try of the next waiter. Waiters at the head whose place ran out are evicted first, as
-- acquire.lua evicts them. The first live waiter W is popped from the line and given a hold of
-- count 0, "granted, not taken": its field -> 0, its own fencing token (the rule of acquire.lua),
-- and the lock's PEXPIRE = W's eviction deadline - now. The message '<W> <token> <proof>' tells
-- it, the proof being the SHA-1 (hex) of '<token>:<secret>' with the secret that W's last try
-- left with its place: W enters on the message only if the proof is right for the secret of its
-- last try answered "queued", so a forged message (anyone who may PUBLISH can send one) cannot
-- let W in, nor name another token: the secret never leaves Redis and W's client, and is
-- deleted here, so a grant's message replayed later proves nothing. A W without a secret (a try
-- that sent none) is woken by name alone. W takes the hold by any try (acquire.lua: count 0 -> 1,
-- PEXPIRE = its lease), by message (at once, or when due if this grant ends no later than W's
-- watchdog lease would, unless W's release ends it by its token first) or by its own timer if the
-- message was lost or not believed; a W whose wait ended gives it back (abandon.lua), if the grant was made on that
-- attempt's try: the proof stays beside the grant (field <W>:grant) for abandon.lua to check.
-- Why the deadline: a W that died holds the lock exactly until its place would have run out in
-- line, so a dead waiter blocks the queue no longer than before (README, "Fair lock"); and W's
-- client knows a lower bound of that moment on its own clock (the send time of its last try
-- that was answered "queued", plus fairLockWaitTimeout: the deadline was set by that try or a
-- later one), so it may enter without a round trip while that bound leaves room.
-- Nobody else is woken here: the waiter behind W waits no longer than W's deadline (acquire.lua
-- bounds every wait behind the first by the first one's place), which is when a dead W's grant
-- runs out; a live W wakes it when it takes the hold with a lease that ends before the next one's
-- place does, so that it watches W's lease from then on (acquire.lua).
-- Every read comes before the first write: Redis keeps what a script wrote before an error, so a
-- user whose ACL lacks a command read here (LINDEX, ZSCORE, TIME, GET, HGET) is refused with
-- nothing changed, never with a count left at 0 (a hold that nobody releases and the watchdog
-- keeps renewing) nor a lock deleted and its waiter neither granted nor woken.
-- Cost: O(log n) in the queue length n, plus O(log n) for each expired waiter evicted; at most
-- 100 evictions per call (found by LINDEX, O(i) for the i-th, so O(100^2) at worst, only when
-- a hundred waiters at the head died).
local lock, queue, channel, timeouts, counter, secrets = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local owner, publish, call, mode = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local marker = owner .. ':call'
local max_evictions = 100
local max_token = 9007199254740991 -- 2^53 - 1

-- What this call does to the owner's hold: nothing (nil), or leave it this many holds (0 ends it).
local count = redis.call('hget', lock, owner)
local left
if mode == 'end' then
    if redis.call('hget', lock, owner .. ':token') ~= ARGV[5] then
        return nil
    end
    left = 0
else
    local last = redis.call('hget', lock, marker)
    if mode == 'undo' then
        if last ~= call then
            return nil
        end
    elseif last == call then
        return tonumber(count)
    end
    -- A grant not taken (count 0) is no hold of the owner's to release: only an undo of the try
    -- that took it, or an end by its token, gives it up.
    if not count or (count == '0' and mode ~= 'undo') then
        return nil
    end
    left = tonumber(count) - 1
end

if left > 0 then
    redis.call('hincrby', lock, owner, -1)
    if mode == 'undo' then
        redis.call('hdel', lock, marker)
    else
        redis.call('hset', lock, marker, call)
    end
    return left
end

-- The last hold: find the first live waiter, counting the dead ones before it, by reads alone.
local head = redis.call('lindex', queue, 0)
local dead, deadline, now, time = {}, 0, 0, nil
if head then
    time = redis.call('time')
    now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
    deadline = tonumber(redis.call('zscore', timeouts, head) or '0')
    while deadline <= now and #dead < max_evictions do
        dead[#dead + 1] = head
        head = redis.call('lindex', queue, #dead)
        if not head then
            break
        end
        deadline = tonumber(redis.call('zscore', timeouts, head) or '0')
    end
end
-- Its token, as acquire.lua's next_token makes it: max(counter + 1, Redis TIME in microseconds),
-- as an exact decimal string, with the counter's increment; none if the counter holds something
-- that leaves no room (acquire.lua refuses the try that meets it), nor past a hundred dead ones.
local token, increment, secret
if head and deadline > now then
    local last = tonumber(redis.call('get', counter) or '0')
    local micros = tonumber(time[1]) * 1000000 + tonumber(time[2])
    if last and last >= 0 and last == math.floor(last) and math.max(last + 1, micros) <= max_token then
        local granted = math.max(last + 1, micros)
        token, increment = string.format('%.0f', granted), string.format('%.0f', granted - last)
        secret = redis.call('hget', secrets, head)
    end
end

-- Writes from here on, the counter first (as in acquire.lua): the lock goes, the dead ones leave
-- the line, and the first live one, if any, is granted the lock and told; else (a counter without
-- room, or too many dead ones) it is woken as a plain unlock wakes it, and its try evicts the
-- rest or reports the counter.
if token then
    redis.call('incrby', counter, increment)
end
redis.call('del', lock)
for _ = 1, #dead do
    redis.call('lpop', queue)
end
if #dead > 0 then
    redis.call('zrem', timeouts, unpack(dead))
    redis.call('hdel', secrets, unpack(dead))
end
if not head then
    return 0
end
if not token then
    redis.call(publish, channel, head)
    return 0
end
redis.call('lpop', queue)
redis.call('zrem', timeouts, head)
if secret then
    local proof = redis.sha1hex(token .. ':' .. secret)
    redis.call('hset', lock, head, 0, head .. ':token', token, head .. ':grant', proof)
    redis.call('pexpire', lock, deadline - now)
    redis.call('hdel', secrets, head)
    redis.call(publish, channel, head .. ' ' .. token .. ' ' .. proof)
else
    redis.call('hset', lock, head, 0, head .. ':token', token)
    redis.call('pexpire', lock, deadline - now)
    redis.call(publish, channel, head)
end
return 0
