package io.latchkey.fair;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A raw Lettuce connection of its own, for tests that look at (or arrange) what a fair lock keeps
 * in Redis, by the names the README documents: the hash {@code name}, the list
 * {@code latchkey:{name}:queue}, the sorted set {@code latchkey:{name}:timeouts} and the hash
 * {@code latchkey:{name}:secrets}.
 */
final class FairLockRedis implements AutoCloseable {

    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;

    FairLockRedis(String uri) {
        RedisURI redisUri = RedisURI.create(uri);
        redisUri.setTimeout(Duration.ofSeconds(5));
        this.client = RedisClient.create(redisUri);
        this.connection = client.connect();
    }

    static String queueKey(String name) {
        return "latchkey:{" + name + "}:queue";
    }

    static String timeoutsKey(String name) {
        return "latchkey:{" + name + "}:timeouts";
    }

    static String secretsKey(String name) {
        return "latchkey:{" + name + "}:secrets";
    }

    static String channelOf(String name) {
        return "latchkey:{" + name + "}:channel";
    }

    /** @return the text of one of the fair lock's scripts, as packaged */
    static String script(String fileName) {
        try (InputStream in = FairLockRedis.class.getResourceAsStream("/io/latchkey/internal/fair/" + fileName)) {
            if (in == null) {
                throw new AssertionError("no script resource " + fileName);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @return the SHA-1 that Redis knows a script by */
    static String sha1(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }

    /** @return a new pub/sub connection, for the caller to close */
    StatefulRedisPubSubConnection<String, String> pubSub() {
        return client.connectPubSub();
    }

    RedisCommands<String, String> commands() {
        return connection.sync();
    }

    /** @return the waiters in line, first first */
    List<String> queue(String name) {
        return commands().lrange(queueKey(name), 0, -1);
    }

    /** @return waiter to eviction deadline (ms of Redis time), earliest first */
    Map<String, Long> timeouts(String name) {
        Map<String, Long> deadlines = new LinkedHashMap<>();
        for (ScoredValue<String> entry : commands().zrangeWithScores(timeoutsKey(name), 0, -1)) {
            deadlines.put(entry.getValue(), (long) entry.getScore());
        }
        return deadlines;
    }

    /** @return every key of the lock that exists now: its hash, queue, timeouts and waiters' secrets */
    List<String> keysOf(String name) {
        List<String> present = new ArrayList<>();
        for (String key : List.of(name, queueKey(name), timeoutsKey(name), secretsKey(name))) {
            if (commands().exists(key) == 1) {
                present.add(key);
            }
        }
        return present;
    }

    /** @return Redis's clock in milliseconds, the clock of every deadline */
    long redisNowMillis() {
        List<String> time = commands().time();
        return Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
    }

    @Override
    public void close() {
        connection.close();
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
}
