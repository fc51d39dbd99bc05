package io.latchkey.benchmarks;

/**
 * One library connected to the benchmark's Redis: a single server for the plain and fair locks,
 * three independent masters for RedLock (connected on first use). Thread-safe.
 */
public interface LockBackend extends AutoCloseable {

    /**
     * @param name the lock's name
     * @return the reentrant, non-fair lock
     */
    BenchLock plain(String name);

    /**
     * @param name the lock's name
     * @return the fair lock
     * @throws IllegalStateException if the library lacks it (Latchkey without lock-fair)
     */
    BenchLock fair(String name);

    /**
     * @param name the lock's name
     * @return the RedLock over three independent masters
     * @throws IllegalStateException if the library lacks it (Latchkey without lock-redlock)
     */
    BenchLock red(String name);

    /**
     * @param name the semaphore's name
     * @param permits how many permits may be out at once
     * @return a semaphore whose permits are leases: Latchkey's, or Redisson's
     *     {@code RPermitExpirableSemaphore}
     */
    BenchSemaphore semaphore(String name, int permits);

    /**
     * @param name the lock's name
     * @return the read lock and the write lock of one read-write lock
     */
    ReadWrite readWrite(String name);

    /** Closes every connection this backend opened. */
    @Override
    void close();

    /**
     * The two sides of one read-write lock.
     *
     * @param read the shared lock
     * @param write the exclusive lock
     */
    record ReadWrite(BenchLock read, BenchLock write) {
    }
}
