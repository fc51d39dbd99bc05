package io.latchkey.internal.lock;

import io.latchkey.DistributedLock;
import io.latchkey.LockHold;
import io.latchkey.internal.redis.Failures;
import io.latchkey.spi.Hold;
import io.latchkey.spi.LeaseTerm;
import io.latchkey.spi.LockProtocol;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * {@link DistributedLock} for every lock kind that has a protocol: {@link AbstractDistributedLock}
 * over the one {@link AcquireAttempt} loop, with the owner ids an application may not use
 * refused, and the queries asked of the protocol. Thread-safe; holds no per-call state.
 */
public final class LockFacade extends AbstractDistributedLock<Hold> {

    private final LockProtocol protocol;
    private final LeaseTerm watchdogLease;
    private final Acquisitions acquisitions;
    private final LockHolds holds;

    /**
     * Serves a lock kind.
     *
     * @param protocol the lock kind's Redis side
     * @param watchdogLease the lease that {@code lock()} and {@code tryLock(wait)} take, renewed
     *     while held: the kind's {@link LockContext#watchdogLease()} (RedLock's: the shortest of
     *     its masters')
     */
    public LockFacade(LockProtocol protocol, Duration watchdogLease) {
        this.protocol = Objects.requireNonNull(protocol, "protocol");
        this.watchdogLease = LeaseTerm.watchdog(watchdogLease);
        this.acquisitions = new Acquisitions(protocol);
        this.holds = acquisitions.holds();
    }

    /** @return the lock kind's Redis side */
    LockProtocol protocol() {
        return protocol;
    }

    @Override
    public String getName() {
        return protocol.name();
    }

    @Override
    public boolean isHeldByCurrentThread() {
        return isHeldBy(currentOwner());
    }

    @Override
    public boolean isHeldBy(long ownerId) {
        return await(protocol.holdCount(OwnerIds.requireApplicationOwner(ownerId))) > 0;
    }

    @Override
    public int getHoldCount() {
        return await(protocol.holdCount(currentOwner()));
    }

    @Override
    public Duration remainingLease() {
        return await(protocol.remainingLease());
    }

    @Override
    public CompletableFuture<Boolean> forceUnlockAsync() {
        return protocol.forceRelease();
    }

    @Override
    public CompletableFuture<Boolean> isLockedAsync() {
        return protocol.isLocked();
    }

    // ---- the seam ----------------------------------------------------------------------------

    @Override
    protected Acquisition<Hold> start(long owner, @Nullable Duration leaseTime, long waitNanos) {
        LeaseTerm lease = leaseTime == null ? watchdogLease : LeaseTerm.fixed(leaseTime);
        return acquisitions.start(OwnerIds.requireApplicationOwner(owner), lease, waitNanos);
    }

    @Override
    protected LockHold handle(Hold hold) {
        return new HoldHandle(this, hold);
    }

    @Override
    protected CompletableFuture<Void> release(long owner) {
        return holds.release(OwnerIds.requireApplicationOwner(owner));
    }

    /** A handle's close: releases one level of its hold, on the caller's thread. */
    void close(Hold hold) {
        await(holds.close(hold));
    }

    // ---- for locks made of locks -------------------------------------------------------------

    /**
     * One acquisition for a lock made of other locks (the multi-lock), which drives its parts by
     * owner, lease and wait as none of the public methods takes them together (a watchdog lease
     * with a bounded wait for a given owner), and must know when a part it gave up has left
     * nothing behind.
     *
     * @param owner the owner
     * @param leaseTime a fixed lease, validated by the caller; null for this lock's watchdog lease
     * @param waitNanos the longest wait; {@link Long#MAX_VALUE} for as long as it takes
     * @return the running acquisition, whose grant is a handle; null when the wait ran out
     */
    public Acquisition<LockHold> acquisition(long owner, @Nullable Duration leaseTime, long waitNanos) {
        Acquisition<Hold> attempt = start(owner, leaseTime == null ? null : Acquisitions.checkLease(leaseTime),
                Math.max(0, waitNanos));
        CompletableFuture<LockHold> result = new CompletableFuture<>();
        attempt.result().whenComplete((hold, failure) -> {
            if (failure != null) {
                result.completeExceptionally(Failures.unwrap(failure));
            } else {
                result.complete(hold == null ? null : handle(hold));
            }
        });
        return Acquisition.of(result, attempt::cancel);
    }

    /** @return what identifies this lock on its client: equal for every lock object of it */
    public Object identity() {
        return protocol.identity();
    }

    @Override
    public String toString() {
        return "DistributedLock{" + protocol.name() + '}';
    }
}
