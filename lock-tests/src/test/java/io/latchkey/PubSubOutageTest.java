package io.latchkey;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.lettuce.core.KillArgs;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The unlock subscriptions across an outage of the pub/sub connection alone: the server stays
 * up (so the locks held in it stay held), its pub/sub clients are killed, and {@code maxclients}
 * keeps the client from reconnecting until the test lets it.
 */
class PubSubOutageTest {

    @RegisterExtension
    static final OneRedis REDIS = new OneRedis();

    private String prefix;

    @BeforeEach
    void namePrefix() {
        prefix = "latchkey-test:pubsub-outage:" + UUID.randomUUID();
    }

    private static ConditionFactory within(Duration atMost) {
        return await().atMost(atMost).pollInterval(Duration.ofMillis(20)).pollInSameThread();
    }

    /** Holds {@code lockName} for 30 s as another process would. */
    private static long anOwner() {
        return ThreadLocalRandom.current().nextLong(1L << 48, Long.MAX_VALUE);
    }

    private static long rejectedConnections() {
        String stats = REDIS.inspector().commands().info("stats");
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
        REDIS.inspector().holdElsewhere(left);
        REDIS.inspector().holdElsewhere(kept);
        try (LockClient client = LockClient.create(LockConfig.builder().address(REDIS.server().uri())
                .commandTimeout(Duration.ofMillis(700)).build())) {
            CompletableFuture<Void> leaving = client.getLock(left).lockAsync(anOwner());
            CompletableFuture<Void> staying = client.getLock(kept).lockAsync(anOwner());
            within(Duration.ofSeconds(5)).until(() -> REDIS.inspector().subscribers(leftChannel) == 1
                    && REDIS.inspector().subscribers(keptChannel) == 1);

            String maxClients = REDIS.inspector().commands().configGet("maxclients").get("maxclients");
            long rejected = rejectedConnections();
            REDIS.inspector().commands().configSet("maxclients", "1"); // the connections open now stay
            try {
                REDIS.inspector().commands().clientKill(KillArgs.Builder.typePubsub());
                // Refused reconnects: the client knows its pub/sub connection is down.
                within(Duration.ofSeconds(5)).until(() -> rejectedConnections() > rejected);
                // A waiter leaves during the outage: its UNSUBSCRIBE is rejected, and Lettuce still
                // counts the channel among those to subscribe again on reconnect.
                leaving.cancel(false);
            } finally {
                REDIS.inspector().commands().configSet("maxclients", maxClients);
            }

            // One SUBSCRIBE carries every channel again, so both are back once the kept one is.
            within(Duration.ofSeconds(10)).until(() -> REDIS.inspector().subscribers(keptChannel) == 1);
            within(Duration.ofSeconds(5)).until(() -> REDIS.inspector().subscribers(leftChannel) == 0);
            assertEquals(List.of(keptChannel), REDIS.inspector().activeChannels("*" + prefix + "*"));
            assertFalse(staying.isDone(), "the kept lock is still held elsewhere");
            staying.cancel(false);
            within(Duration.ofSeconds(5)).until(() -> REDIS.inspector().activeChannels("*" + prefix + "*").isEmpty());
        }
    }
}
