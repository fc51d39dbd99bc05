package io.latchkey.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockConfig;
import io.latchkey.LockException;
import io.latchkey.testing.FaultProxy;
import io.latchkey.testing.RedisServer;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Redis killed while a lock is held and restarted from its append-only file, which still has the
 * hold: the unlock made while Redis was down is completed once it is back. Before the fix the
 * failed unlock left the hold in the watchdog, which renewed it on the restarted server for as
 * long as the client lived, and nobody else ever got the lock.
 */
class RestartWithAofTest {

    @Test
    void anUnlockMadeWhileRedisWasDownIsCompletedAfterARestartThatKeptTheHold() {
        try (RedisServer server = RedisServer.start("--appendonly", "yes", "--appendfsync", "always");
             FaultProxy proxy = FaultProxy.to(server);
             LockClient client = LockClient.create(LockConfig.builder().address(proxy.uri())
                     .commandTimeout(Duration.ofMillis(500)).build())) {
            DistributedLock lock = client.getLock("aof-held");
            lock.lock();
            // The client stays cut off until the restarted server has been looked at.
            proxy.blackHole();
            proxy.resetAll();
            server.kill();

            assertThatThrownBy(lock::unlock).isInstanceOf(LockException.class);
            server.restart();
            assertThat(server.command("EXISTS", "aof-held")).as("the append-only file kept the hold").isEqualTo(1L);

            proxy.resetAll();
            proxy.heal();
            // Far less than the 30 s watchdog lease: the release was completed, not run out.
            await().atMost(Duration.ofSeconds(10)).until(() -> Long.valueOf(0).equals(server.command("EXISTS", "aof-held")));
            assertThat(lock.tryLock()).isTrue();
            lock.unlock();
        }
    }
}
