package io.latchkey.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.latchkey.DistributedLock;
import io.latchkey.LeaseLostException;
import io.latchkey.LockClient;
import io.latchkey.LockConfig;
import io.latchkey.LockHold;
import io.latchkey.testing.RedisServer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * A client whose connection comes back renews every hold at once, so a hold that a Redis without
 * persistence lost in a restart is reported lost about a command timeout after the reconnection,
 * not at the next periodic renewal (a third of the watchdog timeout later, 10 s here).
 */
class ReconnectRenewalTest {

    /** Long, so that the periodic renewal is far off: only the reconnect renewal can be quick. */
    private static final Duration WATCHDOG = Duration.ofSeconds(30);
    private static final Duration RENEWAL_PERIOD = WATCHDOG.dividedBy(3);
    private static final Duration COMMAND_TIMEOUT = Duration.ofMillis(300);
    /** Lettuce's reconnect back-off is at most a second (SharedResources.MAX_RECONNECT_DELAY). */
    private static final Duration RECONNECT = Duration.ofSeconds(1);
    /** Timer ticks, thread hand-offs and a busy 2-core machine. */
    private static final Duration MARGIN = Duration.ofMillis(1500);

    private static LockClient newClient(RedisServer server) {
        return LockClient.create(LockConfig.builder().address(server.uri())
                .watchdogTimeout(WATCHDOG).commandTimeout(COMMAND_TIMEOUT).build());
    }

    @Test
    void aHoldLostInARestartWithoutPersistenceIsReportedSoonAfterTheReconnection() throws Exception {
        try (RedisServer server = RedisServer.start(); LockClient client = newClient(server)) {
            LockHold hold = client.getLock("restarted").acquireAsync(1).get(5, TimeUnit.SECONDS);
            AtomicLong lostAt = new AtomicLong();
            hold.leaseLost().thenRun(() -> lostAt.set(System.nanoTime()));

            server.kill();
            server.restart();
            long restarted = System.nanoTime();
            hold.leaseLost().get(RENEWAL_PERIOD.toMillis() / 2, TimeUnit.MILLISECONDS);

            long took = TimeUnit.NANOSECONDS.toMillis(lostAt.get() - restarted);
            assertThat(took).as("ms from the restart to leaseLost()")
                    .isLessThan(RECONNECT.plus(COMMAND_TIMEOUT).plus(MARGIN).toMillis())
                    .isLessThan(RENEWAL_PERIOD.toMillis());
            assertThat(hold.isValid()).isFalse();
            assertThatThrownBy(hold::close).isInstanceOf(LeaseLostException.class);
        }
    }

    @Test
    void aHoldThatRedisKeptStaysValidAcrossAReconnection() throws Exception {
        try (RedisServer server = RedisServer.start(); LockClient client = newClient(server)) {
            DistributedLock lock = client.getLock("kept");
            LockHold hold = lock.acquireAsync(1).get(5, TimeUnit.SECONDS);

            server.command("CLIENT", "KILL", "TYPE", "normal");
            // A query answered by Redis once the client is back: the reconnect renewal has been sent
            // before it. (A re-entry would not do: local hand-off answers it without Redis, so it
            // could pass while the connection is still down and the close below be refused.)
            await().atMost(Duration.ofSeconds(5)).ignoreExceptions()
                    .until(() -> lock.isLockedAsync().get(5, TimeUnit.SECONDS));
            LockHold reentry = lock.tryAcquireAsync(Duration.ZERO, 1).get(5, TimeUnit.SECONDS).orElseThrow();
            reentry.close();

            assertThat(hold.isValid()).isTrue();
            assertThat(hold.leaseLost()).isNotDone();
            hold.close();
        }
    }
}
