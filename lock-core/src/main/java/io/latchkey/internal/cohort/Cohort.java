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
import java.time.Duration;
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
 * acquisition while another client waits (its try marked it waiting, and told this client with a
 * {@code !wait:<client>} notice), then the hold is released in Redis, which reserves the lock for
 * that client for a turn (rule 2; acquire.lua and release.lua); with no other client waiting, the
 * hold is passed on until the block of tokens runs out, but only while what the cohort knows of
 * other clients is less than a bound of hand-offs old and its read of the waiting mark has not
 * been unanswered for {@code maxTime} (else the passed hold waits for the answer, at most
 * {@code PASS_NANOS}, then goes to Redis);
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
    private static final String WAITING = "!wait:";
    /**
     * How long a turn that a release reserved for a waiting client lasts: long enough for its
     * woken waiter's try to arrive on a loaded machine (100 ms was seen to fall short with twice
     * as many busy processes as cores), short enough that a waiter that gave up meanwhile stalls
     * the lock only briefly. A turn taken ends at once.
     */
    static final Duration TURN = Duration.ofMillis(250);
    /**
     * The fewest tokens a Redis acquisition reserves. With no other client waiting, a hold is
     * passed on until its block runs out; then it is released and taken again in Redis.
     */
    static final int MIN_TOKEN_BLOCK = 1024;

    private enum State { FREE, ACQUIRING, HELD, PASSING, RELEASING }

    private final Cohorts registry;
    private final Object identity;
    private final ReentrantLockProtocol plain;
    private final LockContext context;
    private final HoldCalls redis;
    /** The cohort's owner id in Redis: one of the client's, never an application's thread id. */
    private final long self;
    private final String field;
    /** What the client's tries write into the lock's waiting mark. */
    private final String client;
    /** How many fencing tokens a Redis acquisition reserves for the hand-offs it starts. */
    private final int tokenBlock;
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
    /**
     * Guarded by this: tries that found a Redis call of the cohort in flight, answered as that
     * call ends. They share its answer rather than try Redis again one after another: a client's
     * waiters send one try at a time, and no more than the lock's messages call for.
     */
    private final List<CompletableFuture<TryResult>> deferred = new ArrayList<>();
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
    /**
     * Guarded by this: the hold was passed on (PASSING) but no local waiter may take it before
     * the read of the waiting mark in flight is answered ({@link OtherClients#mustHearFirst}).
     */
    private boolean waitingForMark;
    /** Guarded by this. */
    private final OtherClients others;
    private Runnable stopObserving;

    Cohort(Cohorts registry, Object identity, ReentrantLockProtocol plain, long self, LocalHandOff bounds) {
        this.registry = registry;
        this.identity = identity;
        this.plain = plain;
        this.context = plain.context();
        this.tokenBlock = Math.max(bounds.maxHandOffs() + 1, MIN_TOKEN_BLOCK);
        this.redis = plain.cohortCalls(tokenBlock, TURN, context.renewer().lease());
        this.self = self;
        this.field = context.field(self);
        this.client = field.substring(0, field.indexOf(':'));
        this.others = new OtherClients(bounds);
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
        boolean releaseFirst = false;
        long from = 0;
        TryResult answer = null;
        CompletableFuture<TryResult> later = null;
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
                        state = State.ACQUIRING;
                        this.owner = owner;
                        toRedis = true;
                        others.trySent();
                        // Before the try is sent: a waiter that the grant finds marked is told then.
                        stopObserving = context.subscriptions().observe(plain.keys().channel(), this::notice);
                    }
                    case PASSING -> {
                        if (waitingForMark) {
                            answer = TryResult.busy(heldMillis(now));
                        } else if (leaseValid(now)) {
                            cancelPassGuard();
                            state = State.HELD;
                            this.owner = owner;
                            levels = 1;
                            token++;
                            from = lastOwner;
                            answer = TryResult.acquired(new LocalGrant(owner, token, confirmedUntilNanos));
                        } else {
                            releaseFirst = endPassing();
                            later = defer();
                        }
                    }
                    case HELD -> answer = TryResult.busy(heldMillis(now));
                    default -> later = defer();
                }
            }
        }
        if (releaseFirst) {
            releaseInRedis();
        }
        if (later != null) {
            return later;
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
        return redis.tryAcquire(self, lease, 0).handle((reply, failure) -> afterRedisTry(owner, reply, failure));
    }

    private TryResult afterRedisTry(long owner, TryResult reply, Throwable failure) {
        boolean granted = failure == null && reply.acquired();
        TryResult result = reply;
        TryResult forDeferred;
        List<CompletableFuture<TryResult>> answered;
        long heldToken = 0;
        synchronized (this) {
            if (granted) {
                TryResult.Grant grant = reply.grant();
                state = State.HELD;
                levels = 1;
                redisToken = grant.fencingToken();
                heldToken = redisToken;
                token = redisToken;
                lastToken = redisToken + tokenBlock - 1;
                confirmedUntilNanos = grant.confirmedUntilNanos();
                heldSinceNanos = context.ticker().read();
                throughRedis = false;
                others.granted(heldSinceNanos, token);
                if (grant.anotherClientWaits()) {
                    others.waits();
                }
                result = TryResult.acquired(new LocalGrant(owner, token, confirmedUntilNanos));
                renewInRedis(heldToken);
            } else {
                state = State.FREE;
                this.owner = 0;
                stopObservingLocked();
                if (failure == null) {
                    others.marked();
                }
            }
            answered = takeDeferred();
            // After a grant, the hold is passed on to the tries answered here; after "held", they
            // wait as the try did: an unlock that came after Redis answered it changed the
            // channel's sequence since each of them last looked, so it still wakes them.
            forDeferred = granted ? TryResult.busy(heldMillis(heldSinceNanos))
                    : failure != null ? TryResult.busy(0) : TryResult.busy(reply.waitMillis());
            if (!granted) {
                retireIfIdle();
            }
        }
        answered.forEach(later -> later.complete(forDeferred));
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

    /** Guarded by this: a try that found a Redis call of the cohort in flight; answered as it ends. */
    private CompletableFuture<TryResult> defer() {
        CompletableFuture<TryResult> later = new CompletableFuture<>();
        deferred.add(later);
        return later;
    }

    /** Guarded by this. */
    private List<CompletableFuture<TryResult>> takeDeferred() {
        if (deferred.isEmpty()) {
            return List.of();
        }
        List<CompletableFuture<TryResult>> taken = new ArrayList<>(deferred);
        deferred.clear();
        return taken;
    }

    /** Guarded by this: the bound on a wait for the cohort's hold, which a local release or an unlock ends sooner. */
    private long heldMillis(long now) {
        return Math.max(1, TimeUnit.NANOSECONDS.toMillis(confirmedUntilNanos - now));
    }

    /** Guarded by this. */
    private boolean leaseValid(long now) {
        return confirmedUntilNanos - marginNanos - now > 0;
    }

    // ---- releasing -----------------------------------------------------------------------------

    /** @return the release; null if this cohort retired (look it up again) */
    CompletableFuture<Void> release(long owner) {
        boolean passed;
        boolean stillWaiting = false;
        boolean readMark = false;
        boolean signal = false;
        long heldToken = 0;
        long readAt = 0;
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
            stillWaiting = waiters > waitingOwners.getOrDefault(owner, 0);
            passed = stillWaiting && mayPassOn(now);
            if (passed) {
                state = State.PASSING;
                schedulePassGuard();
                readMark = others.readDue(now, token);
                readAt = token;
                heldToken = redisToken;
                waitingForMark = others.mustHearFirst(now, token);
                signal = !waitingForMark;
            } else {
                state = State.RELEASING;
                if (stillWaiting) {
                    others.marked();
                }
            }
        }
        if (passed) {
            if (signal) {
                signalOne();
            }
            if (readMark) {
                readMark(heldToken, readAt);
            }
            return DONE;
        }
        // With owners still waiting (its bound was reached, or its lease or token block ran out),
        // the release marks the client as waiting in the same script: the next holder's grant
        // finds the mark and bounds its hand-offs from the start. Left to the waiters' next try,
        // a round trip later, the mark was seen to come 7 ms late, a thousand hand-offs.
        return releaseInRedis(stillWaiting);
    }

    /** Guarded by this: whether the hold may be passed on to a local waiter as far as Redis is concerned. */
    private boolean mayPassOn(long now) {
        return !throughRedis && token < lastToken && !others.boundReached(token - redisToken, now - heldSinceNanos)
                && leaseValid(now);
    }

    /**
     * Reads the waiting mark while the hold is passed on, every half bound of hand-offs or every
     * {@link LocalHandOff#maxTime()}, whichever comes first: the notices of other clients' tries
     * come over pub/sub, which a busy machine was seen to hold up for seconds, and a waiting
     * client must not wait that long for its turn. One GET at a time, at most one per half bound
     * of grants, and none while the lock is not passed on. While the last answer is a whole bound
     * of hand-offs old, or the read is unanswered for {@code maxTime}, the passed hold waits for
     * the answer ({@link OtherClients#mustHearFirst}), and then goes on or to Redis.
     */
    private void readMark(long heldToken, long readAt) {
        context.executor().call(plain.name(), commands -> commands.get(plain.keys().waitingMark()))
                .whenComplete((marked, failure) -> heard(heldToken, readAt, failure == null ? marked : null, failure == null));
    }

    private void heard(long heldToken, long readAt, String marked, boolean answered) {
        boolean pass = false;
        boolean release = false;
        boolean requeue = false;
        synchronized (this) {
            if (answered) {
                others.readAnswered(readAt);
            } else {
                others.readFailed(readAt);
            }
            boolean current = (state == State.HELD || state == State.PASSING) && redisToken == heldToken;
            if (current && marked != null && !marked.equals(client)) {
                others.waits();
            }
            if (current && state == State.PASSING && waitingForMark) {
                waitingForMark = false;
                long now = context.ticker().read();
                pass = waiters > 0 && mayPassOn(now) && !others.mustHearFirst(now, token);
                if (!pass) {
                    requeue = waiters > 0;
                    release = endPassing();
                    if (requeue) {
                        others.marked();
                    }
                }
            }
        }
        if (pass) {
            signalOne();
        }
        if (release) {
            releaseInRedis(requeue);
        }
    }

    /** Guarded by this: a passed hold nobody took; true if the caller must release it in Redis. */
    private boolean endPassing() {
        if (state != State.PASSING) {
            return false;
        }
        cancelPassGuard();
        waitingForMark = false;
        state = State.RELEASING;
        return true;
    }

    private CompletableFuture<Void> releaseInRedis() {
        return releaseInRedis(false);
    }

    private CompletableFuture<Void> releaseInRedis(boolean requeue) {
        return (requeue ? redis.requeue(self) : redis.release(self)).whenComplete((ok, failure) -> {
            boolean wake;
            List<CompletableFuture<TryResult>> answered;
            synchronized (this) {
                if (state == State.RELEASING) {
                    state = State.FREE;
                    stopObservingLocked();
                }
                wake = waiters > 0;
                answered = takeDeferred();
                retireIfIdle();
            }
            if (wake) {
                // Redis's unlock message wakes one waiter of the channel too, but it may come
                // late, and the client knows already: one of its waiters tries Redis, the others
                // share that try's answer.
                signalAll();
            }
            answered.forEach(later -> later.complete(TryResult.busy(0)));
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
        boolean requeue;
        synchronized (this) {
            release = passGuard == timeout && endPassing();
            // Owners may still wait: one that has not come for the hold, or all of them while the
            // hold waited for a read of the mark that Redis did not answer in time.
            requeue = release && waiters > 0;
            if (requeue) {
                others.marked();
            }
        }
        if (release) {
            releaseInRedis(requeue);
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

    /**
     * A notice on the lock's channel: another client's try found the lock held (or free but
     * reserved), or a force-unlock of a cohort hold, maybe this one.
     */
    private void notice(String message) {
        if (message.startsWith(WAITING)) {
            if (!message.equals(WAITING + client)) {
                synchronized (this) {
                    if (state != State.FREE) {
                        others.waits();
                    }
                }
            }
        } else if (message.startsWith(FORCED)) {
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
            waitingForMark = false;
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
        boolean unmark;
        synchronized (this) {
            waiters--;
            waitingOwners.computeIfPresent(owner, (id, count) -> count == 1 ? null : count - 1);
            release = waiters == 0 && endPassing();
            // The last waiter gave up (a timeout, an interrupt): the client no longer waits.
            unmark = waiters == 0 && state == State.FREE && others.withdraw();
            retireIfIdle();
        }
        if (release) {
            releaseInRedis();
        }
        if (unmark) {
            plain.unmark(client);
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
