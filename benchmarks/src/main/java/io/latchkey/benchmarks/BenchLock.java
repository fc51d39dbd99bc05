package io.latchkey.benchmarks;

import java.util.concurrent.CompletableFuture;

/**
 * The calls the benchmarks make, over Latchkey's {@link io.latchkey.DistributedLock} or
 * Redisson's {@code RLock}, so that one benchmark body measures both. The blocking calls use the
 * calling thread as owner, the async ones the owner given, in both libraries. Implementations
 * are thin and thread-safe, as the locks they wrap.
 */
public interface BenchLock {

    /** Blocks until acquired; watchdog lease. */
    void lock();

    /** @return whether acquired at once; watchdog lease */
    boolean tryLock();

    /** Releases one hold of the calling thread. */
    void unlock();

    /**
     * @param owner the owner id (Redisson: the "thread id")
     * @return completes when acquired, with a watchdog lease
     */
    CompletableFuture<Void> lockAsync(long owner);

    /**
     * @param owner the owner id given to {@link #lockAsync(long)}
     * @return completes when released
     */
    CompletableFuture<Void> unlockAsync(long owner);

    /** @return completes with whether anyone holds the lock */
    CompletableFuture<Boolean> isLockedAsync();
}
