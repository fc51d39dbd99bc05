package io.latchkey;

/**
 * One permit of a {@link DistributedSemaphore}: a lease with an id. {@link #close()} returns it
 * and wakes one waiter; a permit whose holder crashed comes back when its lease runs out.
 *
 * <p>Thread-safe.
 */
public interface SemaphorePermit extends Lease {

    /** {@return the semaphore this permit was acquired from} */
    DistributedSemaphore semaphore();

    /** {@return the permit's id, unique per permit across clients and time} */
    String id();
}
