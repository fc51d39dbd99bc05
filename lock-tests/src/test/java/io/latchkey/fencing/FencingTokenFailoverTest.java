package io.latchkey.fencing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockConfig;
import io.latchkey.LockException;
import io.latchkey.LockHold;
import io.latchkey.testing.RedisSentinelGroup;
import io.latchkey.testing.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A Sentinel failover that kept the data (the replica had caught up when the master died) keeps
 * the fencing counter with it: every hold on the promoted master has a greater token than every
 * hold before the failover, and a hold that survived keeps its token.
 */
class FencingTokenFailoverTest {

    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration RETRY_BACKOFF = Duration.ofMillis(100);

    private static RedisSentinelGroup group;

    private final List<LockClient> clients = new ArrayList<>();

    @BeforeAll
    static void startGroup() {
        group = RedisSentinelGroup.start(1, 3);
    }

    @AfterAll
    static void stopGroup() {
        if (group != null) {
            group.close();
        }
    }

    @AfterEach
    void closeClients() {
        clients.forEach(LockClient::close);
    }

    private LockClient newClient() {
        LockClient client = LockClient.create(LockConfig.builder().address(group.uri())
                .watchdogTimeout(LEASE).commandTimeout(Duration.ofSeconds(1)).build());
        clients.add(client);
        return client;
    }

    @Test
    void tokensAfterAFailoverThatKeptTheDataAreGreaterThanEveryTokenBefore() throws Exception {
        String name = "latchkey-test:fencing-failover:" + UUID.randomUUID();
        LockClient before = newClient();
        long highest = 0;
        for (int i = 0; i < 3; i++) {
            LockHold hold = before.getLock(name).acquireAsync(1).get(5, TimeUnit.SECONDS);
            assertThat(hold.fencingToken()).isGreaterThan(highest);
            highest = hold.fencingToken();
            hold.close();
        }
        LockHold survivor = before.getLock(name).acquireAsync(2).get(5, TimeUnit.SECONDS);
        assertThat(survivor.fencingToken()).isGreaterThan(highest);
        highest = survivor.fencingToken();

        RedisServer master = group.master();
        RedisServer replica = group.dataNodes().stream().filter(node -> node != master).findFirst().orElseThrow();
        await().atMost(Duration.ofSeconds(10)).until(() -> master.info("replication", "master_repl_offset")
                .equals(replica.info("replication", "slave_repl_offset")));
        master.kill();
        RedisServer promoted = group.awaitFailover(master, Duration.ofSeconds(30));
        assertThat(promoted).isNotSameAs(master);

        // isLocked() asks Redis, so this also waits until the client reconnected to the promoted
        // master; isHeldBy may be answered by the client itself (local hand-off counts the levels
        // of the holds it passes on).
        assertThat(onceReconnected(() -> before.getLock(name).isLocked())).as("the replicated hold survived the failover").isTrue();
        assertThat(before.getLock(name).isHeldBy(2)).isTrue();
        assertThat(survivor.isValid()).isTrue();
        assertThat(survivor.leaseLost()).isNotDone();
        survivor.close();

        LockHold afterOnTheOldClient = acquireRetrying(before.getLock(name), 1);
        assertThat(afterOnTheOldClient.fencingToken()).isGreaterThan(highest);
        afterOnTheOldClient.close();
        LockHold afterOnANewClient = acquireRetrying(newClient().getLock(name), 3);
        assertThat(afterOnANewClient.fencingToken()).isGreaterThan(afterOnTheOldClient.fencingToken());
        afterOnANewClient.close();
    }

    /** What an application does while Redis fails over: try again after a LockException. */
    private static LockHold acquireRetrying(DistributedLock lock, long owner) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            try {
                return lock.acquireAsync(owner).get(10, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof LockException) || System.nanoTime() - deadline > 0) {
                    throw e;
                }
                LockSupport.parkNanos(RETRY_BACKOFF.toNanos());
            }
        }
    }

    private static boolean onceReconnected(BooleanSupplier query) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            try {
                return query.getAsBoolean();
            } catch (LockException stillReconnecting) {
                if (System.nanoTime() - deadline > 0) {
                    throw stillReconnecting;
                }
                LockSupport.parkNanos(RETRY_BACKOFF.toNanos());
            }
        }
    }
}
