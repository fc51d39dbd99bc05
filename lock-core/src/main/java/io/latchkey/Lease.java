package io.latchkey;

import java.util.concurrent.CompletableFuture;

/**
 * Something held for a lease: a hold of a lock ({@link LockHold}), and any other leased grant.
 *
 * <p>A lease ends in one of two ways. The holder releases it ({@link #close()}, or
 * {@code unlock()} for a lock), or the client learns that it is gone while still held: a renewal
 * found it gone from Redis (it ran out, someone called {@code forceUnlock}, a failover dropped
 * it), a fixed lease ran out, or Redis could not be reached for longer than the lease had left as
 * last confirmed by Redis, so it must be taken as run out. The second way is a <em>lost</em>
 * lease: from that moment {@link #isValid()} is false and {@link #leaseLost()} is complete, and
 * the holder must stop relying on it. The client learns of a loss within one renewal period plus
 * the command timeout of the hold disappearing from Redis (watchdog leases), at the end of a fixed
 * lease, or, while Redis is unreachable, when the lease as last confirmed runs out (timed from
 * when that request was sent, with the client's monotonic clock).
 *
 * <p>A lost lease only tells the holder afterwards; it cannot stop a paused holder from acting on
 * a lease that ran out meanwhile. Resources that must never see such a holder check
 * {@link LockHold#fencingToken()}.
 *
 * <p>Thread-safe.
 */
public interface Lease extends AutoCloseable {

    /**
     * {@return true while held: false once this handle was closed, once the hold was released by
     * other means, or once the lease is known lost}
     */
    boolean isValid();

    /**
     * The notice of a lost lease. It completes normally, with {@code null}, at the moment the
     * client learns the lease is gone, on one of the client's threads (run blocking work of a
     * dependent stage on an executor of your own); it never completes after a normal release.
     * Every handle of one hold returns the same future; completing or cancelling it from outside
     * changes nothing about the hold.
     *
     * @return completes when the lease is found lost
     */
    CompletableFuture<Void> leaseLost();

    /**
     * Releases what this handle holds. A second call of the same handle does nothing.
     *
     * @throws LeaseLostException if the lease had been lost; the hold is then over, and the
     *     owner's next acquisition is a new hold
     * @throws IllegalMonitorStateException if the hold was already released by other means
     *     ({@code unlock()} as often as it was taken)
     * @throws LockException if Redis fails; the release is then completed by the client as soon
     *     as Redis answers, if the exception says so
     */
    @Override
    void close();
}
