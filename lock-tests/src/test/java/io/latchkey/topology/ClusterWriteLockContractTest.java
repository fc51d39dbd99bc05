package io.latchkey.topology;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;

/** The contract for the write lock of a read-write lock on a Redis Cluster of three masters. */
class ClusterWriteLockContractTest extends ClusterContractTest {

    @Override
    protected DistributedLock lock(LockClient client, String name) {
        return client.getReadWriteLock(name).writeLock();
    }
}
