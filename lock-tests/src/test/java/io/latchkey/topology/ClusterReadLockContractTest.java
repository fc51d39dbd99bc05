package io.latchkey.topology;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;

/**
 * The contract for the read lock of a read-write lock on a Redis Cluster of three masters; the
 * other owner that must hold the lock, or be kept out, takes the write lock of the same name (see
 * {@code ReadLockContractTest}).
 */
class ClusterReadLockContractTest extends ClusterContractTest {

    @Override
    protected DistributedLock lock(LockClient client, String name) {
        return client.getReadWriteLock(name).readLock();
    }

    @Override
    protected DistributedLock rival(LockClient client, String name) {
        return client.getReadWriteLock(name).writeLock();
    }
}
