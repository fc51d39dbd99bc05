package io.latchkey.rw;

import io.latchkey.LockConfig;

/**
 * The read-write lock's rows with local hand-off off, so that both settings of the client keep
 * them: {@link ReadWriteLockTest} runs them with readers shared through the client's read hold.
 */
class ReadWriteLockNoHandOffTest extends ReadWriteLockTest {

    @Override
    protected LockConfig.Builder addresses(LockConfig.Builder builder) {
        return super.addresses(builder).noLocalHandOff();
    }
}
