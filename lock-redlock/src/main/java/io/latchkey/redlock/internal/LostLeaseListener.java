package io.latchkey.redlock.internal;

/**
 * Told when a renewed RedLock hold ends because fewer than a majority of masters still hold it,
 * after the loss has been logged at WARN. A hook for tests until a public lease-lost listener
 * exists; it runs on a timer or Redis thread and must not block.
 */
@FunctionalInterface
public interface LostLeaseListener {

    /** Does nothing: the WARN log is the whole report. */
    LostLeaseListener NONE = (lockName, owner) -> { };

    /**
     * @param lockName the lock's name
     * @param owner the owner whose hold was lost
     */
    void leaseLost(String lockName, long owner);
}
