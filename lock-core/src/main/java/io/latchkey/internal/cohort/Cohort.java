package io.latchkey.internal.cohort;

import io.latchkey.internal.lock.LocalGrant;
import io.latchkey.spi.CohortRedis;
import io.latchkey.internal.redis.LockExceptions;
import io.latchkey.spi.Hold;
import io.latchkey.spi.LeaseTerm;
import io.latchkey.spi.TryResult;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * One client's cohort of one plain lock: the Redis hold that the client takes for its owners
 * under an owner id of its own, and the local lock that passes that hold from owner to owner.
 *
 * <p>States: {@code FREE} (no Redis hold), {@code ACQUIRING} (one owner's try for the cohort is
 * in Redis; the others wait here, not in Redis, so the cohort never sends two), {@code HELD} (one
 * local owner holds, with its levels counted here), {@code PASSING} (the last owner released
 * while others wait: the Redis hold stays, and the first local try takes it), {@code RELEASING}
 * (the Redis hold is being released). This class keeps the states, the owner and its levels, and
 * decides each try; fixed leases never go through the cohort, so no local successor extends the
 * client's hold beyond what it asked for, but their tries mark the client as the cohort's do
 * (rule 4). The rest is its parts': what may be passed on, the {@link HandOffBudget}'s (rules 1–3
 * and the token block); the waits for a hand-off, the {@link LocalQueue}'s; the tries in Redis,
 * {@link RedisTries}; a last release, passed on or released in Redis, {@link ReleaseOrPass}; a
 * hold doubted or found gone, {@link HoldLoss} (rule 5); the client's claim on the lock (its
 * waiting mark), withdrawn before the cohort leaves by {@link MarkWithdrawal} (rule 6).
 *
 * <p>Thread-safe. Every transition is made under this object's monitor, which guards the parts'
 * fields too; Redis calls, the owners' {@link Hold}s, the local signals and the completions of
 * futures are called outside it.
 */
final class Cohort {

    static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);

    /** The cohort's states, as the class comment describes them. */
    enum State { FREE, ACQUIRING, HELD, PASSING, RELEASING }

    private final Cohorts registry;
    private final Object identity;
    private final CohortRedis redis;
    private final LocalQueue queue = new LocalQueue();

    /** Guarded by this. */
    private final HandOffBudget budget;
    /** Guarded by this. */
    private State state = State.FREE;
    /** Guarded by this: left the registry; its calls look the cohort up again. */
    private boolean retired;
    /** Guarded by this: the client is closing; every try fails. */
    private boolean closed;
    /** Guarded by this: who of the client waits, decides or tries here. */
    private final Attendance attendance = new Attendance();
    /** Guarded by this: tries that found a Redis call of the cohort in flight. */
    private final DeferredTries deferred = new DeferredTries(attendance);
    /** Its fields guarded by this: the withdrawal of the client's mark. */
    private final MarkWithdrawal markWithdrawal;
    /** Its fields guarded by this: a last release's hand-off or release in Redis. */
    private final ReleaseOrPass releases;
    /** Its fields guarded by this: doubts, confirmations and losses of the cohort's Redis hold. */
    private final HoldLoss losses;
    /** Its fields guarded by this: the tries sent to Redis, and what their answers change. */
    private final RedisTries tries;
    /** Guarded by this: an owner of this client waits with a fixed lease, which only Redis can grant. */
    private boolean throughRedis;
    /** Guarded by this: the local owner (HELD), or the one whose try is in Redis (ACQUIRING). */
    private long owner;
    private int levels;
    private @Nullable Hold ownerHold;
    private long lastOwner;
    private @Nullable Runnable stopObserving;

    Cohort(Cohorts registry, Object identity, CohortRedis redis, HandOffBudget budget) {
        this.registry = registry;
        this.identity = identity;
        this.redis = redis;
        this.budget = budget;
        this.markWithdrawal = new MarkWithdrawal(this, redis, budget.others());
        this.releases = new ReleaseOrPass(this, redis, budget, attendance, queue, deferred, markWithdrawal);
        this.losses = new HoldLoss(this, redis, budget, queue, markWithdrawal);
        this.tries = new RedisTries(this, redis, budget, attendance, deferred, markWithdrawal, releases, losses);
    }

    // ---- what owners, their wake-ups and the registry call --------------------------------------

    /**
     * One try of an owner: for the cohort's hold (a watchdog lease), a re-entry, or a hold of the
     * owner's own (a fixed lease).
     *
     * @return the try's result; null if this cohort retired (look it up again)
     */
    @Nullable CompletableFuture<TryResult> tryAcquire(long owner, LeaseTerm lease, long heldToken) {
        long now = redis.ticker().read();
        boolean own = false;
        boolean releaseFirst = false;
        long from = 0;
        LocalGrant handedOff = null;
        TryResult answer = null;
        CompletableFuture<TryResult> later = null;
        CompletableFuture<Void> after;
        synchronized (this) {
            if (retired) {
                return null;
            }
            if (closed) {
                return CompletableFuture.failedFuture(LockExceptions.clientClosed());
            }
            if (state == State.HELD && this.owner == owner && (heldToken == 0 || heldToken == budget.token())) {
                levels++;
                return CompletableFuture.completedFuture(TryResult.acquired(
                        new LocalGrant(losses(), owner, budget.token(), budget.confirmedUntilNanos(), true)));
            }
            // Every try goes after a withdrawal of the client's mark in flight, else it deletes the try's mark.
            after = markWithdrawal.inFlight();
            if (heldToken != 0 || !lease.renewed()) {
                // A hold of the owner's own in Redis, or a fixed lease: only Redis can grant it.
                own = true;
                attendance.ownTrySent();
                if (!lease.renewed() && (state == State.HELD || state == State.PASSING)) {
                    throughRedis = true;
                    releaseFirst = state == State.PASSING && releases.end();
                }
            } else {
                switch (state) {
                    case FREE -> {
                        state = State.ACQUIRING;
                        this.owner = owner;
                        tries.cohortTrySent(now);
                        // Before the try is sent: a waiter that the grant finds marked is told then.
                        stopObserving = redis.observe(new CohortNotices(this, budget.others(), losses));
                    }
                    case PASSING -> {
                        if (releases.waitsForMark()) {
                            answer = TryResult.busy(budget.heldMillis(now));
                            attendance.toldBusy(owner);
                        } else if (budget.mayTake(now)) {
                            releases.cancel();
                            state = State.HELD;
                            this.owner = owner;
                            levels = 1;
                            from = lastOwner;
                            handedOff = new LocalGrant(losses(), owner, budget.nextToken(), budget.confirmedUntilNanos(), false);
                            answer = TryResult.acquired(handedOff);
                        } else {
                            releaseFirst = releases.end();
                            later = deferred.defer(owner);
                        }
                    }
                    case HELD -> {
                        answer = TryResult.busy(budget.heldMillis(now));
                        attendance.toldBusy(owner);
                    }
                    default -> later = deferred.defer(owner);
                }
            }
        }
        if (releaseFirst) {
            releases.releaseEnded();
        }
        if (later != null) {
            return later;
        }
        if (answer != null) {
            if (handedOff != null) {
                redis.handedOff(from, owner, handedOff.fencingToken());
            }
            return CompletableFuture.completedFuture(answer);
        }
        return own ? tries.sendOwnTry(owner, lease, heldToken, after) : tries.sendCohortTry(owner, lease, after);
    }

    /** @return the release; null if this cohort retired (look it up again) */
    @Nullable CompletableFuture<Void> release(long owner) {
        CompletableFuture<Void> withdrawal;
        ReleaseOrPass.Release last;
        synchronized (this) {
            if (retired) {
                return null;
            }
            if (state == State.HELD && this.owner == owner) {
                if (--levels > 0) {
                    return DONE;
                }
                ownerHold = null;
                lastOwner = owner;
                this.owner = 0;
                last = releases.decide(owner);
                withdrawal = null;
            } else {
                last = null;
                withdrawal = settleIfIdle();
            }
        }
        if (last == null) {
            markWithdrawal.send(withdrawal);
            return redis.releaseOwnHold(owner);
        }
        return releases.carryOut(last);
    }

    /**
     * The owner's wake-ups are subscribed to the lock's channel. The client hears the channel only
     * while an owner waits, so a first waiter behind the cohort's Redis hold has Redis asked
     * whether the hold is still there: a force-unlock's notice sent before the subscription was
     * not heard, and the waiter would otherwise wait for the next renewal to learn of it.
     *
     * @return false if this cohort retired (look it up again); else the owner counts as a waiter
     */
    boolean waiterJoined(long owner) {
        long heldToken;
        synchronized (this) {
            if (retired) {
                return false;
            }
            boolean first = !attendance.anyWaiter();
            attendance.joined(owner);
            if (!first || !(state == State.HELD || state == State.PASSING)) {
                return true;
            }
            heldToken = budget.redisToken();
        }
        losses.check(heldToken);
        return true;
    }

    void waiterLeft(long owner) {
        boolean release;
        CompletableFuture<Void> withdrawal;
        synchronized (this) {
            attendance.left(owner);
            release = !attendance.anyWaiter() && releases.end();
            // The last waiter gave up (a timeout, an interrupt): the client no longer waits.
            withdrawal = settleIfIdle();
        }
        if (release) {
            releases.releaseInRedis(false);
        }
        markWithdrawal.send(withdrawal);
    }

    /** An attempt of the owner left without the lock: if it was the client's last, its claim goes. */
    void attemptLeft(long owner) {
        CompletableFuture<Void> withdrawal;
        synchronized (this) {
            attendance.decided(owner);
            withdrawal = settleIfIdle();
        }
        markWithdrawal.send(withdrawal);
    }

    /** The client is closing: every try from now on fails, and every local waiter tries once more. */
    void close() {
        synchronized (this) {
            closed = true;
        }
        queue.signalAll();
    }

    /**
     * @return the owner's levels and the token of the cohort's Redis hold if the owner holds
     *     through the cohort, which Redis must still confirm; null if the owner holds nothing here
     */
    synchronized @Nullable LocalHold localHold(long owner) {
        return state == State.HELD && this.owner == owner ? new LocalHold(this, levels, budget.redisToken()) : null;
    }

    /** @return the local half of the wake-ups */
    LocalQueue queue() {
        return queue;
    }

    /** @return the Redis side */
    CohortRedis redis() {
        return redis;
    }

    /** @return what ends or confirms the cohort's Redis hold */
    HoldLoss losses() {
        return losses;
    }

    // ---- under the monitor: what the parts ask and the transitions they make --------------------

    /**
     * Guarded by this: once nothing of this client holds, waits, tries or decides here, the cohort
     * leaves the registry, so that the client keeps none per idle lock; but first, if its mark
     * stands, the mark is withdrawn, the cohort's next try goes after that, and it leaves only
     * once that is done (rule 6).
     *
     * @return the withdrawal to send once the monitor is left, or null
     */
    @Nullable CompletableFuture<Void> settleIfIdle() {
        if (state != State.FREE || !attendance.isEmpty() || !deferred.isEmpty()
                || markWithdrawal.inFlight() != null || retired) {
            return null;
        }
        CompletableFuture<Void> withdrawal = markWithdrawal.begin();
        if (withdrawal != null) {
            return withdrawal;
        }
        retired = true;
        registry.retire(identity, this);
        return null;
    }

    /** Guarded by this. @return whether the cohort is in {@code state} */
    boolean is(State state) {
        return this.state == state;
    }

    /** Guarded by this: a transition; the cohort hears the lock's notices from its try until it is free again. */
    void moveTo(State next) {
        state = next;
        if (next == State.FREE) {
            stopObservingLocked();
        }
    }

    /** Guarded by this. @return whether the cohort has, or passes on, its Redis hold {@code heldToken} */
    boolean holdsInRedis(long heldToken) {
        return (state == State.HELD || state == State.PASSING) && budget.redisToken() == heldToken;
    }

    /** Guarded by this. @return whether an owner of this client waits with a fixed lease */
    boolean isThroughRedis() {
        return throughRedis;
    }

    /** Guarded by this. @return whether the client is closing */
    boolean isClosed() {
        return closed;
    }

    /** Guarded by this. @return the current owner's hold, once recorded; else null */
    @Nullable Hold ownerHold() {
        return ownerHold;
    }

    /**
     * Guarded by this: a local grant was recorded in the owner's hold.
     *
     * @return true if the grant is still the current one, and the hold is the owner's from now on
     */
    boolean recordOwnerHold(long owner, long token, Hold hold) {
        boolean current = isCurrentGrant(owner, token);
        if (current) {
            ownerHold = hold;
        }
        return current;
    }

    /**
     * Guarded by this: a local grant that the acquire loop could not record gives its level back.
     *
     * @return true if it was the owner's first, now its only level, which the caller releases
     */
    boolean giveBack(long owner, long token, boolean reentry) {
        if (!isCurrentGrant(owner, token)) {
            return false;
        }
        levels = reentry ? levels - 1 : 1;
        return !reentry;
    }

    /** Guarded by this. @return whether the owner holds through the cohort by the grant of {@code token} */
    private boolean isCurrentGrant(long owner, long token) {
        return state == State.HELD && this.owner == owner && budget.token() == token;
    }

    /**
     * Guarded by this: the cohort's Redis hold is gone; the cohort is free, for a new hold.
     *
     * @return the owner's hold, to be lost once the monitor is left; null if none was recorded
     */
    @Nullable Hold end() {
        Hold lostHold = ownerHold;
        ownerHold = null;
        owner = 0;
        levels = 0;
        releases.cancel();
        moveTo(State.FREE);
        return lostHold;
    }

    /** Guarded by this: Redis granted the cohort's try; its owner holds one level. */
    void heldInRedis() {
        state = State.HELD;
        levels = 1;
        throughRedis = false;
    }

    /** Guarded by this: Redis granted the cohort's try while the client closed; it is released at once. */
    void grantedWhileClosed() {
        state = State.RELEASING;
        owner = 0;
    }

    /** Guarded by this: the cohort's try failed, or found the lock held. */
    void notGranted() {
        owner = 0;
        moveTo(State.FREE);
    }

    /** Guarded by this. */
    private void stopObservingLocked() {
        if (stopObserving != null) {
            stopObserving.run();
            stopObserving = null;
        }
    }

    @Override
    public synchronized String toString() {
        return "Cohort{" + redis.lockName() + ", " + state + (retired ? ", retired" : "") + (closed ? ", closed" : "")
                + ", owner " + owner + ", levels " + levels + ", " + attendance
                + (budget.others().isMarked() ? ", marked" : "") + markWithdrawal
                + ", " + deferred + '}';
    }
}
