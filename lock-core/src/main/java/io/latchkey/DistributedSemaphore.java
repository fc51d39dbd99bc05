package io.latchkey;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * A counting semaphore over one name whose permits are leases: at most {@link #permits()} valid
 * permits at once across every client, and a permit whose holder crashed comes back when its
 * lease runs out (watchdog-renewed while its client lives, or fixed). Unlike
 * {@link java.util.concurrent.Semaphore}, a permit is not a count that anyone may release: it is
 * a {@link SemaphorePermit} that only its {@link SemaphorePermit#close()} returns.
 *
 * <p><b>The limit.</b> The limit in force is the one under which permits are currently out. An
 * acquisition with a different {@code permits} while permits are out under another limit fails
 * with {@link IllegalStateException} naming both; when no permit is out, the acquiring client's
 * limit takes over.
 *
 * <p>Waiting is as for {@link DistributedLock}: woken by a message when a permit comes back,
 * bounded by the earliest lease so that a permit that runs out is noticed without one. Redis
 * failures are {@link LockException}s; {@code Optional.empty()} means only "no permit in time".
 *
 * <p>Thread-safe; a cheap view.
 */
public interface DistributedSemaphore {

    /** {@return the semaphore's name} */
    String getName();

    /** {@return the limit this semaphore object was created with} */
    int permits();

    /**
     * From Redis, in one round trip.
     *
     * @return the limit in force minus the valid permits (this object's {@link #permits()} when
     *     none is out); permits whose lease ran out are not counted
     * @throws LockException if Redis fails
     */
    int availablePermits();

    /**
     * Waits for a permit with the watchdog lease, renewed while held.
     *
     * @return the permit
     * @throws InterruptedException if interrupted while waiting; no permit is then held
     * @throws IllegalStateException if permits are out under another limit
     * @throws LockException if Redis fails
     */
    SemaphorePermit acquire() throws InterruptedException;

    /**
     * Waits at most {@code waitTime} for a permit with the watchdog lease.
     *
     * @param waitTime how long to wait; zero for one try; not null or negative
     * @return the permit, or empty if none came free in time
     * @throws InterruptedException if interrupted while waiting; no permit is then held
     * @throws IllegalArgumentException if {@code waitTime} is negative
     * @throws IllegalStateException if permits are out under another limit
     * @throws LockException if Redis fails
     */
    Optional<SemaphorePermit> tryAcquire(Duration waitTime) throws InterruptedException;

    /**
     * Waits at most {@code waitTime} for a permit with a fixed lease, never renewed.
     *
     * @param waitTime how long to wait; zero for one try; not null or negative
     * @param leaseTime the permit's lease; not null, positive
     * @return the permit, or empty if none came free in time
     * @throws InterruptedException if interrupted while waiting; no permit is then held
     * @throws IllegalArgumentException if {@code waitTime} is negative or {@code leaseTime} is
     *     not positive
     * @throws IllegalStateException if permits are out under another limit
     * @throws LockException if Redis fails
     */
    Optional<SemaphorePermit> tryAcquire(Duration waitTime, Duration leaseTime) throws InterruptedException;

    /**
     * As {@link #acquire()}, without blocking. Cancelling the future ends the wait and leaves no
     * permit behind.
     *
     * @return completes with the permit; fails with {@link IllegalStateException} or
     *     {@link LockException} as {@link #acquire()} throws them
     */
    CompletableFuture<SemaphorePermit> acquireAsync();

    /**
     * As {@link #tryAcquire(Duration, Duration)}, without blocking.
     *
     * @param waitTime how long to wait; zero for one try; not null or negative
     * @param leaseTime the permit's lease; not null, positive
     * @return completes with the permit, or empty if none came free in time
     * @throws IllegalArgumentException if {@code waitTime} is negative or {@code leaseTime} is
     *     not positive
     */
    CompletableFuture<Optional<SemaphorePermit>> tryAcquireAsync(Duration waitTime, Duration leaseTime);
}
