package io.latchkey.internal.lock;

import io.latchkey.DistributedLock;
import io.latchkey.LockHold;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The one facade of {@link DistributedLock}'s acquire, async, hold and unlock methods, over a
 * small seam that each lock kind serves: start an acquisition for an owner with a lease and a
 * wait, which gives its result and its cancel ({@link #start}); release one level of an owner's
 * hold ({@link #release}). It validates the arguments, picks the owner (the calling thread unless
 * one is given) and the lease (the kind's watchdog lease unless a fixed one is given), and gives
 * the async calls their cancel semantics and the blocking calls their interrupt semantics
 * ({@link Acquisition}). {@link LockFacade} serves the seam by the one acquire loop over a lock
 * kind's protocol; the multi-lock by its parts' loops, one after another. Thread-safe if the
 * seam is; holds no per-call state.
 *
 * @param <H> what a grant of the kind gives, before it is handed out as a {@link LockHold}
 */
public abstract class AbstractDistributedLock<H> implements DistributedLock {

    private static final long FOREVER = Long.MAX_VALUE;

    /** For subclasses. */
    protected AbstractDistributedLock() {
    }

    /**
     * Starts one acquisition.
     *
     * @param owner the owner: the calling thread's id, or as the application gave it, which the
     *     kind may refuse
     * @param leaseTime a fixed lease, already validated; null for the kind's watchdog lease
     * @param waitNanos the longest wait, at least 0; {@link Long#MAX_VALUE} for as long as it takes
     * @return the running acquisition
     * @throws IllegalArgumentException if the kind refuses the owner
     */
    protected abstract Acquisition<H> start(long owner, @Nullable Duration leaseTime, long waitNanos);

    /**
     * Hands a grant out.
     *
     * @param grant a grant of this lock
     * @return the caller's handle on it
     */
    protected abstract LockHold handle(H grant);

    /**
     * Releases one level of the owner's hold.
     *
     * @param owner the owner: the calling thread's id, or as the application gave it, which the
     *     kind may refuse
     * @return completes when released; fails with {@link IllegalMonitorStateException} if the
     *     owner held nothing
     */
    protected abstract CompletableFuture<Void> release(long owner);

    // ---- blocking ----------------------------------------------------------------------------

    @Override
    public void lock() {
        acquireUninterruptibly(null);
    }

    @Override
    public void lock(Duration leaseTime) {
        acquireUninterruptibly(fixedLease(leaseTime));
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        acquireInterruptibly(null, FOREVER);
    }

    @Override
    public void lockInterruptibly(Duration leaseTime) throws InterruptedException {
        acquireInterruptibly(fixedLease(leaseTime), FOREVER);
    }

    @Override
    public boolean tryLock() {
        return await(async(currentOwner(), null, 0, Objects::nonNull));
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        Objects.requireNonNull(unit, "unit");
        // Lock's contract: "if the time is less than or equal to zero, the method will not wait
        // at all", so a negative time is one try, not an error (only the Duration overloads,
        // which are ours, reject it). toNanos saturates, so Long.MAX_VALUE of any unit means
        // "as long as it takes".
        return acquireInterruptibly(null, Math.max(0, unit.toNanos(time))) != null;
    }

    @Override
    public boolean tryLock(Duration waitTime) throws InterruptedException {
        return acquireInterruptibly(null, waitNanos(waitTime)) != null;
    }

    @Override
    public boolean tryLock(Duration waitTime, Duration leaseTime) throws InterruptedException {
        long wait = waitNanos(waitTime);
        return acquireInterruptibly(fixedLease(leaseTime), wait) != null;
    }

    @Override
    public void unlock() {
        await(release(currentOwner()));
    }

    @Override
    public boolean forceUnlock() {
        return await(forceUnlockAsync());
    }

    @Override
    public boolean isLocked() {
        return await(isLockedAsync());
    }

    // ---- async -------------------------------------------------------------------------------

    @Override
    public CompletableFuture<Void> lockAsync() {
        return lockAsync(currentOwner());
    }

    @Override
    public CompletableFuture<Void> lockAsync(long ownerId) {
        return async(ownerId, null, FOREVER, grant -> null);
    }

    @Override
    public CompletableFuture<Void> lockAsync(Duration leaseTime) {
        return lockAsync(leaseTime, currentOwner());
    }

    @Override
    public CompletableFuture<Void> lockAsync(Duration leaseTime, long ownerId) {
        return async(ownerId, fixedLease(leaseTime), FOREVER, grant -> null);
    }

    @Override
    public CompletableFuture<Boolean> tryLockAsync() {
        return tryLockAsync(Duration.ZERO);
    }

    @Override
    public CompletableFuture<Boolean> tryLockAsync(Duration waitTime) {
        return async(currentOwner(), null, waitNanos(waitTime), Objects::nonNull);
    }

    @Override
    public CompletableFuture<Boolean> tryLockAsync(Duration waitTime, Duration leaseTime) {
        return tryLockAsync(waitTime, leaseTime, currentOwner());
    }

    @Override
    public CompletableFuture<Boolean> tryLockAsync(Duration waitTime, Duration leaseTime, long ownerId) {
        long wait = waitNanos(waitTime);
        return async(ownerId, fixedLease(leaseTime), wait, Objects::nonNull);
    }

    @Override
    public CompletableFuture<Void> unlockAsync() {
        return unlockAsync(currentOwner());
    }

    @Override
    public CompletableFuture<Void> unlockAsync(long ownerId) {
        return release(ownerId);
    }

    // ---- holds -------------------------------------------------------------------------------

    @Override
    public LockHold acquire() {
        return handle(acquireUninterruptibly(null));
    }

    @Override
    public LockHold acquire(Duration leaseTime) {
        return handle(acquireUninterruptibly(fixedLease(leaseTime)));
    }

    @Override
    public LockHold acquireInterruptibly() throws InterruptedException {
        return handle(acquireInterruptibly(null, FOREVER));
    }

    @Override
    public Optional<LockHold> tryAcquire(Duration waitTime) throws InterruptedException {
        return Optional.ofNullable(acquireInterruptibly(null, waitNanos(waitTime))).map(this::handle);
    }

    @Override
    public Optional<LockHold> tryAcquire(Duration waitTime, Duration leaseTime) throws InterruptedException {
        long wait = waitNanos(waitTime);
        return Optional.ofNullable(acquireInterruptibly(fixedLease(leaseTime), wait)).map(this::handle);
    }

    @Override
    public CompletableFuture<LockHold> acquireAsync(long ownerId) {
        return async(ownerId, null, FOREVER, this::handle);
    }

    @Override
    public CompletableFuture<LockHold> acquireAsync(Duration leaseTime, long ownerId) {
        return async(ownerId, fixedLease(leaseTime), FOREVER, this::handle);
    }

    @Override
    public CompletableFuture<Optional<LockHold>> tryAcquireAsync(Duration waitTime, Duration leaseTime, long ownerId) {
        long wait = waitNanos(waitTime);
        return async(ownerId, fixedLease(leaseTime), wait, grant -> Optional.ofNullable(grant).map(this::handle));
    }

    @Override
    public CompletableFuture<Optional<LockHold>> tryAcquireAsync(Duration waitTime, long ownerId) {
        return async(ownerId, null, waitNanos(waitTime), grant -> Optional.ofNullable(grant).map(this::handle));
    }

    // ---- machinery ---------------------------------------------------------------------------

    /**
     * Waits for a call bounded otherwise (a round trip by the command timeout); keeps interrupts.
     *
     * @param future the call
     * @param <T> its result type
     * @return its result
     * @throws RuntimeException what it failed with, rethrown on the caller's thread
     */
    protected final <T> T await(CompletableFuture<T> future) {
        return CallerWaits.await(getName(), future);
    }

    /** @return the owner of a blocking call, and of an async call that names none */
    @SuppressWarnings("deprecation") // Thread.threadId() arrives in Java 19; getId() is the same number
    protected static long currentOwner() {
        return Thread.currentThread().getId();
    }

    private <T> CompletableFuture<T> async(long owner, @Nullable Duration leaseTime, long waitNanos, Function<? super H, T> outcome) {
        return start(owner, leaseTime, waitNanos).forCaller(outcome);
    }

    /** @return the grant, or null if the wait ran out */
    private H acquireInterruptibly(@Nullable Duration leaseTime, long waitNanos) throws InterruptedException {
        return start(currentOwner(), leaseTime, waitNanos).awaitInterruptibly(getName());
    }

    /** {@code Lock.lock()}: waits as long as it takes, and re-asserts an interrupt on return. */
    private H acquireUninterruptibly(@Nullable Duration leaseTime) {
        return await(start(currentOwner(), leaseTime, FOREVER).result());
    }

    private static Duration fixedLease(Duration leaseTime) {
        return Acquisitions.checkLease(leaseTime);
    }

    private static long waitNanos(Duration waitTime) {
        return Acquisitions.waitNanos(waitTime);
    }
}
