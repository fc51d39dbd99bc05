package io.latchkey.spi;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/** What a lock answers besides acquiring and releasing: each one round trip, never blocking. */
public interface LockQueries {

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
}
