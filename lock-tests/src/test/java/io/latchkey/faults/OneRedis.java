package io.latchkey.faults;

import io.latchkey.testing.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One real {@code redis-server} for a test class, and a raw connection of its own to look at
 * (or arrange) what the locks keep there behind the client's back. Register it as a static field
 * with {@code @RegisterExtension}.
 */
final class OneRedis implements BeforeAllCallback, AfterAllCallback {

    private final String[] serverArgs;
    private RedisServer server;
    private RedisClient raw;
    private StatefulRedisConnection<String, String> connection;

    /** @param serverArgs extra {@code redis-server} arguments, as {@link RedisServer#start} takes them */
    OneRedis(String... serverArgs) {
        this.serverArgs = serverArgs.clone();
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        server = RedisServer.start(serverArgs);
        raw = RedisClient.create(server.uri());
        connection = raw.connect();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (connection != null) {
            connection.close();
        }
        if (raw != null) {
            raw.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
        if (server != null) {
            server.close();
        }
    }

    /** @return the server, to pause, kill or restart */
    RedisServer server() {
        return server;
    }

    /** @return the raw connection's commands */
    RedisCommands<String, String> commands() {
        return connection.sync();
    }
}
