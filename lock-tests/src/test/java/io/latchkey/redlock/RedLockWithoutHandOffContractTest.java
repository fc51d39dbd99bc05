package io.latchkey.redlock;

import io.latchkey.LockConfig;

/**
 * The whole contract for the RedLock with local hand-off off: every acquisition takes a quorum of
 * the masters, as before hand-off existed ({@link RedLockContractTest} runs it with hand-off on,
 * the default).
 */
class RedLockWithoutHandOffContractTest extends RedLockContractTest {

    @Override
    protected LockConfig.Builder addresses(LockConfig.Builder builder) {
        return super.addresses(builder).noLocalHandOff();
    }
}
