package io.latchkey.scripts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.latchkey.testing.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BinaryOperator;
import org.awaitility.core.ConditionTimeoutException;

/**
 * A real Redis for tests that call the library's scripts themselves, below any client: a
 * connection, a subscription that records what the scripts publish, Redis's clock as the scripts
 * read it, and the scripts' text from the class path. One per test class.
 */
public final class ScriptsOnRedis implements AutoCloseable {

    private final RedisServer server;
    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;
    private final StatefulRedisPubSubConnection<String, String> subscription;
    private final List<String> published = new CopyOnWriteArrayList<>();

    private ScriptsOnRedis(RedisServer server) {
        this.server = server;
        this.client = RedisClient.create(server.uri());
        this.connection = client.connect();
        this.subscription = client.connectPubSub();
    }

    /** @return a new server with its connections */
    public static ScriptsOnRedis start() {
        return new ScriptsOnRedis(RedisServer.start());
    }

    /** @return the commands of the one connection that every script call goes through */
    public RedisCommands<String, String> redis() {
        return connection.sync();
    }

    /**
     * @return the asynchronous commands of the same connection: reads sent together are answered
     *     in one round trip
     */
    public RedisAsyncCommands<String, String> pipeline() {
        return connection.async();
    }

    /**
     * Records every message on these channels, in the order Redis published them.
     *
     * @param entry what to record of a message, given its channel and text
     * @param channels the channels
     */
    public void record(BinaryOperator<String> entry, String... channels) {
        subscription.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void message(String channel, String message) {
                published.add(entry.apply(channel, message));
            }
        });
        subscription.sync().subscribe(channels);
    }

    /** @return what was recorded so far; a test may clear it */
    public List<String> published() {
        return published;
    }

    /**
     * Waits until this many messages were recorded, for at most 5 s, and then returns anyway: the
     * test's comparison of what was published says what is missing better than a timeout would.
     *
     * @param count how many
     */
    public void awaitPublished(int count) {
        if (published.size() >= count) {
            return;
        }
        try {
            await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(1)).until(() -> published.size() >= count);
        } catch (ConditionTimeoutException fewer) {
            // Compared by the caller.
        }
    }

    /** @return Redis's clock in microseconds, as TIME answers it to the scripts */
    public long serverMicros() {
        List<String> time = redis().time();
        return Long.parseLong(time.get(0)) * 1_000_000 + Long.parseLong(time.get(1));
    }

    /**
     * @param path a script's path below {@code io/latchkey/internal/}, as {@code lock/acquire.lua}
     * @return its text
     */
    public static String script(String path) {
        try (InputStream in = ScriptsOnRedis.class.getResourceAsStream("/io/latchkey/internal/" + path)) {
            assertThat(in).as("script resource %s", path).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    @Override
    public void close() {
        subscription.close();
        connection.close();
        client.shutdown();
        server.close();
    }
}
