package io.latchkey;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.latchkey.testing.RedisServer;
import io.lettuce.core.KillArgs;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The unlock subscriptions across an outage of the pub/sub connection alone: the server stays
 * up (so the locks held in it stay held), its pub/sub clients are killed, and {@code maxclients}
 * keeps the client from reconnecting until the test lets it.
 */
class PubSubOutageTest {

    private static RedisServer redis;
    private static RedisInspector inspector;

    private String prefix;

    @BeforeAll
    static void startRedis() {
        redis = RedisServer.start();
        inspector = new RedisInspector(redis.uri());
    }

    @AfterAll
    static void stopRedis() {
        if (inspector != null) {
            inspector.close();
        }
        if (redis != null) {
            redis.close();
        }
    }

    @BeforeEach
    void namePrefix() {
        prefix = "latchkey-test:pubsub-outage:" + UUID.randomUUID();
    }

    private static ConditionFactory within(Duration atMost) {
        return await().atMost(atMost).pollInterval(Duration.ofMillis(20)).pollInSameThread();
    }

    /** Holds {@code lockName} for 30 s as another process would. */
    private static void holdElsewhere(String lockName) {
        inspector.commands().hset(lockName, "elsewhere:1", "1");
        inspector.commands().pexpire(lockName, 30_000);
    }

    private static long anOwner() {
        return ThreadLocalRandom.current().nextLong(1L << 48, Long.MAX_VALUE);
    }

    private static long rejectedConnections() {
        String stats = inspector.commands().info("stats");
        return stats.lines().filter(line -> line.startsWith("rejected_connections:"))
                .mapToLong(line -> Long.parseLong(line.substring("rejected_connections:".length()).strip()))
                .findFirst().orElseThrow();
    }

    @Test
    void aChannelLeftWhileThePubSubConnectionWasDownIsUnsubscribedWhenItReconnects() {
        String left = prefix + ":left";
        String kept = prefix + ":kept";
        String leftChannel = RedisInspector.channelOf(left);
        String keptChannel = RedisInspector.channelOf(kept);
        holdElsewhere(left);
        holdElsewhere(kept);
        try (LockClient client = LockClient.create(LockConfig.builder().address(redis.uri())
                .commandTimeout(Duration.ofMillis(700)).build())) {
            CompletableFuture<Void> leaving = client.getLock(left).lockAsync(anOwner());
            CompletableFuture<Void> staying = client.getLock(kept).lockAsync(anOwner());
            within(Duration.ofSeconds(5)).until(() -> inspector.subscribers(leftChannel) == 1
                    && inspector.subscribers(keptChannel) == 1);

            String maxClients = inspector.commands().configGet("maxclients").get("maxclients");
            long rejected = rejectedConnections();
            inspector.commands().configSet("maxclients", "1"); // the connections open now stay
            try {
                inspector.commands().clientKill(KillArgs.Builder.typePubsub());
                // Refused reconnects: the client knows its pub/sub connection is down.
                within(Duration.ofSeconds(5)).until(() -> rejectedConnections() > rejected);
                // A waiter leaves during the outage: its UNSUBSCRIBE is rejected, and Lettuce still
                // counts the channel among those to subscribe again on reconnect.
                leaving.cancel(false);
            } finally {
                inspector.commands().configSet("maxclients", maxClients);
            }

            // One SUBSCRIBE carries every channel again, so both are back once the kept one is.
            within(Duration.ofSeconds(10)).until(() -> inspector.subscribers(keptChannel) == 1);
            within(Duration.ofSeconds(5)).until(() -> inspector.subscribers(leftChannel) == 0);
            assertEquals(List.of(keptChannel), inspector.activeChannels("*" + prefix + "*"));
            assertFalse(staying.isDone(), "the kept lock is still held elsewhere");
            staying.cancel(false);
            within(Duration.ofSeconds(5)).until(() -> inspector.activeChannels("*" + prefix + "*").isEmpty());
        }
    }
}
