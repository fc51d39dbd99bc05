-- Takes a waiter that gives up (its wait ran out, it was interrupted or cancelled) out of line,
-- and gives back a hold that release.lua granted it on this attempt's try and it has not taken
-- (its grant was on its way).
-- KEYS[1]  the queue: list of waiter fields, first in line at the head
-- KEYS[2]  the timeouts: sorted set of waiter field -> eviction deadline
-- KEYS[3]  the lock's unlock channel
-- KEYS[4]  the lock hash (see acquire.lua)
-- KEYS[5]  the secrets: hash of waiter field -> the secret its last try left (see acquire.lua)
-- ARGV[1]  the waiter's field
-- ARGV[2]  the publish command: 'publish' or 'spublish'
-- ARGV[3]  the secret of the giving-up attempt's last try answered "queued", as acquire.lua kept
--          it; '' if it knows of none
-- Returns 1 if the waiter was in line or gave a grant back, else 0. If it was first in line, or
-- gave a grant back, the next in line is woken in its place: to take the lock if it is free, else
-- to watch the holder's lease from now on. A grant given back wakes rather than grants the next
-- one: this is the rare path of a wait that ended as its grant came, and the woken waiter's try
-- takes the free lock (or evicts the dead ones before it, as after any unlock).
-- Only a hold of count 0 is given back: once taken (count 1 and more) it is the owner's, ended
-- by its release alone. And only one granted on this attempt's try: several attempts of one
-- owner share its field, and another one, whose try the grant was made on, may have entered on
-- the grant's message already and be taking it (its take is on its way). release.lua keeps the
-- proof it published beside such a grant (field <waiter>:grant), the SHA-1 of '<token>:<secret>',
-- which only the attempt that sent the secret can make again. A grant made without a secret
-- (a try that sent none) was told by name alone, which no attempt enters on, so any attempt of
-- the owner gives it back; a grant on a try whose answer the attempt never heard stays until the
-- waiter's place would have run out, as a dead waiter's does.
-- Every read comes before the first write (see release.lua).
-- Cost: O(log n) for the deadline, and LREM's O(n) walk from the back of the line to the
-- waiter, the only O(n) step of the fair lock; only a waiter that gives up pays it.
local queue, timeouts, channel, lock, secrets = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local waiter, publish, secret = ARGV[1], ARGV[2], ARGV[3] or ''

local give_back = false
if redis.call('hget', lock, waiter) == '0' then
    local proof = redis.call('hget', lock, waiter .. ':grant')
    local token = proof and redis.call('hget', lock, waiter .. ':token')
    give_back = not proof or (secret ~= '' and token and proof == redis.sha1hex(token .. ':' .. secret)) or false
end
local first = redis.call('lindex', queue, 0)
-- A waiter is in line at most once (acquire.lua queues only a new deadline), so once it has left
-- the first in line is the one after it if it was first, else the same.
local next_waiter = first
if first == waiter then
    next_waiter = redis.call('lindex', queue, 1)
end

if give_back then
    redis.call('del', lock)
end
redis.call('zrem', timeouts, waiter)
redis.call('hdel', secrets, waiter)
local removed = 0
if first then
    removed = redis.call('lrem', queue, -1, waiter)
end
if next_waiter and (first == waiter or give_back) then
    redis.call(publish, channel, next_waiter)
end
if give_back then
    return 1
end
return removed
