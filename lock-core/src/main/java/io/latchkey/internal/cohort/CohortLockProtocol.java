package io.latchkey.internal.cohort;

import io.latchkey.internal.hold.HoldRegistry;
import io.latchkey.internal.lock.LeaseTerm;
import io.latchkey.internal.lock.LockProtocol;
import io.latchkey.internal.lock.ReentrantLockProtocol;
import io.latchkey.internal.lock.TryResult;
import io.latchkey.internal.time.Ticker;
import io.latchkey.internal.wakeup.Wakeups;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The plain lock with local hand-off: a decorator of {@link ReentrantLockProtocol} that the one
 * acquire loop drives unchanged. Watchdog-lease acquisitions go through the client's
 * {@link Cohort} of the lock; fixed-lease ones, and re-entries of holds taken that way, go to the
 * plain lock under the owner's own field, as without hand-off, but mark the client as waiting as
 * the cohort's tries do. Queries that Redis answers for every client ({@code isLocked}, the
 * remaining lease, force-unlock) go to Redis, where the cohort's hold shows the lock held; an
 * owner's hold count is the cohort's while it holds through it and Redis still has the cohort's
 * hold. A lock the client neither holds, waits for nor tries has no cohort. Thread-safe.
 */
public final class CohortLockProtocol implements LockProtocol {

    private final ReentrantLockProtocol plain;
    private final Cohorts cohorts;

    CohortLockProtocol(ReentrantLockProtocol plain, Cohorts cohorts) {
        this.plain = plain;
        this.cohorts = cohorts;
    }

    @Override
    public Optional<ReentrantLockProtocol> plainLock() {
        return Optional.of(plain);
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
        Cohort cohort = cohorts.existing(plain);
        if (cohort != null) {
            cohort.attemptLeft();
        }
        return plain.abandon(owner);
    }

    @Override
    public CompletableFuture<Wakeups> wakeups(long owner) {
        // The cohort is looked up once the subscription is confirmed: one found before may have
        // retired meanwhile, and a waiter bound to it would be left out of every hand-off.
        return plain.wakeups(owner).thenApply(redis -> joined(redis, owner));
    }

    @Override
    public Wakeups wakeupsIfWaitedFor(long owner) {
        Wakeups redis = plain.wakeupsIfWaitedFor(owner);
        return redis == null ? null : joined(redis, owner);
    }

    private Wakeups joined(Wakeups redis, long owner) {
        while (true) {
            Cohort cohort = cohorts.of(plain);
            if (cohort.waiterJoined(owner)) {
                return new CohortWakeups(cohort, redis, owner);
            }
        }
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
            Cohort cohort = cohorts.existing(plain);
            if (deleted && cohort != null) {
                cohort.forced();
            }
            return deleted;
        });
    }

    @Override
    public CompletableFuture<Boolean> isLocked() {
        return plain.isLocked();
    }

    /**
     * An owner that holds through the cohort is answered from the cohort's levels once Redis
     * confirmed that the cohort's hold is still there (another client's force-unlock may have
     * deleted it, its notice not yet here); any other owner from Redis. Keeps nothing per lock.
     */
    @Override
    public CompletableFuture<Integer> holdCount(long owner) {
        Cohort cohort = cohorts.existing(plain);
        Cohort.LocalHold local = cohort == null ? null : cohort.localHold(owner);
        if (local == null) {
            return plain.holdCount(owner);
        }
        return cohort.redis().holdsCohortHold(local.redisToken()).thenApply(held -> {
            if (!held) {
                cohort.foundGone(local.redisToken());
                return 0;
            }
            return local.levels();
        });
    }

    @Override
    public CompletableFuture<Duration> remainingLease() {
        return plain.remainingLease();
    }
}
