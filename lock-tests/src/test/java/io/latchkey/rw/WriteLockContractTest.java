package io.latchkey.rw;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.contract.SingleServerContract;

/**
 * The contract for the write lock of {@link LockClient#getReadWriteLock(String)} against one real
 * Redis server: with no reader about, it is a reentrant exclusive lock like any other.
 */
class WriteLockContractTest extends SingleServerContract {

    @Override
    protected DistributedLock lock(LockClient client, String name) {
        return client.getReadWriteLock(name).writeLock();
    }
}
