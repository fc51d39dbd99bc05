package io.latchkey.internal.cohort;

import io.latchkey.LockConfig.LocalHandOff;
import io.latchkey.LockEventListener;
import io.latchkey.internal.events.LockEvents;
import io.latchkey.internal.hold.Hold;
import io.latchkey.internal.lock.HoldCalls;
import io.latchkey.internal.lock.LeaseTerm;
import io.latchkey.internal.lock.LockContext;
import io.latchkey.internal.lock.ReentrantLockProtocol;
import io.latchkey.internal.lock.TryResult;
import io.latchkey.internal.watchdog.LeaseRenewer.LeaseListener;
import io.netty.util.Timeout;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One client's cohort of one plain lock: the Redis hold that the client takes for its owners
 * under an owner id of its own, and the local lock that passes that hold from owner to owner.
 *
 * <p>States: {@code FREE} (no Redis hold), {@code ACQUIRING} (one owner's try for the cohort is
 * in Redis; the others wait here, not in Redis, so the cohort never sends two), {@code HELD} (one
 * local owner holds, with its levels counted here), {@code PASSING} (the last owner released
 * while others wait: the Redis hold stays, and the first local try takes it), {@code RELEASING}
 * (the Redis hold is being released). Every transition is made under this object's monitor;
 * Redis calls and the owners' {@link Hold}s are called outside it.
 *
 * <p>The rules: a hold is passed on ({@code PASSING}) only while the Redis lease as last
 * confirmed (the grant's or a renewal's send time plus the lease) has more than the command
 * timeout left, both when it is passed and when it is taken (rule 1); at most
 * {@link LocalHandOff#maxHandOffs()} times and {@link LocalHandOff#maxTime()} after the Redis
 * acquisition, then the hold is released in Redis, and if owners still wait here, the next try
 * gives way to another client whose try found the lock held (rule 2; acquire.lua's waiting mark);
 * fixed leases never go through the cohort, so no local successor extends the client's hold
 * beyond what it asked for (rule 4); a hold found gone (a renewal, a
 * {@code !force:<token>} notice on the lock's channel, a lease that ran out unconfirmed) ends the
 * cohort: the current owner's hold is lost, and the waiters try Redis again (rule 3); every
 * handed-off owner gets the next token of the block the Redis acquisition reserved (rule 5).
 * Thread-safe.
 */
final class Cohort {

    private static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);
    /** How long a passed hold waits for a local waiter to take it before it is released in Redis. */
    private static final long PASS_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    private static final String FORCED = "!force:";
    /**
     * How long the owners of a cohort that gives way wait before they try again. A cohort that
     * released for its bound, with owners still waiting, gives way once to another client whose
     * try found the lock held (its mark): the try takes nothing, and marks this client as waiting
     * instead, so that the other client gives way in turn after its own bound; for at most
     * {@code max(this, maxTime)} after the release.
     */
    private static final long GIVE_WAY_STEP_MILLIS = 5;

    private enum State { FREE, ACQUIRING, HELD, PASSING, RELEASING }

    private final Cohorts registry;
    private final Object identity;
    private final ReentrantLockProtocol plain;
    private final LockContext context;
    private final HoldCalls redis;
    private final HoldCalls givingWay;
    private final long giveWayNanos;
    /** The cohort's owner id in Redis: one of the client's, never an application's thread id. */
    private final long self;
    private final String field;
    private final LocalHandOff bounds;
    private final long marginNanos;
    private final AtomicLong localSequence = new AtomicLong();

    /** Guarded by this: local waits for a hand-off, oldest first. */
    private final ArrayDeque<CompletableFuture<Void>> parked = new ArrayDeque<>();
    /** Guarded by this. */
    private State state = State.FREE;
    /** Guarded by this: left the registry; its calls look the cohort up again. */
    private boolean retired;
    /** Guarded by this: attempts of this client that wait for the lock (their wake-ups are open). */
    private int waiters;
    /** Guarded by this: the same by owner, so that a releasing owner's own attempt, still closing, does not count. */
    private final Map<Long, Integer> waitingOwners = new HashMap<>();
    /** Guarded by this: a local try found a Redis call of the cohort in flight and must be woken after it. */
    private boolean deferred;
    /** Guarded by this: an owner of this client waits with a fixed lease, which only Redis can grant. */
    private boolean throughRedis;
    /** Guarded by this: the local owner (HELD), or the one whose try is in Redis (ACQUIRING). */
    private long owner;
    private int levels;
    private Hold ownerHold;
    /** Guarded by this: the local owner's token; the last handed out while PASSING. */
    private long token;
    private long lastOwner;
    private long redisToken;
    private long lastToken;
    private long confirmedUntilNanos;
    private long heldSinceNanos;
    private Timeout passGuard;
    /** Guarded by this: the cohort released for its bound with owners still waiting here: its tries give way until {@link #giveWayUntilNanos}. */
    private boolean giveWay;
    private long giveWayUntilNanos;
    /** Guarded by this: a try found another client's mark: local tries wait until {@link #holdOffUntilNanos}. */
    private boolean holdingOff;
    private long holdOffUntilNanos;
    private Runnable stopObserving;

    Cohort(Cohorts registry, Object identity, ReentrantLockProtocol plain, long self, LocalHandOff bounds) {
        this.registry = registry;
        this.identity = identity;
        this.plain = plain;
        this.context = plain.context();
        this.redis = plain.cohortCalls(bounds.maxHandOffs() + 1, 0);
        this.giveWayNanos = Math.max(TimeUnit.MILLISECONDS.toNanos(GIVE_WAY_STEP_MILLIS), bounds.maxTime().toNanos());
        this.givingWay = plain.cohortCalls(bounds.maxHandOffs() + 1, GIVE_WAY_STEP_MILLIS);
        this.self = self;
        this.field = context.field(self);
        this.bounds = bounds;
        this.marginNanos = context.config().commandTimeout().toNanos();
    }

    // ---- acquiring -----------------------------------------------------------------------------

    /**
     * One try of a watchdog-lease owner that holds nothing here, or a re-entry.
     *
     * @return the try's result; null if this cohort retired (look it up again)
     */
    CompletableFuture<TryResult> tryAcquire(long owner, LeaseTerm lease, long heldToken) {
        long now = context.ticker().read();
        boolean toRedis = false;
        HoldCalls calls = redis;
        boolean releaseFirst = false;
        long from = 0;
        TryResult answer = null;
        synchronized (this) {
            if (retired) {
                return null;
            }
            if (state == State.HELD && this.owner == owner && (heldToken == 0 || heldToken == token)) {
                levels++;
                return CompletableFuture.completedFuture(TryResult.acquired(new LocalGrant(owner, token, confirmedUntilNanos)));
            }
            if (heldToken != 0 || !lease.renewed()) {
                // A hold of the owner's own in Redis, or a fixed lease: only Redis can grant it.
                if (!lease.renewed() && (state == State.HELD || state == State.PASSING)) {
                    throughRedis = true;
                    releaseFirst = state == State.PASSING && endPassing();
                }
            } else {
                switch (state) {
                    case FREE -> {
                        if (holdingOff && holdOffUntilNanos - now > 0) {
                            deferred = true;
                            answer = TryResult.busy(Math.max(1, TimeUnit.NANOSECONDS.toMillis(holdOffUntilNanos - now)));
                        } else {
                            holdingOff = false;
                            giveWay = giveWay && giveWayUntilNanos - now > 0;
                            state = State.ACQUIRING;
                            this.owner = owner;
                            toRedis = true;
                            calls = giveWay ? givingWay : redis;
                        }
                    }
                    case PASSING -> {
                        if (leaseValid(now)) {
                            cancelPassGuard();
                            state = State.HELD;
                            this.owner = owner;
                            levels = 1;
                            token++;
                            from = lastOwner;
                            answer = TryResult.acquired(new LocalGrant(owner, token, confirmedUntilNanos));
                        } else {
                            releaseFirst = endPassing();
                            deferred = true;
                            answer = TryResult.busy(bound());
                        }
                    }
                    case HELD -> answer = TryResult.busy(Math.max(1, TimeUnit.NANOSECONDS.toMillis(confirmedUntilNanos - now)));
                    default -> {
                        deferred = true;
                        answer = TryResult.busy(bound());
                    }
                }
            }
        }
        if (releaseFirst) {
            releaseInRedis();
        }
        if (answer != null) {
            if (answer.acquired()) {
                handedOff(from, owner);
            }
            return CompletableFuture.completedFuture(answer);
        }
        if (!toRedis) {
            return plain.tryAcquire(owner, lease, heldToken);
        }
        boolean gaveWay = calls == givingWay;
        return calls.tryAcquire(self, lease, 0).handle((reply, failure) -> afterRedisTry(owner, reply, failure, gaveWay));
    }

    private TryResult afterRedisTry(long owner, TryResult reply, Throwable failure, boolean gaveWay) {
        boolean granted = failure == null && reply.acquired();
        TryResult result = reply;
        boolean wake;
        long heldToken = 0;
        synchronized (this) {
            if (granted) {
                TryResult.Grant grant = reply.grant();
                state = State.HELD;
                levels = 1;
                redisToken = grant.fencingToken();
                heldToken = redisToken;
                token = redisToken;
                lastToken = redisToken + bounds.maxHandOffs();
                confirmedUntilNanos = grant.confirmedUntilNanos();
                heldSinceNanos = context.ticker().read();
                throughRedis = false;
                giveWay = false;
                result = TryResult.acquired(new LocalGrant(owner, token, confirmedUntilNanos));
                stopObserving = context.subscriptions().observe(plain.keys().channel(), this::notice);
                renewInRedis(heldToken);
            } else {
                state = State.FREE;
                this.owner = 0;
                // A try that gave way answers at most the step; one that found the lock held
                // answers the holder's lease (only a lease about to run out is as short).
                if (gaveWay && failure == null && reply.waitMillis() > 0 && reply.waitMillis() <= GIVE_WAY_STEP_MILLIS) {
                    // Another client's waiter may have been woken by the release: the cohort's
                    // owners wait here a step, not in Redis, so that it gets its turn.
                    holdingOff = true;
                    holdOffUntilNanos = context.ticker().read()
                            + TimeUnit.MILLISECONDS.toNanos(Math.min(reply.waitMillis(), GIVE_WAY_STEP_MILLIS));
                }
            }
            wake = deferred;
            deferred = false;
            if (!granted) {
                retireIfIdle();
            }
        }
        if (wake) {
            signalAll();
        }
        if (failure != null) {
            throw failure instanceof CompletionException completion ? completion : new CompletionException(failure);
        }
        return result;
    }

    /** Guarded by this: the watchdog renews the cohort's Redis hold and tells the cohort. */
    private void renewInRedis(long heldToken) {
        long leaseNanos = context.renewer().lease().toNanos();
        context.renewer().granted(context.executor(), plain.keys().lock(), field, true, 1, new LeaseListener() {
            @Override
            public void leaseLost(String key, String field) {
                lost("a renewal found the client's hold gone from Redis", false, heldToken);
            }

            @Override
            public void leaseRenewed(String key, String field, long sentAtNanos) {
                confirmed(heldToken, sentAtNanos + leaseNanos);
            }
        });
    }

    /** Guarded by this: the bound on a wait for a Redis call of the cohort in flight. */
    private long bound() {
        return Math.max(1, context.config().commandTimeout().toMillis());
    }

    /** Guarded by this. */
    private boolean leaseValid(long now) {
        return confirmedUntilNanos - marginNanos - now > 0;
    }

    // ---- releasing -----------------------------------------------------------------------------

    /** @return the release; null if this cohort retired (look it up again) */
    CompletableFuture<Void> release(long owner) {
        boolean passed;
        synchronized (this) {
            if (retired) {
                return null;
            }
            if (state != State.HELD || this.owner != owner) {
                return plain.release(owner);
            }
            if (--levels > 0) {
                return DONE;
            }
            ownerHold = null;
            lastOwner = owner;
            this.owner = 0;
            long now = context.ticker().read();
            passed = waiters > waitingOwners.getOrDefault(owner, 0) && !throughRedis && token < lastToken
                    && now - heldSinceNanos < bounds.maxTime().toNanos() && leaseValid(now);
            if (passed) {
                state = State.PASSING;
                schedulePassGuard();
            } else {
                state = State.RELEASING;
                // Released with owners still waiting here: the bound, the lease or a fixed lease
                // ended the hand-offs, so the next try lets another client's waiter go first.
                if (waiters > waitingOwners.getOrDefault(owner, 0)) {
                    giveWay = true;
                    giveWayUntilNanos = now + giveWayNanos;
                }
            }
        }
        if (passed) {
            signalOne();
            return DONE;
        }
        return releaseInRedis();
    }

    /** Guarded by this: a passed hold nobody took; true if the caller must release it in Redis. */
    private boolean endPassing() {
        if (state != State.PASSING) {
            return false;
        }
        cancelPassGuard();
        state = State.RELEASING;
        return true;
    }

    private CompletableFuture<Void> releaseInRedis() {
        return redis.release(self).whenComplete((ok, failure) -> {
            boolean wake;
            synchronized (this) {
                if (state == State.RELEASING) {
                    state = State.FREE;
                    stopObservingLocked();
                }
                wake = deferred || waiters > 0;
                deferred = false;
                retireIfIdle();
            }
            if (wake) {
                // Redis's unlock message wakes one waiter of the channel too; this one covers
                // waiters that a try in flight answered from here.
                signalAll();
            }
        });
    }

    /** Guarded by this. */
    private void schedulePassGuard() {
        try {
            passGuard = context.timer().newTimeout(timeout -> passTimedOut(timeout), PASS_NANOS, TimeUnit.NANOSECONDS);
        } catch (IllegalStateException timerStopped) {
            passGuard = null; // the client is closing
        }
    }

    /** Guarded by this. */
    private void cancelPassGuard() {
        if (passGuard != null) {
            passGuard.cancel();
            passGuard = null;
        }
    }

    private void passTimedOut(Timeout timeout) {
        boolean release;
        synchronized (this) {
            release = passGuard == timeout && endPassing();
        }
        if (release) {
            releaseInRedis();
        }
    }

    // ---- the owner's hold and losses -----------------------------------------------------------

    /** A local grant was recorded in the owner's hold: the cohort confirms it and ends it with itself. */
    void started(long owner, Hold hold) {
        boolean current;
        synchronized (this) {
            current = state == State.HELD && this.owner == owner && token == hold.token();
            if (current) {
                ownerHold = hold;
            }
        }
        hold.onLoss((lostHold, mayRemainInRedis) -> ownerLost(lostHold, mayRemainInRedis));
        if (!current && hold.isHeld()) {
            hold.lose("the client's hold in Redis was lost before the grant was recorded", false);
        }
    }

    private void ownerLost(Hold hold, boolean mayRemainInRedis) {
        long current;
        synchronized (this) {
            if (state != State.HELD || ownerHold != hold) {
                return;
            }
            current = redisToken;
        }
        lost(hold.lossReason(), mayRemainInRedis, current);
    }

    /** A notice on the lock's channel: a force-unlock of a cohort hold, maybe this one. */
    private void notice(String message) {
        if (message.startsWith(FORCED)) {
            long forced;
            try {
                forced = Long.parseLong(message.substring(FORCED.length()));
            } catch (NumberFormatException e) {
                return;
            }
            lost("it was force-unlocked", false, forced);
        }
    }

    /** A force-unlock by this client deleted the lock: whatever hold the cohort had is gone. */
    void forced() {
        long current;
        synchronized (this) {
            current = redisToken;
        }
        lost("it was force-unlocked", false, current);
    }

    /**
     * The Redis hold with token {@code heldToken} is gone, or must be taken as gone: the cohort
     * ends, its owner's hold is lost, and every waiter tries Redis again.
     */
    private void lost(String how, boolean mayRemainInRedis, long heldToken) {
        Hold lostHold;
        synchronized (this) {
            if ((state != State.HELD && state != State.PASSING) || redisToken != heldToken) {
                return;
            }
            lostHold = ownerHold;
            ownerHold = null;
            owner = 0;
            levels = 0;
            cancelPassGuard();
            state = State.FREE;
            stopObservingLocked();
            context.renewer().cancel(context.executor(), plain.keys().lock(), field);
            if (mayRemainInRedis) {
                // Registered before the cohort is FREE to others, so the next Redis try goes after it.
                redis.endLost(self, heldToken);
            }
            retireIfIdle();
        }
        if (lostHold != null) {
            lostHold.lose(how, false);
        }
        signalAll();
    }

    private void confirmed(long heldToken, long untilNanos) {
        Hold current;
        synchronized (this) {
            if ((state != State.HELD && state != State.PASSING) || redisToken != heldToken) {
                return;
            }
            if (untilNanos - confirmedUntilNanos > 0) {
                confirmedUntilNanos = untilNanos;
            }
            current = ownerHold;
        }
        if (current != null) {
            current.confirm(untilNanos);
        }
    }

    /** Guarded by this. */
    private void stopObservingLocked() {
        if (stopObserving != null) {
            stopObserving.run();
            stopObserving = null;
        }
    }

    // ---- queries -------------------------------------------------------------------------------

    /** @return the owner's hold count if it holds through the cohort; -1 if Redis must answer */
    synchronized int holdCount(long owner) {
        return state == State.HELD && this.owner == owner ? levels : -1;
    }

    // ---- local waiters -------------------------------------------------------------------------

    long localSequence() {
        return localSequence.get();
    }

    synchronized void waiterJoined(long owner) {
        waiters++;
        waitingOwners.merge(owner, 1, Integer::sum);
    }

    void waiterLeft(long owner) {
        boolean release;
        synchronized (this) {
            waiters--;
            waitingOwners.computeIfPresent(owner, (id, count) -> count == 1 ? null : count - 1);
            release = waiters == 0 && endPassing();
            retireIfIdle();
        }
        if (release) {
            releaseInRedis();
        }
    }

    /** @return completes at the first local signal after {@code seenSequence} */
    CompletableFuture<Void> park(long seenSequence) {
        CompletableFuture<Void> wait = new CompletableFuture<>();
        synchronized (this) {
            if (localSequence.get() != seenSequence) {
                wait.complete(null);
            } else {
                parked.add(wait);
            }
        }
        return wait;
    }

    synchronized void unpark(CompletableFuture<Void> wait) {
        parked.remove(wait);
    }

    /** Wakes the oldest local wait. */
    void signalOne() {
        CompletableFuture<Void> next;
        synchronized (this) {
            localSequence.incrementAndGet();
            next = parked.poll();
        }
        if (next != null) {
            next.complete(null);
        }
    }

    private void signalAll() {
        List<CompletableFuture<Void>> all;
        synchronized (this) {
            localSequence.incrementAndGet();
            all = new ArrayList<>(parked);
            parked.clear();
        }
        all.forEach(wait -> wait.complete(null));
    }

    /** Guarded by this: an idle cohort leaves the registry, so that the client keeps none per idle lock. */
    private void retireIfIdle() {
        if (state == State.FREE && waiters == 0 && !retired) {
            retired = true;
            registry.retire(identity, this);
        }
    }

    private void handedOff(long from, long to) {
        LockEvents events = context.holds().events();
        if (events.enabled()) {
            events.handedOff(new LockEventListener.HandedOff(plain.name(), plain.kind(), from, to));
        }
    }

    /** A level granted here: the owner's hold is confirmed and ended with the cohort's. */
    private final class LocalGrant implements TryResult.Grant {
        private final long owner;
        private final long token;
        private final long untilNanos;

        LocalGrant(long owner, long token, long untilNanos) {
            this.owner = owner;
            this.token = token;
            this.untilNanos = untilNanos;
        }

        @Override
        public long fencingToken() {
            return token;
        }

        @Override
        public long confirmedUntilNanos() {
            return untilNanos;
        }

        @Override
        public void start(Hold hold) {
            started(owner, hold);
        }
    }
}
