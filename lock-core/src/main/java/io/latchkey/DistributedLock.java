package io.latchkey;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

/**
 * A lock held in Redis, shared by every process that uses the same name and Redis.
 *
 * <p><b>Owners.</b> A hold belongs to an owner: for the blocking methods the calling thread, for
 * the async methods the calling thread's id unless an {@code ownerId} is given, so that a lock
 * taken on one thread may be released on another by passing the same id. Owners are scoped to the
 * {@link LockClient} that made the lock. Holds are reentrant: each acquire by the owner increments
 * the hold count, and as many unlocks release it.
 *
 * <p><b>Leases.</b> Every hold has a lease after which Redis drops it, so a crashed holder cannot
 * block others forever. Without an explicit lease the client's watchdog lease is used and renewed
 * every third of it while the hold lasts; an explicit lease is never renewed.
 *
 * <p><b>Holds.</b> {@link #acquire()} and its variants take the lock as {@link #lock()} and its
 * variants do, and return the hold as a {@link LockHold}: its fencing token, which a protected
 * resource can check to refuse a holder that paused past its lease, and its
 * {@link Lease#leaseLost()} notice. The client learns that a lease was lost when a renewal finds
 * the hold gone, when a fixed lease runs out, or when Redis stays unreachable past the lease; from
 * then on {@code unlock()}, {@link Lease#close()} and a re-entry of that owner throw
 * {@link LeaseLostException}, also for holds taken with {@code lock()}.
 *
 * <p><b>Waiting.</b> Waiters sleep until the holder's unlock message or the holder's lease runs
 * out; they do not poll.
 *
 * <p><b>Async results.</b> Futures complete on the client's I/O threads: move blocking work in
 * dependent stages to an executor of your own ({@code thenApplyAsync(f, executor)}). Cancelling
 * an acquire future abandons the attempt and releases anything it may already have taken.
 *
 * <p>Instances are thread-safe. Every method may throw {@link LockException} (or complete with it)
 * when Redis is unreachable ({@link LockConnectionException}), slower than the command timeout
 * ({@link LockTimeoutException}) or answers with an error ({@link LockRefusedException}).
 */
public interface DistributedLock extends Lock {

    /** {@return the lock's name, as given to the client} */
    String getName();

    /**
     * Acquires the lock with a watchdog lease, waiting as long as it takes. Not interruptible: an
     * interrupt during the wait is remembered and re-asserted on return.
     *
     * @throws LockException if Redis fails; the caller then holds nothing
     */
    @Override
    void lock();

    /**
     * Acquires the lock with a fixed lease that is never renewed.
     *
     * @param leaseTime how long the hold lasts unless released earlier; positive, not null
     * @throws IllegalArgumentException if {@code leaseTime} is zero or negative
     * @throws LockException if Redis fails; the caller then holds nothing
     */
    void lock(Duration leaseTime);

    /**
     * Acquires the lock with a watchdog lease unless interrupted.
     *
     * @throws InterruptedException if interrupted while waiting; the caller then holds nothing
     *     and has left no trace in Redis
     * @throws LockException if Redis fails
     */
    @Override
    void lockInterruptibly() throws InterruptedException;

    /**
     * Acquires the lock with a fixed lease unless interrupted.
     *
     * @param leaseTime how long the hold lasts unless released earlier; positive, not null
     * @throws InterruptedException if interrupted while waiting; the caller then holds nothing
     * @throws IllegalArgumentException if {@code leaseTime} is zero or negative
     * @throws LockException if Redis fails
     */
    void lockInterruptibly(Duration leaseTime) throws InterruptedException;

    /**
     * Acquires the lock with a watchdog lease if it is free now.
     *
     * @return true if acquired; false if another owner holds it
     * @throws LockException if Redis fails
     */
    @Override
    boolean tryLock();

    /**
     * Waits up to {@code waitTime} for the lock, with a watchdog lease.
     *
     * @param waitTime the longest wait; zero or positive, not null
     * @return true if acquired; false if the wait ran out (no later than {@code waitTime} plus
     *     one round trip)
     * @throws InterruptedException if interrupted while waiting; the caller then holds nothing
     * @throws IllegalArgumentException if {@code waitTime} is negative
     * @throws LockException if Redis fails
     */
    boolean tryLock(Duration waitTime) throws InterruptedException;

    /**
     * Waits up to {@code waitTime} for the lock, with a fixed lease.
     *
     * @param waitTime the longest wait; zero or positive, not null
     * @param leaseTime how long the hold lasts unless released earlier; positive, not null
     * @return true if acquired; false if the wait ran out
     * @throws InterruptedException if interrupted while waiting; the caller then holds nothing
     * @throws IllegalArgumentException if {@code waitTime} is negative or {@code leaseTime} is not positive
     * @throws LockException if Redis fails
     */
    boolean tryLock(Duration waitTime, Duration leaseTime) throws InterruptedException;

    /**
     * Releases one hold of the calling thread; the last one frees the lock and wakes a waiter.
     *
     * @throws LeaseLostException if the calling thread's lease was lost; the hold is then over,
     *     with all its re-entries
     * @throws IllegalMonitorStateException if the calling thread does not hold the lock; the lock
     *     is left untouched
     * @throws LockException if Redis fails
     */
    @Override
    void unlock();

    /**
     * Not supported: a condition would need a distributed wait set.
     *
     * @throws UnsupportedOperationException always
     */
    @Override
    default Condition newCondition() {
        throw new UnsupportedOperationException("DistributedLock does not support conditions");
    }

    /**
     * Deletes the lock whoever holds it and wakes a waiter. For operators and recovery only: the
     * evicted holder is not told.
     *
     * @return true if the lock existed
     */
    boolean forceUnlock();

    /** {@return true if any owner holds the lock} */
    boolean isLocked();

    /** {@return true if the calling thread holds the lock} */
    boolean isHeldByCurrentThread();

    /**
     * {@return true if that owner holds the lock}
     *
     * @param ownerId an owner id of this client, as passed to the async methods
     */
    boolean isHeldBy(long ownerId);

    /** {@return how many times the calling thread holds the lock; 0 if it does not} */
    int getHoldCount();

    /** {@return the time until the lock's lease runs out; {@link Duration#ZERO} when it is not locked} */
    Duration remainingLease();

    /**
     * Acquires the lock for the calling thread's id with a watchdog lease, waiting as long as it
     * takes.
     *
     * @return completes when the calling thread's id holds the lock, with a watchdog lease
     */
    CompletableFuture<Void> lockAsync();

    /**
     * Acquires the lock for {@code ownerId} with a watchdog lease, waiting as long as it takes.
     *
     * @param ownerId the owner to acquire for
     * @return completes when {@code ownerId} holds the lock, with a watchdog lease
     */
    CompletableFuture<Void> lockAsync(long ownerId);

    /**
     * Acquires the lock for the calling thread's id with a fixed lease that is never renewed,
     * waiting as long as it takes.
     *
     * @param leaseTime fixed lease; positive, not null
     * @return completes when the calling thread's id holds the lock
     * @throws IllegalArgumentException if {@code leaseTime} is not positive
     */
    CompletableFuture<Void> lockAsync(Duration leaseTime);

    /**
     * Acquires the lock for {@code ownerId} with a fixed lease that is never renewed, waiting as
     * long as it takes.
     *
     * @param leaseTime fixed lease; positive, not null
     * @param ownerId the owner to acquire for
     * @return completes when {@code ownerId} holds the lock
     * @throws IllegalArgumentException if {@code leaseTime} is not positive
     */
    CompletableFuture<Void> lockAsync(Duration leaseTime, long ownerId);

    /**
     * Acquires the lock for the calling thread's id with a watchdog lease if it is free now.
     *
     * @return true if the calling thread's id acquired the free lock, with a watchdog lease
     */
    CompletableFuture<Boolean> tryLockAsync();

    /**
     * Waits up to {@code waitTime} for the lock, for the calling thread's id, with a watchdog lease.
     *
     * @param waitTime the longest wait; zero or positive, not null
     * @return true if acquired within {@code waitTime}, with a watchdog lease
     * @throws IllegalArgumentException if {@code waitTime} is negative
     */
    CompletableFuture<Boolean> tryLockAsync(Duration waitTime);

    /**
     * Waits up to {@code waitTime} for the lock, for the calling thread's id, with a fixed lease.
     *
     * @param waitTime the longest wait; zero or positive, not null
     * @param leaseTime fixed lease; positive, not null
     * @return true if acquired within {@code waitTime}
     * @throws IllegalArgumentException if {@code waitTime} is negative or {@code leaseTime} is not positive
     */
    CompletableFuture<Boolean> tryLockAsync(Duration waitTime, Duration leaseTime);

    /**
     * Waits up to {@code waitTime} for the lock, for {@code ownerId}, with a fixed lease.
     *
     * @param waitTime the longest wait; zero or positive, not null
     * @param leaseTime fixed lease; positive, not null
     * @param ownerId the owner to acquire for
     * @return true if acquired within {@code waitTime}
     * @throws IllegalArgumentException if {@code waitTime} is negative or {@code leaseTime} is not positive
     */
    CompletableFuture<Boolean> tryLockAsync(Duration waitTime, Duration leaseTime, long ownerId);

    /**
     * Releases one hold of the calling thread's id; the last one frees the lock and wakes a waiter.
     *
     * @return completes when one hold of the calling thread's id is released; fails with
     *     {@link LeaseLostException} if its lease was lost, or with
     *     {@link IllegalMonitorStateException} if it held none
     */
    CompletableFuture<Void> unlockAsync();

    /**
     * Releases one hold of {@code ownerId}; the last one frees the lock and wakes a waiter.
     *
     * @param ownerId the owner whose hold to release
     * @return completes when one hold of {@code ownerId} is released; fails with
     *     {@link LeaseLostException} if its lease was lost, or with
     *     {@link IllegalMonitorStateException} if it held none
     */
    CompletableFuture<Void> unlockAsync(long ownerId);

    /**
     * Deletes the lock whoever holds it and wakes a waiter, as {@link #forceUnlock()} does.
     *
     * @return true if the lock existed and was deleted
     */
    CompletableFuture<Boolean> forceUnlockAsync();

    /** {@return true if any owner holds the lock} */
    CompletableFuture<Boolean> isLockedAsync();

    // ---- holds: the same acquisitions, returned as a handle with a fencing token --------------

    /**
     * Acquires the lock as {@link #lock()} does (watchdog lease, not interruptible) and returns the
     * hold.
     *
     * @return the hold, with its fencing token and its lease-loss notice
     * @throws LeaseLostException if the calling thread holds this lock and its lease was lost
     * @throws LockException if Redis fails; the caller then holds nothing
     */
    LockHold acquire();

    /**
     * Acquires the lock as {@link #lock(Duration)} does (fixed lease, not interruptible) and
     * returns the hold.
     *
     * @param leaseTime how long the hold lasts unless released earlier; positive, not null
     * @return the hold; its {@link Lease#leaseLost()} completes when the lease runs out unreleased
     * @throws IllegalArgumentException if {@code leaseTime} is zero or negative
     * @throws LeaseLostException if the calling thread holds this lock and its lease was lost
     * @throws LockException if Redis fails; the caller then holds nothing
     */
    LockHold acquire(Duration leaseTime);

    /**
     * Acquires the lock as {@link #lockInterruptibly()} does and returns the hold.
     *
     * @return the hold
     * @throws InterruptedException if interrupted while waiting; the caller then holds nothing
     * @throws LeaseLostException if the calling thread holds this lock and its lease was lost
     * @throws LockException if Redis fails
     */
    LockHold acquireInterruptibly() throws InterruptedException;

    /**
     * Acquires the lock as {@link #tryLock(Duration)} does and returns the hold.
     *
     * @param waitTime the longest wait; zero for one try; not negative, not null
     * @return the hold, or empty if another owner held the lock for the whole wait
     * @throws InterruptedException if interrupted while waiting; the caller then holds nothing
     * @throws IllegalArgumentException if {@code waitTime} is negative
     * @throws LeaseLostException if the calling thread holds this lock and its lease was lost
     * @throws LockException if Redis fails
     */
    Optional<LockHold> tryAcquire(Duration waitTime) throws InterruptedException;

    /**
     * Acquires the lock as {@link #tryLock(Duration, Duration)} does and returns the hold.
     *
     * @param waitTime the longest wait; zero for one try; not negative, not null
     * @param leaseTime how long the hold lasts unless released earlier; positive, not null
     * @return the hold, or empty if another owner held the lock for the whole wait
     * @throws InterruptedException if interrupted while waiting; the caller then holds nothing
     * @throws IllegalArgumentException if {@code waitTime} is negative or {@code leaseTime} is not positive
     * @throws LeaseLostException if the calling thread holds this lock and its lease was lost
     * @throws LockException if Redis fails
     */
    Optional<LockHold> tryAcquire(Duration waitTime, Duration leaseTime) throws InterruptedException;

    /**
     * Acquires the lock for {@code ownerId} as {@link #lockAsync(long)} does and returns the hold.
     *
     * @param ownerId the owner
     * @return the hold; fails with {@link LeaseLostException} if the owner holds this lock and its
     *     lease was lost, or with {@link LockException} if Redis fails
     */
    CompletableFuture<LockHold> acquireAsync(long ownerId);

    /**
     * Acquires the lock for {@code ownerId} with a fixed lease as {@link #lockAsync(Duration, long)}
     * does and returns the hold.
     *
     * @param leaseTime how long the hold lasts unless released earlier; positive, not null
     * @param ownerId the owner
     * @return the hold; fails as {@link #acquireAsync(long)} does
     * @throws IllegalArgumentException if {@code leaseTime} is not positive
     */
    CompletableFuture<LockHold> acquireAsync(Duration leaseTime, long ownerId);

    /**
     * Acquires the lock for {@code ownerId} as {@link #tryLockAsync(Duration, Duration, long)}
     * does and returns the hold.
     *
     * @param waitTime the longest wait; zero for one try; not negative, not null
     * @param leaseTime how long the hold lasts unless released earlier; positive, not null
     * @param ownerId the owner
     * @return the hold, or empty if another owner held the lock for the whole wait; fails as
     *     {@link #acquireAsync(long)} does
     * @throws IllegalArgumentException if {@code waitTime} is negative or {@code leaseTime} is not positive
     */
    CompletableFuture<Optional<LockHold>> tryAcquireAsync(Duration waitTime, Duration leaseTime, long ownerId);

    /**
     * Acquires the lock for {@code ownerId} with a watchdog lease, waiting at most
     * {@code waitTime} as {@link #tryAcquire(Duration)} does for the calling thread, and returns
     * the hold.
     *
     * <p>The wait belongs to the acquisition: when it runs out, the future completes empty and
     * nothing of the attempt is left. Bound an acquisition's wait with this, not by cancelling or
     * timing out a stage derived from {@link #acquireAsync(long)} ({@code thenApply},
     * {@code orTimeout}): that ends the stage, while the acquisition goes on and may take the lock
     * later for an owner that no one will release.
     *
     * @param waitTime the longest wait; zero for one try; not negative, not null
     * @param ownerId the owner
     * @return the hold, or empty if another owner held the lock for the whole wait; fails as
     *     {@link #acquireAsync(long)} does
     * @throws IllegalArgumentException if {@code waitTime} is negative
     */
    CompletableFuture<Optional<LockHold>> tryAcquireAsync(Duration waitTime, long ownerId);
}
