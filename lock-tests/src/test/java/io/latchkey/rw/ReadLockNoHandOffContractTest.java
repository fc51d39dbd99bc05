package io.latchkey.rw;

import io.latchkey.LockConfig;

/**
 * The read lock's contract with local hand-off off: every reader takes a read hold of its own in
 * Redis, as {@link ReadLockContractTest} checks them shared through the client's read hold.
 */
class ReadLockNoHandOffContractTest extends ReadLockContractTest {

    @Override
    protected LockConfig.Builder addresses(LockConfig.Builder builder) {
        return super.addresses(builder).noLocalHandOff();
    }
}
