package io.latchkey.demo;

import io.latchkey.testing.RedisServer;
import io.latchkey.testing.RedisServers;
import java.util.List;

/**
 * The Redis servers the demo runs against: those given with {@code --redis}, or ones it starts
 * itself through the test fixture and stops in {@link #close()}.
 */
final class DemoRedis implements AutoCloseable {

    private final List<String> uris;
    private final String description;
    private final Runnable stop;

    private DemoRedis(List<String> uris, String description, Runnable stop) {
        this.uris = List.copyOf(uris);
        this.description = description;
        this.stop = stop;
    }

    /**
     * @param given the URIs from the command line, possibly none
     * @param count how many servers the lock type needs: 1, or 3 independent masters for RedLock
     * @return the servers to use
     * @throws io.latchkey.testing.RedisFixtureException if a server must be started and cannot be
     */
    static DemoRedis open(List<String> given, int count) {
        if (!given.isEmpty()) {
            return new DemoRedis(given, "given with --redis", () -> { });
        }
        if (count == 1) {
            RedisServer server = RedisServer.start();
            return new DemoRedis(List.of(server.uri()), describe(server), server::close);
        }
        RedisServers servers = RedisServers.start(count);
        return new DemoRedis(List.of(servers.uris()), count + " × " + describe(servers.get(0)), servers::close);
    }

    private static String describe(RedisServer server) {
        return "started here: redis-server " + server.version() + " from " + server.binary();
    }

    /** @return the servers' URIs; the first also holds the stock */
    List<String> uris() {
        return uris;
    }

    /** @return where the servers come from, for the report */
    String description() {
        return description;
    }

    /** Stops the servers this object started; leaves given ones alone. */
    @Override
    public void close() {
        stop.run();
    }
}
