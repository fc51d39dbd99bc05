package io.latchkey.redlock;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockHold;
import io.latchkey.fencing.FenceCounters;
import io.latchkey.testing.RedisServer;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * RedLock's fencing tokens over three real masters: strictly increasing across owners and
 * clients, and still after one master restarted without persistence (its counter gone), as long
 * as a majority kept its data. The holds after the restart are granted by different majorities
 * on purpose (a master is made to refuse by a foreign hold on it): a token taken from one master,
 * or the highest of the granting masters' counters without raising a majority to it, repeats or
 * goes back here.
 */
class RedLockFencingTest {

    private static final Duration COMMAND_TIMEOUT = Duration.ofMillis(600);
    private static final Duration ATTEMPT_TIMEOUT = Duration.ofMillis(400);
    private static final Duration WATCHDOG_TIMEOUT = Duration.ofSeconds(10);
    private static final long TIMEOUT_SECONDS = 20;

    private static Masters masters;

    private String name;
    private long highest;

    @BeforeAll
    static void startMasters() {
        masters = Masters.start(3);
    }

    @AfterAll
    static void stopMasters() {
        if (masters != null) {
            masters.close();
        }
    }

    @BeforeEach
    void nameTheLock() {
        name = "latchkey-test:RedLockFencingTest:" + UUID.randomUUID();
        highest = 0;
    }

    @AfterEach
    void closeClientsAndRepair() {
        masters.closeClientsAndRepair();
    }

    private static LockClient client() {
        return masters.client(masters.config(COMMAND_TIMEOUT, ATTEMPT_TIMEOUT, WATCHDOG_TIMEOUT).build());
    }

    @Test
    void tokensStrictlyIncreaseAcrossOwnersAndClients() throws Exception {
        DistributedLock[] locks = {client().getRedLock(name), client().getRedLock(name)};
        for (int i = 0; i < 10; i++) {
            holdOnce(locks[i % 2], 1 + i % 3, "hold " + i);
        }
    }

    @Test
    void tokensStillIncreaseAfterOneMasterRestartedWithoutItsCounter() throws Exception {
        DistributedLock lock = client().getRedLock(name);
        for (int i = 0; i < 5; i++) {
            holdOnce(lock, 1, "before the restart, hold " + i);
        }

        RedisServer forgetful = masters.get(0);
        forgetful.kill();
        forgetful.restart();
        assertThat(forgetful.command("GET", FenceCounters.keyOf(name))).as("the restarted master's counter").isNull();

        holdOnce(lock, 1, "all masters up");
        refusedBy(1, () -> holdOnce(lock, 1, "granted by masters 0 and 2"));
        refusedBy(2, () -> holdOnce(lock, 1, "granted by masters 0 and 1"));
        holdOnce(client().getRedLock(name), 2, "a new client, all masters up");
    }

    /**
     * Acquires, checks the token against every earlier one and that a majority's counters had
     * reached it when the hold was returned, and releases.
     */
    private void holdOnce(DistributedLock lock, long owner, String what) throws Exception {
        LockHold hold = lock.acquireAsync(owner).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        long token = hold.fencingToken();
        assertThat(token).as(what).isGreaterThan(highest);
        highest = token;
        int raised = 0;
        for (int i = 0; i < masters.size(); i++) {
            Object counter = masters.get(i).command("GET", FenceCounters.keyOf(name));
            if (counter != null && Long.parseLong((String) counter) >= token) {
                raised++;
            }
        }
        assertThat(raised).as("%s: masters whose counter reached the token %d", what, token)
                .isGreaterThanOrEqualTo(masters.majority());
        hold.close();
    }

    /** Runs {@code holds} while master {@code index} refuses the lock: another owner holds it there. */
    private void refusedBy(int index, ThrowingRunnable holds) throws Exception {
        RedisServer master = masters.get(index);
        master.command("HSET", name, "someone-else:1", "1");
        master.command("PEXPIRE", name, "30000");
        try {
            holds.run();
        } finally {
            master.command("DEL", name);
        }
    }

    @FunctionalInterface
    private interface ThrowingRunnable {
        void run() throws Exception;
    }
}
