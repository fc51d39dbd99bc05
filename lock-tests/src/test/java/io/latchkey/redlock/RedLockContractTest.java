package io.latchkey.redlock;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockConfig;
import io.latchkey.contract.DistributedLockContract;
import io.latchkey.testing.RedisServers;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The contract of every lock kind, for {@link LockClient#getRedLock(String)} over three real
 * masters, with local hand-off on (the default: a client's owners pass the quorum hold between
 * them; {@link RedLockWithoutHandOffContractTest} runs it with hand-off off). "Redis down" means a majority of them killed, "Redis too slow" a majority paused:
 * with one master left, no RedLock call can be answered.
 */
class RedLockContractTest extends DistributedLockContract {

    /**
     * Above the 100 ms default so that a scheduling hiccup on a busy two-core machine does not
     * time out a majority of masters at once; still far below every lease in the contract.
     */
    static final Duration ATTEMPT_TIMEOUT = Duration.ofMillis(400);

    private static RedisServers masters;

    @BeforeAll
    static void startMasters() {
        masters = RedisServers.start(3);
    }

    @AfterAll
    static void stopMasters() {
        if (masters != null) {
            masters.close();
        }
    }

    @Override
    protected LockConfig.Builder addresses(LockConfig.Builder builder) {
        return builder.redLockAddresses(masters.uris()).redLockAttemptTimeout(ATTEMPT_TIMEOUT).localHandOff();
    }

    @Override
    protected DistributedLock lock(LockClient client, String name) {
        return client.getRedLock(name);
    }

    @Override
    protected void killRedis() {
        masters.get(0).kill();
        masters.get(1).kill();
    }

    @Override
    protected void restartRedis() {
        masters.get(0).restart();
        masters.get(1).restart();
    }

    @Override
    protected void pauseRedis() {
        masters.get(0).pause();
        masters.get(1).pause();
    }

    @Override
    protected void resumeRedis() {
        masters.get(0).resume();
        masters.get(1).resume();
    }
}
