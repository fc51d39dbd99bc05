package io.latchkey.internal.lock;

import io.latchkey.DistributedLock;
import io.latchkey.LockHold;
import io.latchkey.internal.hold.Hold;
import io.latchkey.internal.redis.Failures;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * {@link DistributedLock} for every lock kind: validates arguments, picks the owner and lease,
 * runs the one {@link AcquireAttempt} loop, and gives the blocking methods their interrupt
 * semantics by waiting on its futures. Thread-safe; holds no per-call state.
 */
public final class LockFacade implements DistributedLock {

    private final LockProtocol protocol;
    private final Acquisitions acquisitions;
    private final LockHolds holds;

    /** @param protocol the lock kind's Redis side */
    public LockFacade(LockProtocol protocol) {
        this.protocol = Objects.requireNonNull(protocol, "protocol");
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

    // ---- blocking ----------------------------------------------------------------------------

    @Override
    public void lock() {
        lockUninterruptibly(watchdogLease());
    }

    @Override
    public void lock(Duration leaseTime) {
        lockUninterruptibly(fixedLease(leaseTime));
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        acquireInterruptibly(watchdogLease(), AcquireAttempt.forever());
    }

    @Override
    public void lockInterruptibly(Duration leaseTime) throws InterruptedException {
        acquireInterruptibly(fixedLease(leaseTime), AcquireAttempt.forever());
    }

    @Override
    public boolean tryLock() {
        return await(start(currentOwner(), watchdogLease(), 0, LockFacade::acquired));
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        Objects.requireNonNull(unit, "unit");
        // Lock's contract: "if the time is less than or equal to zero, the method will not wait
        // at all", so a negative time is one try, not an error (only the Duration overloads,
        // which are ours, reject it). toNanos saturates, so Long.MAX_VALUE of any unit means
        // "as long as it takes".
        return acquireInterruptibly(watchdogLease(), Math.max(0, unit.toNanos(time))) != null;
    }

    @Override
    public boolean tryLock(Duration waitTime) throws InterruptedException {
        return acquireInterruptibly(watchdogLease(), waitNanos(waitTime)) != null;
    }

    @Override
    public boolean tryLock(Duration waitTime, Duration leaseTime) throws InterruptedException {
        long wait = waitNanos(waitTime);
        return acquireInterruptibly(fixedLease(leaseTime), wait) != null;
    }

    @Override
    public void unlock() {
        await(holds.release(currentOwner()));
    }

    @Override
    public boolean forceUnlock() {
        return await(protocol.forceRelease());
    }

    @Override
    public boolean isLocked() {
        return await(protocol.isLocked());
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

    // ---- async -------------------------------------------------------------------------------

    @Override
    public CompletableFuture<Void> lockAsync() {
        return lockAsync(currentOwner());
    }

    @Override
    public CompletableFuture<Void> lockAsync(long ownerId) {
        return start(ownerId, watchdogLease(), AcquireAttempt.forever(), hold -> null);
    }

    @Override
    public CompletableFuture<Void> lockAsync(Duration leaseTime) {
        return lockAsync(leaseTime, currentOwner());
    }

    @Override
    public CompletableFuture<Void> lockAsync(Duration leaseTime, long ownerId) {
        return start(ownerId, fixedLease(leaseTime), AcquireAttempt.forever(), hold -> null);
    }

    @Override
    public CompletableFuture<Boolean> tryLockAsync() {
        return tryLockAsync(Duration.ZERO);
    }

    @Override
    public CompletableFuture<Boolean> tryLockAsync(Duration waitTime) {
        return start(currentOwner(), watchdogLease(), waitNanos(waitTime), LockFacade::acquired);
    }

    @Override
    public CompletableFuture<Boolean> tryLockAsync(Duration waitTime, Duration leaseTime) {
        return tryLockAsync(waitTime, leaseTime, currentOwner());
    }

    @Override
    public CompletableFuture<Boolean> tryLockAsync(Duration waitTime, Duration leaseTime, long ownerId) {
        long wait = waitNanos(waitTime);
        return start(ownerId, fixedLease(leaseTime), wait, LockFacade::acquired);
    }

    @Override
    public CompletableFuture<Void> unlockAsync() {
        return unlockAsync(currentOwner());
    }

    @Override
    public CompletableFuture<Void> unlockAsync(long ownerId) {
        return holds.release(OwnerIds.requireApplicationOwner(ownerId));
    }

    @Override
    public CompletableFuture<Boolean> forceUnlockAsync() {
        return protocol.forceRelease();
    }

    @Override
    public CompletableFuture<Boolean> isLockedAsync() {
        return protocol.isLocked();
    }

    // ---- holds -------------------------------------------------------------------------------

    @Override
    public LockHold acquire() {
        return handle(lockUninterruptibly(watchdogLease()));
    }

    @Override
    public LockHold acquire(Duration leaseTime) {
        return handle(lockUninterruptibly(fixedLease(leaseTime)));
    }

    @Override
    public LockHold acquireInterruptibly() throws InterruptedException {
        return handle(acquireInterruptibly(watchdogLease(), AcquireAttempt.forever()));
    }

    @Override
    public Optional<LockHold> tryAcquire(Duration waitTime) throws InterruptedException {
        return Optional.ofNullable(acquireInterruptibly(watchdogLease(), waitNanos(waitTime))).map(this::handle);
    }

    @Override
    public Optional<LockHold> tryAcquire(Duration waitTime, Duration leaseTime) throws InterruptedException {
        long wait = waitNanos(waitTime);
        return Optional.ofNullable(acquireInterruptibly(fixedLease(leaseTime), wait)).map(this::handle);
    }

    @Override
    public CompletableFuture<LockHold> acquireAsync(long ownerId) {
        return start(ownerId, watchdogLease(), AcquireAttempt.forever(), this::handle);
    }

    @Override
    public CompletableFuture<LockHold> acquireAsync(Duration leaseTime, long ownerId) {
        return start(ownerId, fixedLease(leaseTime), AcquireAttempt.forever(), this::handle);
    }

    @Override
    public CompletableFuture<Optional<LockHold>> tryAcquireAsync(Duration waitTime, Duration leaseTime, long ownerId) {
        long wait = waitNanos(waitTime);
        return start(ownerId, fixedLease(leaseTime), wait, hold -> Optional.ofNullable(hold).map(this::handle));
    }

    @Override
    public CompletableFuture<Optional<LockHold>> tryAcquireAsync(Duration waitTime, long ownerId) {
        return start(ownerId, watchdogLease(), waitNanos(waitTime), hold -> Optional.ofNullable(hold).map(this::handle));
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
     * @return the running acquisition
     */
    public Acquisition acquisition(long owner, Duration leaseTime, long waitNanos) {
        LeaseTerm lease = leaseTime == null ? watchdogLease() : fixedLease(leaseTime);
        AcquireAttempt attempt = AcquireAttempt.start(protocol, holds, OwnerIds.requireApplicationOwner(owner), lease,
                Math.max(0, waitNanos));
        CompletableFuture<Optional<LockHold>> result = new CompletableFuture<>();
        attempt.result().whenComplete((hold, failure) -> {
            if (failure != null) {
                result.completeExceptionally(Failures.unwrap(failure));
            } else {
                result.complete(Optional.ofNullable(hold).map(this::handle));
            }
        });
        return new Acquisition(result, attempt::cancel);
    }

    /** @return what identifies this lock on its client: equal for every lock object of it */
    public Object identity() {
        return protocol.identity();
    }

    private LockHold handle(Hold hold) {
        return new HoldHandle(this, hold);
    }

    /** A handle's close: releases one level of its hold, on the caller's thread. */
    void close(Hold hold) {
        await(holds.close(hold));
    }

    // ---- machinery ---------------------------------------------------------------------------

    private <T> CompletableFuture<T> start(long owner, LeaseTerm lease, long waitNanos, Function<Hold, T> outcome) {
        return acquisitions.start(OwnerIds.requireApplicationOwner(owner), lease, waitNanos, outcome);
    }

    /** @return the hold, or null if the wait ran out */
    private Hold acquireInterruptibly(LeaseTerm lease, long waitNanos) throws InterruptedException {
        return acquisitions.acquireInterruptibly(currentOwner(), lease, waitNanos);
    }

    private Hold lockUninterruptibly(LeaseTerm lease) {
        AcquireAttempt attempt = AcquireAttempt.start(protocol, holds, currentOwner(), lease, AcquireAttempt.forever());
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return attempt.result().get();
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    throw rethrow(e);
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Waits for one Redis round trip, itself bounded by the command timeout; keeps interrupts. */
    private <T> T await(CompletableFuture<T> future) {
        return acquisitions.await(future);
    }

    private RuntimeException rethrow(ExecutionException e) {
        return acquisitions.rethrow(e);
    }

    private static boolean acquired(Hold hold) {
        return hold != null;
    }

    @SuppressWarnings("deprecation") // Thread.threadId() arrives in Java 19; getId() is the same number
    private static long currentOwner() {
        return Thread.currentThread().getId();
    }

    private LeaseTerm watchdogLease() {
        return LeaseTerm.watchdog(protocol.watchdogTimeout());
    }

    private static LeaseTerm fixedLease(Duration leaseTime) {
        return Acquisitions.fixedLease(leaseTime);
    }

    private static long waitNanos(Duration waitTime) {
        return Acquisitions.waitNanos(waitTime);
    }

    @Override
    public String toString() {
        return "DistributedLock{" + protocol.name() + '}';
    }
}
