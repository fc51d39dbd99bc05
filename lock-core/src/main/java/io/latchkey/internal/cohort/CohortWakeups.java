package io.latchkey.internal.cohort;

import io.latchkey.spi.Wakeups;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * One attempt's wake-ups on a cohort lock: the lock's unlock messages from Redis, and the
 * cohort's local hand-offs, which send no message. While open, the attempt counts as a local
 * waiter, which is what lets a release pass the hold on instead of releasing it in Redis.
 */
final class CohortWakeups implements Wakeups {

    private final Cohort cohort;
    private final Wakeups redis;
    private final long owner;
    private volatile @Nullable CompletableFuture<Void> current;
    /** True if the last wait ended on a local hand-off. */
    private volatile boolean locallySignalled;
    private boolean closed;

    /** @param cohort a cohort that the owner joined as a waiter ({@link Cohort#waiterJoined}) */
    CohortWakeups(Cohort cohort, Wakeups redis, long owner) {
        this.cohort = cohort;
        this.redis = redis;
        this.owner = owner;
    }

    @Override
    public long sequence() {
        // Both only grow, so their sum changes exactly when either does.
        return cohort.queue().sequence() + redis.sequence();
    }

    @Override
    public CompletableFuture<Void> await(long seenSequence, long timeoutNanos) {
        long local = cohort.queue().sequence();
        long remote = redis.sequence();
        locallySignalled = false;
        if (local + remote != seenSequence) {
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<Void> done = new CompletableFuture<>();
        current = done;
        CompletableFuture<Void> localWait = cohort.queue().park(local);
        CompletableFuture<Void> remoteWait = redis.await(remote, timeoutNanos);
        localWait.whenComplete((ok, failure) -> {
            if (done.complete(null)) {
                locallySignalled = true;
            } else {
                // The wait had ended otherwise: the hand-off is for another waiter.
                cohort.queue().signalOne();
            }
        });
        remoteWait.whenComplete((ok, failure) -> {
            if (failure != null) {
                done.completeExceptionally(failure);
            } else {
                done.complete(null);
            }
        });
        done.whenComplete((ok, failure) -> {
            cohort.queue().unpark(localWait);
            // This wait's own, not redis.interrupt(): that ends the latest wait, and the caller's
            // completion, which runs first, may have parked a new one already. This one would
            // then stay parked, and swallow the next unlock message as if it were a waiter.
            remoteWait.complete(null);
        });
        return done;
    }

    @Override
    public void interrupt() {
        CompletableFuture<Void> wait = current;
        if (wait != null) {
            wait.complete(null);
        }
        redis.interrupt();
    }

    @Override
    public void handOn() {
        redis.handOn();
        if (locallySignalled) {
            locallySignalled = false;
            cohort.queue().signalOne();
        }
    }

    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            interrupt();
            redis.close();
            cohort.waiterLeft(owner);
        }
    }
}
