package io.latchkey.internal.lock;

import io.latchkey.spi.AcquireProtocol;
import io.latchkey.spi.Hold;
import io.latchkey.spi.LeaseTerm;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * The one acquire loop ({@link AcquireAttempt}) over one kind's protocol, with the record of its
 * grants and releases ({@link LockHolds}), for every kind that has a protocol: {@link LockFacade}
 * for locks, and kinds whose grants are handles of their own (a semaphore's permits). Validates
 * the arguments every kind's facade shares. Thread-safe; holds no per-call state.
 */
public final class Acquisitions {

    private final AcquireProtocol protocol;
    private final LockHolds holds;

    /** @param protocol the kind's Redis side */
    public Acquisitions(AcquireProtocol protocol) {
        this.protocol = Objects.requireNonNull(protocol, "protocol");
        this.holds = new LockHolds(protocol);
    }

    /** @return the wait that never runs out */
    public static long forever() {
        return AcquireAttempt.forever();
    }

    LockHolds holds() {
        return holds;
    }

    /**
     * Starts one acquisition.
     *
     * @param owner the owner id
     * @param lease the lease to take
     * @param waitNanos the longest wait, or {@link #forever()}
     * @return the running acquisition; its grant is the hold, null if the wait ran out
     */
    public Acquisition<Hold> start(long owner, LeaseTerm lease, long waitNanos) {
        return AcquireAttempt.start(protocol, holds, owner, lease, waitNanos);
    }

    /**
     * Releases the level of one handle of {@code hold}.
     *
     * @param hold a hold this acquired
     * @return fails with {@link io.latchkey.LeaseLostException} if the lease was lost, with
     *     {@link IllegalMonitorStateException} if the hold is already over
     */
    public CompletableFuture<Void> close(Hold hold) {
        return holds.close(hold);
    }

    /**
     * Waits for one Redis round trip, itself bounded by the command timeout; keeps interrupts.
     *
     * @param future the round trip
     * @param <T> its result type
     * @return its result
     * @throws RuntimeException what it failed with, rethrown on the caller's thread
     */
    public <T> T await(CompletableFuture<T> future) {
        return CallerWaits.await(protocol.name(), future);
    }

    /**
     * Checks a fixed lease, as every kind's facade does.
     *
     * @param leaseTime a fixed lease as the caller gave it
     * @return the lease
     * @throws NullPointerException if null
     * @throws IllegalArgumentException naming {@code leaseTime} if not positive, or longer than {@link LeaseTerm#MAX}
     */
    public static LeaseTerm fixedLease(Duration leaseTime) {
        return LeaseTerm.fixed(checkLease(leaseTime));
    }

    /**
     * Checks a fixed lease, for a facade that passes it on as it is.
     *
     * @param leaseTime a fixed lease as the caller gave it
     * @return the same lease, checked
     * @throws NullPointerException if null
     * @throws IllegalArgumentException naming {@code leaseTime} if not positive, or longer than {@link LeaseTerm#MAX}
     */
    public static Duration checkLease(Duration leaseTime) {
        Objects.requireNonNull(leaseTime, "leaseTime");
        if (leaseTime.isNegative() || leaseTime.isZero()) {
            throw new IllegalArgumentException("leaseTime must be positive: " + leaseTime);
        }
        if (leaseTime.compareTo(LeaseTerm.MAX) > 0) {
            throw new IllegalArgumentException("leaseTime must be at most " + LeaseTerm.MAX + " (a year): " + leaseTime);
        }
        return leaseTime;
    }

    /**
     * @param waitTime a wait as the caller gave it
     * @return the wait in nanoseconds; {@link #forever()} for one too long to count
     * @throws NullPointerException if null
     * @throws IllegalArgumentException naming {@code waitTime} if negative
     */
    public static long waitNanos(Duration waitTime) {
        Objects.requireNonNull(waitTime, "waitTime");
        if (waitTime.isNegative()) {
            throw new IllegalArgumentException("waitTime must not be negative: " + waitTime);
        }
        try {
            return waitTime.toNanos();
        } catch (ArithmeticException tooLong) {
            return forever();
        }
    }
}
