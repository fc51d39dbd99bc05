package io.latchkey.replication;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;

import io.latchkey.LockClient;
import io.latchkey.LockConfig;
import io.latchkey.LockConfig.ReplicaShortfall;
import io.latchkey.testing.RedisSentinelGroup;
import io.latchkey.testing.RedisServer;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A Sentinel group whose master dies ({@code kill -9}) right after a grant that its replica
 * acknowledged: the hold is on the promoted replica. The acquisition returns only once the replica
 * has the hold: while the replica is paused it does not complete.
 *
 * <p>Why no contrast with an unacknowledged grant lost in the same way: pausing the replica
 * (SIGSTOP) does not stop its kernel from taking in the replication stream, which it reads on
 * resume, so the loss cannot be produced deterministically here without a proxy on the
 * replication link; {@code SentinelFailoverTest} shows the loss by deleting the key on the replica.
 */
class ReplicaAcknowledgementFailoverTest {

    private RedisSentinelGroup group;

    @BeforeEach
    void startGroup() {
        group = RedisSentinelGroup.start(1, 3);
    }

    @AfterEach
    void stopGroup() {
        group.close();
    }

    @Test
    void anAcknowledgedHoldSurvivesAFailoverRightAfterItsGrant() throws Exception {
        String name = "locks:failover:" + UUID.randomUUID();
        RedisServer master = group.master();
        RedisServer replica = group.dataNodes().stream().filter(node -> node != master).findFirst().orElseThrow();

        try (LockClient client = LockClient.create(LockConfig.builder()
                .address(group.uri())
                .commandTimeout(Duration.ofSeconds(3))
                .replicaAcknowledgement(1, Duration.ofMillis(2500), ReplicaShortfall.FAIL)
                .build())) {
            CompletableFuture<Void> acquired;
            replica.pause();
            try {
                acquired = client.getLock(name).lockAsync(1);
                await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(1))
                        .until(() -> !acquired.isDone());
            } finally {
                replica.resume();
            }
            acquired.get(5, TimeUnit.SECONDS);
            master.kill();
            RedisServer promoted = group.awaitFailover(master, Duration.ofSeconds(30));
            assertNotSame(master, promoted);

            assertEquals(1L, promoted.command("EXISTS", name), "the acknowledged hold is on the new master");
        }
    }
}
