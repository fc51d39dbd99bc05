package io.latchkey.testing;

import java.util.ArrayList;
import java.util.List;

/**
 * Several independent Redis masters, each a {@link RedisServer} on its own port, as RedLock
 * needs. They do not replicate or know of each other.
 *
 * <p>Thread-safe; the list of servers is fixed at start.
 */
public final class RedisServers implements AutoCloseable {

    private final List<RedisServer> servers;

    private RedisServers(List<RedisServer> servers) {
        this.servers = List.copyOf(servers);
    }

    /**
     * Starts {@code count} servers, one after the other, each as {@link RedisServer#start(String...)}
     * does. If one fails, those already started are closed before the failure is thrown.
     *
     * @param count how many servers, at least 1
     * @param extraArgs arguments appended to every server's command line; none may be null
     * @return the running servers
     * @throws IllegalArgumentException if {@code count} is less than 1
     * @throws RedisFixtureException if a server does not come up
     */
    public static RedisServers start(int count, String... extraArgs) {
        if (count < 1) {
            throw new IllegalArgumentException("count must be at least 1: " + count);
        }
        List<RedisServer> started = new ArrayList<>(count);
        try {
            for (int i = 0; i < count; i++) {
                started.add(RedisServer.start(extraArgs));
            }
        } catch (RuntimeException | Error e) {
            started.forEach(RedisServer::close);
            throw e;
        }
        return new RedisServers(started);
    }

    /** @return the servers in start order, unmodifiable */
    public List<RedisServer> servers() {
        return servers;
    }

    /**
     * @param index the position in start order, from 0
     * @return that server
     * @throws IndexOutOfBoundsException if there is no such server
     */
    public RedisServer get(int index) {
        return servers.get(index);
    }

    /** @return how many servers there are */
    public int size() {
        return servers.size();
    }

    /** @return each server's {@link RedisServer#uri()}, in start order; a new array on each call */
    public String[] uris() {
        return servers.stream().map(RedisServer::uri).toArray(String[]::new);
    }

    /** Closes every server; idempotent, never throws. */
    @Override
    public void close() {
        servers.forEach(RedisServer::close);
    }
}
