package io.latchkey.benchmarks;

/**
 * The calls the semaphore benchmark makes, over Latchkey's {@link io.latchkey.DistributedSemaphore}
 * or Redisson's {@code RPermitExpirableSemaphore}. Thread-safe, as the semaphores they wrap.
 */
public interface BenchSemaphore {

    /**
     * @return the permit (Latchkey's handle, Redisson's permit id), once one is free
     * @throws InterruptedException if interrupted while waiting
     */
    Object acquire() throws InterruptedException;

    /** @param permit what {@link #acquire()} returned */
    void release(Object permit);
}
