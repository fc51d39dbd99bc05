package io.latchkey;

import io.latchkey.testing.RedisServer;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One real {@code redis-server} for a test class, and a raw connection of its own to look at
 * (or arrange) what the locks keep there behind the client's back. Register it as a static field
 * with {@code @RegisterExtension}.
 */
public final class OneRedis implements BeforeAllCallback, AfterAllCallback {

    private final String[] serverArgs;
    private RedisServer server;
    private RedisInspector inspector;

    /** @param serverArgs extra {@code redis-server} arguments, as {@link RedisServer#start} takes them */
    public OneRedis(String... serverArgs) {
        this.serverArgs = serverArgs.clone();
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        server = RedisServer.start(serverArgs);
        inspector = new RedisInspector(server.uri());
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (inspector != null) {
            inspector.close();
        }
        if (server != null) {
            server.close();
        }
    }

    /** @return the server, to pause, kill or restart */
    public RedisServer server() {
        return server;
    }

    /** @return a raw connection of its own to the server, with pub/sub queries */
    public RedisInspector inspector() {
        return inspector;
    }

    /** @return the raw connection's commands */
    public RedisCommands<String, String> commands() {
        return inspector.commands();
    }
}
