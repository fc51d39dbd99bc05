package io.latchkey.faults;

import io.latchkey.testing.FaultProxy;
import io.latchkey.testing.RedisBinary;
import io.latchkey.testing.RedisCluster;
import io.latchkey.testing.RedisSentinelGroup;
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
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;

/**
 * The Redis the locks live on, as the harness faults it, in one of three shapes:
 * <ul>
 *   <li>one {@code redis-server} started here, with an append-only file ({@code appendfsync
 *       always}, so that a restart can keep every acknowledged write), behind a
 *       {@link FaultProxy} whose address is what the workers get;
 *   <li>a master, a replica and three Sentinels started here ({@code --topology sentinel}); the
 *       workers get the Sentinels' address, and there is no proxy;
 *   <li>a Cluster of three masters with a replica each ({@code --topology cluster}); the workers
 *       get every node as a seed, there is no proxy, and the faults aimed at "the master" hit
 *       the first master (a third of the slots);
 *   <li>a Redis given on the command line, behind a proxy; signals and restarts are then out of
 *       reach, and commands go on an admin connection of the harness's own.
 * </ul>
 * Commands that fault it ({@code CLIENT KILL}, {@code DEBUG SLEEP}) go straight to the current
 * master, never through the proxy. With one server (started or given), it is also the first of the RedLock's three masters
 * ({@link RedLockMasters}).
 */
final class LockRedis implements AutoCloseable {

    private static final Duration ADMIN_TIMEOUT = Duration.ofSeconds(10);
    private static final Duration FAILOVER_TIMEOUT = Duration.ofSeconds(30);
    /** What a worker's lock URI starts with when it is a list of Cluster seeds. */
    static final String CLUSTER_PREFIX = "cluster:";

    private final RedisServer server;
    private final RedisSentinelGroup group;
    private final RedisCluster cluster;
    private final FaultProxy proxy;
    private final RedisClient adminClient;
    private final StatefulRedisConnection<String, String> admin;
    private final String workerUri;
    private final String description;
    private RedisServer paused;

    private LockRedis(RedisServer server, RedisSentinelGroup group, RedisCluster cluster, String uri,
            String description) {
        this.server = server;
        this.group = group;
        this.cluster = cluster;
        this.description = description;
        if (group != null || cluster != null) {
            this.proxy = null;
            this.adminClient = null;
            this.admin = null;
            this.workerUri = group != null ? group.uri() : CLUSTER_PREFIX + String.join(",", cluster.seedUris());
            return;
        }
        RedisURI redisUri = RedisURI.create(uri);
        this.proxy = FaultProxy.to(redisUri.getHost(), redisUri.getPort());
        this.workerUri = proxy.uri();
        if (server != null) {
            this.adminClient = null;
            this.admin = null;
        } else {
            redisUri.setTimeout(ADMIN_TIMEOUT);
            this.adminClient = RedisClient.create(redisUri);
            this.admin = adminClient.connect();
        }
    }

    /** Starts a {@code redis-server} through the test fixture, with AOF on and {@code DEBUG} allowed. */
    static LockRedis start() {
        RedisServer server = RedisServer.start(serverArgs(true));
        try {
            return new LockRedis(server, null, null, server.uri(),
                    "started here: redis-server " + server.version() + " from " + server.binary() + ", AOF always");
        } catch (RuntimeException e) {
            server.close();
            throw e;
        }
    }

    /** Starts a master, one replica and three Sentinels through the test fixture. */
    static LockRedis startSentinel() {
        RedisSentinelGroup group = RedisSentinelGroup.start(1, 3, serverArgs(false));
        try {
            RedisServer master = group.master();
            return new LockRedis(null, group, null, group.uri(), "started here: a master, a replica and 3 Sentinels, "
                    + "redis-server " + master.version() + " from " + master.binary() + ", no persistence");
        } catch (RuntimeException e) {
            group.close();
            throw e;
        }
    }

    /** Uses a Redis the user runs; faults that need its process are skipped. */
    static LockRedis given(String uri) {
        return new LockRedis(null, null, null, uri, "given with --redis");
    }

    /** Starts a Cluster of three masters with one replica each through the test fixture. */
    static LockRedis startCluster() {
        RedisCluster cluster = RedisCluster.start(3, 1, serverArgs(false));
        try {
            RedisServer first = cluster.masters().get(0);
            return new LockRedis(null, null, cluster, null, "started here: a Cluster of 3 masters with a replica "
                    + "each, redis-server " + first.version() + " from " + first.binary() + ", no persistence");
        } catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    /** @return the arguments of a {@code redis-server} started here: {@code DEBUG} allowed, AOF if asked */
    static String[] serverArgs(boolean aof) {
        String[] debug = RedisBinary.atLeast(7) ? new String[] {"--enable-debug-command", "yes"} : new String[0];
        String[] persistence = aof ? new String[] {"--appendonly", "yes", "--appendfsync", "always"} : new String[0];
        return Stream.concat(Stream.of(persistence), Stream.of(debug)).toArray(String[]::new);
    }

    /** @return the address the workers use: the proxy's, or the Sentinels' */
    String workerUri() {
        return workerUri;
    }

    String description() {
        return description;
    }

    /** @return whether signals and restarts are possible: the harness started the servers */
    boolean ownsProcess() {
        return server != null || group != null || cluster != null;
    }

    Topology topology() {
        return group != null ? Topology.SENTINEL : cluster != null ? Topology.CLUSTER : Topology.SINGLE;
    }

    boolean hasProxy() {
        return proxy != null;
    }

    /** {@code SIGSTOP} of the (current) master. */
    void pause() {
        paused = master();
        paused.pause();
    }

    /** {@code SIGCONT} of the server {@link #pause()} stopped. */
    void resume() {
        paused.resume();
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

    /**
     * Kills the master (on a Cluster: the first), waits until its replica has taken over, then
     * restarts the old master as a replica of the new one and waits until it is linked, so that
     * the next failover finds a replica again.
     */
    void failover() {
        if (cluster != null) {
            RedisServer master = cluster.masters().get(0);
            master.kill();
            cluster.awaitHealthy(FAILOVER_TIMEOUT);
            master.restart();
            cluster.awaitHealthy(FAILOVER_TIMEOUT);
            return;
        }
        RedisServer master = group.master();
        master.kill();
        RedisServer promoted = group.awaitFailover(master, FAILOVER_TIMEOUT);
        rejoin(master, promoted);
    }

    /**
     * A Sentinel failover to a replica that missed the master's last writes, grants and fencing
     * counter increments among them. Replication is asynchronous, but on loopback a replica is
     * rarely more than a millisecond behind, so a plain {@code kill -9} almost never loses a write;
     * this makes the loss certain:
     * <ol>
     *   <li>{@code SIGSTOP} of the replica, so that it cannot reconnect;
     *   <li>{@code CLIENT KILL TYPE replica} on the master: the replication link is cut, and what
     *       the master writes from now on reaches no replica (what it wrote before may still sit in
     *       the replica's socket buffer; that is applied on {@code SIGCONT}, and belongs to before);
     *   <li>the master goes on serving for {@code cut}, and until a fencing counter moved;
     *   <li>{@code kill -9} of the master, then {@code SIGCONT} of the replica: it reads what was
     *       buffered, finds the link closed and the master gone, and the Sentinels promote it.
     * </ol>
     * The replica is stopped for less than the Sentinels' {@code down-after-milliseconds} unless
     * the workers are slow to take a hold, so the Sentinels still find it fit to promote. The old
     * master is then restarted as a replica, as in {@link #failover()}.
     *
     * @param cut how long the master serves alone before it is killed, at least
     * @return what the promoted replica missed, in words, for the report's notes
     */
    String failoverToLaggingReplica(Duration cut) {
        RedisServer master = group.master();
        RedisServer replica = group.dataNodes().stream().filter(node -> node != master).findFirst()
                .orElseThrow(() -> new IllegalStateException("no replica of " + master));
        Map<String, String> lost;
        long lostOffset;
        replica.pause();
        try {
            master.command("CLIENT", "KILL", "TYPE", "replica");
            Map<String, String> atCut = fenceCounters(master);
            long end = System.nanoTime() + cut.toNanos();
            long deadline = end + FAILOVER_TIMEOUT.toNanos();
            do {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
                lost = fenceCounters(master);
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException("no fencing counter moved on " + master + " within "
                            + FAILOVER_TIMEOUT.toSeconds() + " s");
                }
            } while (System.nanoTime() - end < 0 || lost.equals(atCut));
            lostOffset = Long.parseLong(master.info("replication", "master_repl_offset").orElse("0"));
            master.kill();
        } finally {
            replica.resume();
        }
        // The replica applies what its socket held before it sees the link closed.
        long deadline = System.nanoTime() + FAILOVER_TIMEOUT.toNanos();
        while (!replica.info("replication", "master_link_status").equals(Optional.of("down"))) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException(replica + " did not see its master go within "
                        + FAILOVER_TIMEOUT.toSeconds() + " s");
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
        Map<String, String> kept = fenceCounters(replica);
        long keptOffset = Long.parseLong(replica.info("replication", "slave_repl_offset").orElse("0"));
        RedisServer promoted = group.awaitFailover(master, FAILOVER_TIMEOUT);
        if (promoted != replica) {
            throw new IllegalStateException("the Sentinels promoted " + promoted + ", not " + replica);
        }
        rejoin(master, promoted);
        long behind = lost.entrySet().stream()
                .filter(counter -> Long.parseLong(kept.getOrDefault(counter.getKey(), "0"))
                        < Long.parseLong(counter.getValue()))
                .count();
        return String.format(Locale.ROOT, "the promoted replica missed the last %,d bytes of replication; "
                + "%d of the lost master's %d fencing counters were behind on it", lostOffset - keptOffset,
                behind, lost.size());
    }

    /** @return every fencing counter of the default key prefix on {@code server}: key → value */
    private static Map<String, String> fenceCounters(RedisServer server) {
        Map<String, String> counters = new TreeMap<>();
        Object keys = server.command("KEYS", "latchkey:fence:*");
        for (Object key : (List<?>) keys) {
            Object value = server.command("GET", (String) key);
            if (value != null) {
                counters.put((String) key, (String) value);
            }
        }
        return counters;
    }

    /** Restarts {@code old} (killed) as a replica of {@code promoted} and waits until it is linked. */
    private static void rejoin(RedisServer old, RedisServer promoted) {
        old.restart();
        // As an operator's config would: left to Sentinel, the conversion waits for two of its
        // 10 s INFO rounds and 8 s more, which a loaded machine stretched past the timeout.
        old.command("REPLICAOF", promoted.host(), Integer.toString(promoted.port()));
        long deadline = System.nanoTime() + FAILOVER_TIMEOUT.toNanos();
        while (!linkedTo(old, promoted)) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException(old + " did not become a replica of " + promoted + " within "
                        + FAILOVER_TIMEOUT.toSeconds() + " s");
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
        }
    }

    /** {@code FLUSHALL} on the (first) master: every key gone, the holds and fencing counters too. */
    void flushAll() {
        master().command("FLUSHALL");
    }

    private static boolean linkedTo(RedisServer replica, RedisServer master) {
        try {
            return replica.info("replication", "master_port").equals(Optional.of(Integer.toString(master.port())))
                    && replica.info("replication", "master_link_status").equals(Optional.of("up"));
        } catch (RuntimeException notYet) {
            return false;
        }
    }

    /** {@code CLIENT KILL TYPE normal|pubsub}, sparing the connection that sends it. */
    void clientKill(boolean pubSub) {
        if (admin != null) {
            admin.sync().clientKill(pubSub ? KillArgs.Builder.typePubsub() : KillArgs.Builder.typeNormal());
        } else {
            master().command("CLIENT", "KILL", "TYPE", pubSub ? "pubsub" : "normal");
        }
    }

    /** {@code DEBUG SLEEP}: Redis stops answering for {@code duration}, its connections open. */
    void debugSleep(Duration duration) {
        String seconds = String.format(Locale.ROOT, "%.3f", duration.toMillis() / 1000.0);
        if (admin != null) {
            StringCodec codec = StringCodec.UTF8;
            admin.sync().dispatch(CommandType.DEBUG, new StatusOutput<>(codec),
                    new CommandArgs<>(codec).add("SLEEP").add(seconds));
        } else {
            master().command("DEBUG", "SLEEP", seconds);
        }
    }

    /** Resets every worker connection (TCP RST on both sides). */
    void resetConnections() {
        proxy.resetAll();
    }

    private RedisServer master() {
        if (cluster != null) {
            return cluster.masters().get(0);
        }
        return server != null ? server : group.master();
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
        if (admin != null) {
            admin.close();
            adminClient.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
        if (proxy != null) {
            proxy.close();
        }
        if (server != null) {
            server.close();
        }
        if (group != null) {
            group.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }
}
