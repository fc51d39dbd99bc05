package io.latchkey;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * A raw Lettuce connection of its own, for tests that look at (or arrange) what the plain lock
 * keeps in Redis without going through Latchkey: its hash, its TTL, its unlock channel.
 */
public final class RedisInspector implements AutoCloseable {

    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;

    public RedisInspector(String uri) {
        RedisURI redisUri = RedisURI.create(uri);
        redisUri.setTimeout(Duration.ofSeconds(5));
        this.client = RedisClient.create(redisUri);
        this.connection = client.connect();
    }

    /** @return the unlock channel of the plain lock named {@code name} */
    public static String channelOf(String name) {
        return "latchkey:{" + name + "}:channel";
    }

    /** @return the connection's commands */
    public RedisCommands<String, String> commands() {
        return connection.sync();
    }

    /** @return how many connections are subscribed to {@code channel} */
    public long subscribers(String channel) {
        Map<String, Long> counts = commands().pubsubNumsub(channel);
        return counts.getOrDefault(channel, 0L);
    }

    /** @return the channels with at least one subscriber whose name matches {@code pattern} */
    public List<String> activeChannels(String pattern) {
        return commands().pubsubChannels(pattern);
    }

    /**
     * Makes another client hold the lock, so that this test's clients wait for it.
     *
     * @param lockName the lock
     */
    public void holdElsewhere(String lockName) {
        commands().hset(lockName, "elsewhere:1", "1");
        commands().pexpire(lockName, 30_000);
    }

    @Override
    public void close() {
        connection.close();
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
}
