package io.latchkey.rw;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.contract.SingleServerContract;

/**
 * The contract for the read lock of {@link LockClient#getReadWriteLock(String)} against one real
 * Redis server. Readers share the lock, so where the contract needs another owner to hold it, or
 * checks that a hold keeps others out, that other owner takes the write lock of the same name.
 */
class ReadLockContractTest extends SingleServerContract {

    @Override
    protected DistributedLock lock(LockClient client, String name) {
        return client.getReadWriteLock(name).readLock();
    }

    @Override
    protected DistributedLock rival(LockClient client, String name) {
        return client.getReadWriteLock(name).writeLock();
    }
}
