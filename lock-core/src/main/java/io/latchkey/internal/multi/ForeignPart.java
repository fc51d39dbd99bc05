package io.latchkey.internal.multi;

import io.latchkey.DistributedLock;
import io.latchkey.LockHold;
import io.latchkey.internal.lock.Acquisition;
import io.latchkey.internal.redis.Failures;
import io.netty.util.Timeout;
import io.netty.util.Timer;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * A part that is not one of Latchkey's own locks (a decorator of the application's, say): driven
 * through the public async methods of {@link DistributedLock} only.
 *
 * <p>A watchdog try with a bounded wait runs {@link DistributedLock#acquireAsync(long)} and
 * cancels that very future when the wait runs out (never a stage derived from it, whose cancel
 * would not reach the part), which the interface promises abandons the attempt and gives back
 * what it took. Not {@code tryAcquireAsync(Duration, long)}: a lock of the application's compiled
 * before that method was added does not have it. So that a try with no wait left still gets its
 * answer, the cancel comes no sooner than a grace period (the multi-lock client's command timeout:
 * one round trip) after the start. Cancelling cannot say when the part's clean-up is done: an
 * interrupted multi-lock call returns once it asked for it.
 */
final class ForeignPart implements Part {

    private final DistributedLock lock;
    private final Timer timer;
    private final long graceNanos;

    /**
     * @param lock the application's lock
     * @param timer the multi-lock client's timer, for the end of a watchdog try's wait
     * @param graceNanos the least time a watchdog try is given before it is cancelled
     */
    ForeignPart(DistributedLock lock, Timer timer, long graceNanos) {
        this.lock = lock;
        this.timer = timer;
        this.graceNanos = graceNanos;
    }

    @Override
    public DistributedLock lock() {
        return lock;
    }

    @Override
    public Object identity() {
        return lock; // nothing better is known: only the same object is the same lock
    }

    @Override
    public Optional<String> place() {
        return Optional.empty();
    }

    @Override
    public Acquisition<LockHold> start(long owner, @Nullable Duration leaseTime, long waitNanos) {
        boolean forever = waitNanos == Long.MAX_VALUE;
        AtomicBoolean waitRanOut = new AtomicBoolean();
        // The part's own future, not a stage derived from it: only its cancel reaches the part.
        CompletableFuture<?> raw;
        CompletableFuture<Optional<LockHold>> call;
        Timeout deadline = null;
        if (leaseTime != null && !forever) {
            CompletableFuture<Optional<LockHold>> tried = lock.tryAcquireAsync(Duration.ofNanos(Math.max(0, waitNanos)), leaseTime, owner);
            raw = tried;
            call = tried;
        } else {
            CompletableFuture<LockHold> acquired = leaseTime == null ? lock.acquireAsync(owner) : lock.acquireAsync(leaseTime, owner);
            raw = acquired;
            call = acquired.thenApply(Optional::of);
            if (!forever) {
                deadline = timer.newTimeout(ignored -> {
                    waitRanOut.set(true);
                    acquired.cancel(true);
                }, Math.max(graceNanos, waitNanos), TimeUnit.NANOSECONDS);
            }
        }
        Timeout end = deadline;
        CompletableFuture<LockHold> result = new CompletableFuture<>();
        call.whenComplete((hold, failure) -> {
            if (end != null) {
                end.cancel();
            }
            Throwable cause = failure == null ? null : Failures.unwrap(failure);
            if (cause == null) {
                result.complete(hold.orElse(null));
            } else if (cause instanceof CancellationException && waitRanOut.get()) {
                result.complete(null);
            } else {
                result.completeExceptionally(cause);
            }
        });
        AtomicBoolean handedBack = new AtomicBoolean();
        return Acquisition.of(result, () -> {
            if (raw.cancel(true) || !handedBack.compareAndSet(false, true)) {
                return CompletableFuture.completedFuture(null);
            }
            Object granted = raw.isCompletedExceptionally() ? null : raw.join(); // done: join does not wait
            boolean held = granted instanceof LockHold || (granted instanceof Optional<?> tried && tried.isPresent());
            return held ? lock.unlockAsync(owner).exceptionally(ignored -> null) : CompletableFuture.completedFuture(null);
        });
    }

    @Override
    public String toString() {
        return lock.toString();
    }
}
