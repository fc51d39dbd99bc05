package io.latchkey.internal.lock;

import io.latchkey.internal.hold.Hold;
import io.latchkey.internal.redis.Failures;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.Function;

/**
 * The one acquire loop ({@link AcquireAttempt}) as a facade starts it, for every kind's facade:
 * {@link LockFacade} for locks, and kinds whose grants are handles of their own (a semaphore's
 * permits). Gives the async calls their cancel semantics and the blocking calls their interrupt
 * semantics, validates the arguments they share, and records grants and releases through
 * {@link LockHolds}. Thread-safe; holds no per-call state.
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
     * Runs an attempt behind a future of the caller's own, so that cancelling it (or completing
     * it from outside) abandons the attempt and gives back a hold it may have won meanwhile.
     *
     * @param owner the owner id
     * @param lease the lease to take
     * @param waitNanos the longest wait, or {@link #forever()}
     * @param outcome what the caller gets from the hold, or from null if the wait ran out
     * @param <T> the caller's result type
     * @return the caller's future
     */
    public <T> CompletableFuture<T> start(long owner, LeaseTerm lease, long waitNanos, Function<Hold, T> outcome) {
        AcquireAttempt attempt = AcquireAttempt.start(protocol, holds, owner, lease, waitNanos);
        CompletableFuture<T> caller = new CompletableFuture<>();
        attempt.result().whenComplete((hold, failure) -> {
            if (failure != null) {
                caller.completeExceptionally(Failures.unwrap(failure));
            } else if (!caller.complete(outcome.apply(hold)) && hold != null) {
                // The caller's future was completed from outside (orTimeout, complete) just as the
                // grant arrived: the caller will never know it holds the lock, so give it back.
                attempt.cancel();
            }
        });
        caller.whenComplete((value, failure) -> {
            if (!attempt.result().isDone() || caller.isCancelled()) {
                attempt.cancel();
            }
        });
        return caller;
    }

    /**
     * Waits on the calling thread; an interrupt gives the attempt up, and returns only once
     * nothing of it is left (a grant that came meanwhile is released), then throws.
     *
     * @param owner the owner id
     * @param lease the lease to take
     * @param waitNanos the longest wait, or {@link #forever()}
     * @return the hold, or null if the wait ran out
     * @throws InterruptedException if interrupted while waiting; nothing is then held
     */
    public Hold acquireInterruptibly(long owner, LeaseTerm lease, long waitNanos) throws InterruptedException {
        AcquireAttempt attempt = AcquireAttempt.start(protocol, holds, owner, lease, waitNanos);
        try {
            return attempt.result().get();
        } catch (InterruptedException e) {
            CallerWaits.awaitUninterruptibly(attempt.cancel());
            throw e;
        } catch (ExecutionException e) {
            throw rethrow(e);
        }
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
     * Rethrows on the caller's thread (see {@link CallerWaits#rethrow}).
     *
     * @param e how a future failed
     * @return the exception to throw
     */
    public RuntimeException rethrow(ExecutionException e) {
        return CallerWaits.rethrow(protocol.name(), e);
    }

    /**
     * @param leaseTime a fixed lease as the caller gave it
     * @return the lease
     * @throws NullPointerException if null
     * @throws IllegalArgumentException naming {@code leaseTime} if not positive, or longer than {@link LeaseTerm#MAX}
     */
    public static LeaseTerm fixedLease(Duration leaseTime) {
        Objects.requireNonNull(leaseTime, "leaseTime");
        if (leaseTime.isNegative() || leaseTime.isZero()) {
            throw new IllegalArgumentException("leaseTime must be positive: " + leaseTime);
        }
        if (leaseTime.compareTo(LeaseTerm.MAX) > 0) {
            throw new IllegalArgumentException("leaseTime must be at most " + LeaseTerm.MAX + " (a year): " + leaseTime);
        }
        return LeaseTerm.fixed(leaseTime);
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
