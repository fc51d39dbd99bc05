package io.latchkey.faults;

import io.latchkey.testing.FaultProxy;
import io.latchkey.testing.RedisBinary;
import io.latchkey.testing.RedisServer;
import io.lettuce.core.KillArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * The Redis the locks live on, as the harness faults it: started here (with an append-only file,
 * {@code appendfsync always}, so that a restart can keep every acknowledged write) or given on
 * the command line, always behind a {@link FaultProxy} whose address is what the workers get.
 * Commands that fault it ({@code CLIENT KILL}, {@code DEBUG SLEEP}) go on an admin connection of
 * the harness's own, straight to Redis; signals and restarts need a server started here.
 */
final class LockRedis implements AutoCloseable {

    private static final Duration ADMIN_TIMEOUT = Duration.ofSeconds(10);

    private final RedisServer server;
    private final String uri;
    private final FaultProxy proxy;
    private final RedisClient adminClient;
    private final StatefulRedisConnection<String, String> admin;
    private final String description;

    private LockRedis(RedisServer server, String uri, String description) {
        this.server = server;
        this.uri = uri;
        this.description = description;
        RedisURI redisUri = RedisURI.create(uri);
        this.proxy = FaultProxy.to(redisUri.getHost(), redisUri.getPort());
        redisUri.setTimeout(ADMIN_TIMEOUT);
        this.adminClient = RedisClient.create(redisUri);
        this.admin = adminClient.connect();
    }

    /** Starts a {@code redis-server} through the test fixture, with AOF on and {@code DEBUG} allowed. */
    static LockRedis start() {
        RedisServer server = RedisBinary.atLeast(7)
                ? RedisServer.start("--appendonly", "yes", "--appendfsync", "always", "--enable-debug-command", "yes")
                : RedisServer.start("--appendonly", "yes", "--appendfsync", "always");
        try {
            return new LockRedis(server, server.uri(),
                    "started here: redis-server " + server.version() + " from " + server.binary() + ", AOF always");
        } catch (RuntimeException e) {
            server.close();
            throw e;
        }
    }

    /** Uses a Redis the user runs; faults that need its process are skipped. */
    static LockRedis given(String uri) {
        return new LockRedis(null, uri, "given with --redis");
    }

    /** @return the address the workers use: the proxy's */
    String workerUri() {
        return proxy.uri();
    }

    String description() {
        return description;
    }

    /** @return whether signals and restarts are possible: the harness started the server */
    boolean ownsProcess() {
        return server != null;
    }

    void pause() {
        server.pause();
    }

    void resume() {
        server.resume();
    }

    /**
     * {@code kill -9}, then starts the server again on the same port.
     *
     * @param keepData restart from the append-only file; false: delete it first, so Redis starts
     *        empty, as one without persistence does
     */
    void killAndRestart(boolean keepData) {
        server.kill();
        if (!keepData) {
            deleteData(server.logFile().getParent());
        }
        server.restart();
    }

    /** {@code CLIENT KILL TYPE normal|pubsub}, sparing the admin connection. */
    long clientKill(boolean pubSub) {
        return admin.sync().clientKill(pubSub ? KillArgs.Builder.typePubsub() : KillArgs.Builder.typeNormal());
    }

    /** {@code DEBUG SLEEP}: Redis stops answering for {@code duration}, its connections open. */
    void debugSleep(Duration duration) {
        StringCodec codec = StringCodec.UTF8;
        admin.sync().dispatch(CommandType.DEBUG, new StatusOutput<>(codec),
                new CommandArgs<>(codec).add("SLEEP").add(String.format(Locale.ROOT, "%.3f",
                        duration.toMillis() / 1000.0)));
    }

    /** Resets every worker connection (TCP RST on both sides). */
    void resetConnections() {
        proxy.resetAll();
    }

    private static void deleteData(Path dir) {
        for (String name : new String[] {"appendonlydir", "appendonly.aof", "dump.rdb"}) {
            Path path = dir.resolve(name);
            if (!Files.exists(path)) {
                continue;
            }
            try (Stream<Path> walk = Files.walk(path)) {
                for (Path each : (Iterable<Path>) walk.sorted(Comparator.reverseOrder())::iterator) {
                    Files.delete(each);
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot delete " + path, e);
            }
        }
    }

    @Override
    public void close() {
        admin.close();
        adminClient.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        proxy.close();
        if (server != null) {
            server.close();
        }
    }

    /** @return the server's own address, not the proxy's */
    String uri() {
        return uri;
    }
}
