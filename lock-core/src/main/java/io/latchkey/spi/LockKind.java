package io.latchkey.spi;

import io.latchkey.DistributedLock;

/** A lock kind from another module, opened once per client and closed with it. */
public interface LockKind extends AutoCloseable {

    /**
     * @param name a validated lock name
     * @return the lock
     */
    DistributedLock lock(String name);

    /** Releases what the kind opened for this client; idempotent. */
    @Override
    void close();
}
