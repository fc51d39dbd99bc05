package io.latchkey.fencing;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * The resource a lock protects, made to refuse stale holders as the README shows: a Redis hash
 * that keeps the highest fencing token it has seen, written only through {@code fenced-write.lua},
 * which refuses a token lower than that. It lives on a key of its own, apart from the lock, on a
 * raw Lettuce connection of its own (in the test JVM or in a holder's JVM alike).
 */
public final class FencedResource implements AutoCloseable {

    /** The compare-and-set the README shows, word for word. */
    public static final String FENCED_WRITE = resource("/io/latchkey/fencing/fenced-write.lua");

    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;

    public FencedResource(String redisUri) {
        RedisURI uri = RedisURI.create(redisUri);
        uri.setTimeout(Duration.ofSeconds(5));
        this.client = RedisClient.create(uri);
        this.connection = client.connect();
    }

    /**
     * Writes {@code value} to the resource {@code key} unless a greater token has written there.
     *
     * @return true if written, false if refused
     */
    public boolean write(String key, long token, String value) {
        Long written = commands().eval(FENCED_WRITE, ScriptOutputType.INTEGER, new String[] {key},
                Long.toString(token), value);
        return written == 1L;
    }

    /** @return the value last written to {@code key}, or null */
    public String value(String key) {
        return commands().hget(key, "value");
    }

    /** @return the highest token that wrote to {@code key}, or 0 */
    public long highestToken(String key) {
        String token = commands().hget(key, "token");
        return token == null ? 0 : Long.parseLong(token);
    }

    private RedisCommands<String, String> commands() {
        return connection.sync();
    }

    static String resource(String path) {
        try (InputStream in = FencedResource.class.getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException("no resource " + path);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        connection.close();
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
}
