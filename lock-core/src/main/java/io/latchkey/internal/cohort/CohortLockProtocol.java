package io.latchkey.internal.cohort;

import io.latchkey.spi.CohortRedis;
import io.latchkey.internal.lock.ReentrantLockProtocol;
import io.latchkey.spi.PlainLock;
import io.latchkey.spi.HoldRegistry;
import io.latchkey.spi.LeaseTerm;
import io.latchkey.spi.LockProtocol;
import io.latchkey.spi.Ticker;
import io.latchkey.spi.TryResult;
import io.latchkey.spi.Wakeups;
import io.netty.util.Timer;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * A lock with local hand-off: a decorator of the plain lock ({@link ReentrantLockProtocol}), or
 * of another kind whose Redis side a {@link CohortRedis} of its own serves (RedLock's quorum),
 * that the one acquire loop drives unchanged. Watchdog-lease acquisitions go through the client's
 * {@link Cohort} of the lock; fixed-lease ones, and re-entries of holds taken that way, go to the
 * plain lock under the owner's own field, as without hand-off, but mark the client as waiting as
 * the cohort's tries do. Queries that Redis answers for every client ({@code isLocked}, the
 * remaining lease, force-unlock) go to Redis, where the cohort's hold shows the lock held; an
 * owner's hold count is the cohort's while it holds through it and Redis still has the cohort's
 * hold. A lock the client neither holds, waits for nor tries has no cohort. Thread-safe.
 */
final class CohortLockProtocol implements LockProtocol {

    /** The lock without hand-off: owners' own holds, the queries and the wake-ups go to it. */
    private final LockProtocol plain;
    private final Cohorts cohorts;
    private final Cohorts.RedisSides sides;

    /**
     * @param plain the lock without hand-off
     * @param sides makes the Redis side of the lock's cohort, whose calls match {@code plain}'s
     */
    CohortLockProtocol(LockProtocol plain, Cohorts cohorts, Cohorts.RedisSides sides) {
        this.plain = plain;
        this.cohorts = cohorts;
        this.sides = sides;
    }

    @Override
    public Optional<PlainLock> plainLock() {
        return plain.plainLock();
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
            CompletableFuture<TryResult> tried = cohorts.of(plain.identity(), sides).tryAcquire(owner, lease, heldToken);
            if (tried != null) {
                return tried;
            }
        }
    }

    @Override
    public CompletableFuture<Void> release(long owner) {
        CompletableFuture<Void> released = cohorts.release(plain.identity(), owner);
        return released != null ? released : plain.release(owner);
    }

    @Override
    public CompletableFuture<Void> abandon(long owner) {
        cohorts.attemptLeft(plain.identity(), owner);
        return plain.abandon(owner);
    }

    @Override
    public CompletableFuture<Wakeups> wakeups(long owner) {
        return cohorts.wakeups(plain.identity(), sides, plain.wakeups(owner), owner);
    }

    @Override
    public @Nullable Wakeups wakeupsIfWaitedFor(long owner) {
        Wakeups redis = plain.wakeupsIfWaitedFor(owner);
        return redis == null ? null : cohorts.joined(plain.identity(), sides, redis, owner);
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
    public @Nullable Timer timer() {
        return plain.timer();
    }

    @Override
    public Duration commandTimeout() {
        return plain.commandTimeout();
    }

    @Override
    public CompletableFuture<Boolean> forceRelease() {
        return plain.forceRelease().thenApply(deleted -> {
            Cohort cohort = cohorts.existing(plain.identity());
            if (deleted && cohort != null) {
                cohort.losses().forced();
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
        LocalHold local = cohorts.localHold(plain.identity(), owner);
        return local == null ? plain.holdCount(owner) : local.confirmed();
    }

    @Override
    public CompletableFuture<Duration> remainingLease() {
        return plain.remainingLease();
    }
}
