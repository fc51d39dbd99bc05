package io.latchkey.spi;

/**
 * What the watchdog renews and tells how each renewal went: the client's record of a hold
 * ({@code Hold}), or a lock kind's part of one (a cohort's hold, a RedLock master's). Its methods
 * run on a Redis thread and must not block.
 */
public interface RenewedLease {

    /**
     * A renewal found the hold and reset its lease.
     *
     * @param sentAtNanos the client's ticker just before the renewal was sent
     * @param untilNanos {@code sentAtNanos} plus the lease it set: Redis keeps the hold at least until then
     */
    void renewed(long sentAtNanos, long untilNanos);

    /** A renewal found the hold gone: expired, force-unlocked, or lost in a failover. It is no longer renewed. */
    void foundGone();

    /** A renewal that Redis did not answer or refused: the hold may be gone; does nothing unless overridden. */
    default void renewalFailed() {
    }
}
