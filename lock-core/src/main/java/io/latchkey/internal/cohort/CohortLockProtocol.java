package io.latchkey.internal.cohort;

import io.latchkey.internal.hold.HoldRegistry;
import io.latchkey.internal.lock.LeaseTerm;
import io.latchkey.internal.lock.LockProtocol;
import io.latchkey.internal.lock.ReentrantLockProtocol;
import io.latchkey.internal.lock.TryResult;
import io.latchkey.internal.time.Ticker;
import io.latchkey.internal.wakeup.Wakeups;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * The plain lock with local hand-off: a decorator of {@link ReentrantLockProtocol} that the one
 * acquire loop drives unchanged. Watchdog-lease acquisitions go through the client's
 * {@link Cohort} of the lock; fixed-lease ones, and re-entries of holds taken that way, go to the
 * plain lock under the owner's own field, exactly as without hand-off. Queries that Redis answers
 * for every client ({@code isLocked}, the remaining lease, force-unlock) go to Redis, where the
 * cohort's hold shows the lock held; an owner's hold count is the cohort's while it holds through
 * it. Thread-safe.
 */
public final class CohortLockProtocol implements LockProtocol {

    private final ReentrantLockProtocol plain;
    private final Cohorts cohorts;

    CohortLockProtocol(ReentrantLockProtocol plain, Cohorts cohorts) {
        this.plain = plain;
        this.cohorts = cohorts;
    }

    /** @return the plain lock underneath */
    public ReentrantLockProtocol plain() {
        return plain;
    }

    @Override
    public String name() {
        return plain.name();
    }

    @Override
    public String kind() {
        return plain.kind();
    }

    @Override
    public CompletableFuture<TryResult> tryAcquire(long owner, LeaseTerm lease, long heldToken) {
        while (true) {
            CompletableFuture<TryResult> tried = cohorts.of(plain).tryAcquire(owner, lease, heldToken);
            if (tried != null) {
                return tried;
            }
        }
    }

    @Override
    public CompletableFuture<Void> release(long owner) {
        while (true) {
            CompletableFuture<Void> released = cohorts.of(plain).release(owner);
            if (released != null) {
                return released;
            }
        }
    }

    @Override
    public CompletableFuture<Void> abandon(long owner) {
        return plain.abandon(owner);
    }

    @Override
    public CompletableFuture<Wakeups> wakeups(long owner) {
        Cohort cohort = cohorts.of(plain);
        return plain.wakeups(owner).thenApply(redis -> new CohortWakeups(cohort, redis, owner));
    }

    @Override
    public Wakeups wakeupsIfWaitedFor(long owner) {
        Wakeups redis = plain.wakeupsIfWaitedFor(owner);
        return redis == null ? null : new CohortWakeups(cohorts.of(plain), redis, owner);
    }

    @Override
    public HoldRegistry holdRegistry() {
        return plain.holdRegistry();
    }

    @Override
    public Object identity() {
        return plain.identity();
    }

    @Override
    public Ticker ticker() {
        return plain.ticker();
    }

    @Override
    public Duration watchdogTimeout() {
        return plain.watchdogTimeout();
    }

    @Override
    public CompletableFuture<Boolean> forceRelease() {
        return plain.forceRelease().thenApply(deleted -> {
            if (deleted) {
                cohorts.of(plain).forced();
            }
            return deleted;
        });
    }

    @Override
    public CompletableFuture<Boolean> isLocked() {
        return plain.isLocked();
    }

    @Override
    public CompletableFuture<Integer> holdCount(long owner) {
        int local = cohorts.of(plain).holdCount(owner);
        return local >= 0 ? CompletableFuture.completedFuture(local) : plain.holdCount(owner);
    }

    @Override
    public CompletableFuture<Duration> remainingLease() {
        return plain.remainingLease();
    }
}
