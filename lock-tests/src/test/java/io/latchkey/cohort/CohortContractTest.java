package io.latchkey.cohort;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockConfig;
import io.latchkey.contract.SingleServerContract;

/**
 * The whole lock contract for the plain lock with local hand-off on, the default
 * ({@code PlainLockTest} runs it with hand-off off): everything the contract promises holds
 * however the hold passes between the owners of one client.
 */
class CohortContractTest extends SingleServerContract {

    @Override
    protected LockConfig.Builder addresses(LockConfig.Builder builder) {
        return super.addresses(builder).localHandOff();
    }

    @Override
    protected DistributedLock lock(LockClient client, String name) {
        return client.getLock(name);
    }
}
