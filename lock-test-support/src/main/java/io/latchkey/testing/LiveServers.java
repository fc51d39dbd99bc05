package io.latchkey.testing;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Every {@link RedisServer} that is not closed yet, so that a JVM shutdown hook can kill their
 * processes when a test forgot to close a server or the run was cut short.
 *
 * <p>This covers normal exits and SIGTERM/SIGINT of the JVM; nothing can run when the JVM
 * itself is killed with SIGKILL. Thread-safe.
 */
final class LiveServers {

    private static final Set<RedisServer> SERVERS = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(LiveServers::killAll, "latchkey-redis-reaper"));
    }

    private LiveServers() {
    }

    static void register(RedisServer server) {
        SERVERS.add(server);
    }

    static void unregister(RedisServer server) {
        SERVERS.remove(server);
    }

    static boolean contains(RedisServer server) {
        return SERVERS.contains(server);
    }

    private static void killAll() {
        for (RedisServer server : List.copyOf(SERVERS)) {
            server.killOnJvmExit();
        }
    }
}
