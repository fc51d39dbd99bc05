package io.latchkey.internal.lock;

import io.latchkey.internal.time.Ticker;
import io.latchkey.internal.wakeup.Wakeups;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * The Redis side of one lock kind: what one try, one release and the queries cost. The waiting,
 * retrying, cancelling and blocking around them is {@link LockFacade}'s, the same for every kind.
 * Implementations are thread-safe and never block.
 */
public interface LockProtocol {

    /** @return the lock's name */
    String name();

    /**
     * One try, in one round trip where the kind allows.
     *
     * @param owner the owner id
     * @param lease the lease to take or reset
     * @return null once the owner holds the lock; otherwise the milliseconds after which a retry
     *     is worth making even without a wake-up (the holder's remaining lease), or a negative
     *     number if no such bound is known
     */
    CompletableFuture<Long> tryAcquire(long owner, Lease lease);

    /**
     * Releases one hold of the owner, and at the last one stops its renewal and wakes a waiter.
     *
     * @param owner the owner id
     * @return completes when released; fails with {@link IllegalMonitorStateException} if the
     *     owner held nothing, in which case nothing changed
     */
    CompletableFuture<Void> release(long owner);

    /**
     * Called when an attempt gives up (its wait ran out, it was interrupted or cancelled) without
     * holding the lock: drop whatever the tries left behind, such as a queue entry.
     *
     * @param owner the owner id
     * @return completes when nothing of the attempt is left
     */
    CompletableFuture<Void> abandon(long owner);

    /**
     * @param owner the owner id, for kinds that wake waiters by name
     * @return the source of wake-ups for one attempt, ready once it cannot miss a release
     */
    CompletableFuture<Wakeups> wakeups(long owner);

    /**
     * @param owner the owner id, for kinds that wake waiters by name
     * @return wake-ups ready at once, without a round trip, if others here already wait for this
     *     lock; else null, and {@link #wakeups} is used once a try has failed
     */
    default Wakeups wakeupsIfWaitedFor(long owner) {
        return null;
    }

    /** @return true if the lock existed and was deleted */
    CompletableFuture<Boolean> forceRelease();

    /** @return true if any owner holds the lock */
    CompletableFuture<Boolean> isLocked();

    /**
     * @param owner the owner id
     * @return the owner's hold count, 0 if it holds nothing
     */
    CompletableFuture<Integer> holdCount(long owner);

    /** @return the time until the lease runs out; zero when not locked */
    CompletableFuture<Duration> remainingLease();

    /** @return the client's watchdog lease */
    Duration watchdogTimeout();

    /** @return the clock that the acquire loop measures the caller's wait with: the client's ticker */
    default Ticker ticker() {
        return Ticker.system();
    }
}
