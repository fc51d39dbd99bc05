package io.latchkey.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;

/**
 * A master with replicas, watched by Sentinels, all real processes on loopback ports: what a
 * {@code redis-sentinel://} URI points at.
 *
 * <p>Sentinels run with {@code down-after-milliseconds 1000} and {@code failover-timeout 3000},
 * so that a killed master is replaced by a replica within a few seconds. The group is named
 * {@value #MASTER_NAME}.
 *
 * <p>Thread-safe; the lists of servers are fixed at start. Always {@link #close()} it.
 */
public final class RedisSentinelGroup implements AutoCloseable {

    /** The name under which the Sentinels monitor the master. */
    public static final String MASTER_NAME = "latchkey";

    private static final String HOST = "127.0.0.1";
    private static final Duration SETTLE_TIMEOUT = Duration.ofSeconds(30);
    private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    private final List<RedisServer> dataNodes;
    private final List<RedisServer> sentinels;

    private RedisSentinelGroup(List<RedisServer> dataNodes, List<RedisServer> sentinels) {
        this.dataNodes = List.copyOf(dataNodes);
        this.sentinels = List.copyOf(sentinels);
    }

    /**
     * Starts a master, its replicas and the Sentinels, and waits until every Sentinel sees the
     * master, every replica and every other Sentinel, so that a failover can start at once.
     *
     * @param replicas how many replicas, at least 1
     * @param sentinelCount how many Sentinels, at least 1; the quorum is a majority of them
     * @param extraArgs arguments appended to the command line of the master and the replicas,
     *        for example {@code "--replica-read-only", "no"}
     * @return the running group
     * @throws IllegalArgumentException if a count is too small
     * @throws RedisFixtureException if a process does not come up or the Sentinels do not see
     *         the whole group within 30 seconds
     */
    public static RedisSentinelGroup start(int replicas, int sentinelCount, String... extraArgs) {
        if (replicas < 1 || sentinelCount < 1) {
            throw new IllegalArgumentException("need at least one replica and one sentinel: " + replicas + ", " + sentinelCount);
        }
        List<RedisServer> data = new ArrayList<>();
        List<RedisServer> watchers = new ArrayList<>();
        try {
            RedisServer master = RedisServer.start(extraArgs);
            data.add(master);
            for (int i = 0; i < replicas; i++) {
                List<String> args = new ArrayList<>(List.of(extraArgs));
                args.addAll(List.of("--replicaof", HOST, Integer.toString(master.port())));
                data.add(RedisServer.start(args.toArray(String[]::new)));
            }
            String config = "sentinel monitor " + MASTER_NAME + " " + HOST + " " + master.port() + " " + (sentinelCount / 2 + 1) + "\n"
                    + "sentinel down-after-milliseconds " + MASTER_NAME + " 1000\n"
                    + "sentinel failover-timeout " + MASTER_NAME + " 3000\n"
                    + "sentinel parallel-syncs " + MASTER_NAME + " 1\n";
            for (int i = 0; i < sentinelCount; i++) {
                watchers.add(RedisServer.startWithConfig(() -> FreePorts.pick(HOST), config, "--sentinel"));
            }
            RedisSentinelGroup group = new RedisSentinelGroup(data, watchers);
            group.awaitSettled(master, SETTLE_TIMEOUT);
            return group;
        } catch (RuntimeException | Error e) {
            watchers.forEach(RedisServer::close);
            data.forEach(RedisServer::close);
            throw e;
        }
    }

    /** @return {@code redis-sentinel://127.0.0.1:<port>,...#latchkey}, naming every Sentinel */
    public String uri() {
        return "redis-sentinel://" + sentinels.stream().map(s -> HOST + ":" + s.port()).collect(Collectors.joining(","))
                + "#" + MASTER_NAME;
    }

    /** @return the master and the replicas, the initial master first, unmodifiable */
    public List<RedisServer> dataNodes() {
        return dataNodes;
    }

    /** @return the Sentinels, unmodifiable */
    public List<RedisServer> sentinels() {
        return sentinels;
    }

    /**
     * @return the master as the first running Sentinel reports it
     * @throws RedisFixtureException if no Sentinel answers or it names an unknown server
     */
    public RedisServer master() {
        for (RedisServer sentinel : sentinels) {
            if (sentinel.isRunning()) {
                Optional<RedisServer> master = reportedMaster(sentinel);
                if (master.isPresent()) {
                    return master.get();
                }
            }
        }
        throw new RedisFixtureException("no sentinel of " + this + " names a master");
    }

    /**
     * Waits until every running Sentinel names a running master other than {@code previous},
     * that master says it is one, and every running replica is linked to it: the end of a
     * failover, as a client reconnecting now would see it.
     *
     * @param previous the master that failed
     * @param timeout how long to wait at most
     * @return the new master
     * @throws RedisFixtureException if the failover does not finish in time
     */
    public RedisServer awaitFailover(RedisServer previous, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            Optional<RedisServer> master = settledMaster();
            if (master.isPresent() && master.get() != previous) {
                return master.get();
            }
            if (System.nanoTime() - deadline > 0) {
                throw new RedisFixtureException("no failover away from " + previous + " within " + timeout.toMillis() + " ms");
            }
            LockSupport.parkNanos(POLL_NANOS);
        }
    }

    /** Closes every server and Sentinel; idempotent, never throws. */
    @Override
    public void close() {
        sentinels.forEach(RedisServer::close);
        dataNodes.forEach(RedisServer::close);
    }

    @Override
    public String toString() {
        return "sentinel group " + MASTER_NAME + " " + uri();
    }

    private void awaitSettled(RedisServer master, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        String problem;
        while ((problem = problem(master)) != null) {
            if (System.nanoTime() - deadline > 0) {
                throw new RedisFixtureException(this + " did not settle within " + timeout.toMillis() + " ms: " + problem);
            }
            LockSupport.parkNanos(POLL_NANOS);
        }
    }

    private String problem(RedisServer master) {
        for (RedisServer replica : dataNodes) {
            if (replica != master && !"up".equals(replica.info("replication", "master_link_status").orElse(""))) {
                return replica + " is not linked to its master";
            }
        }
        for (RedisServer sentinel : sentinels) {
            List<String> state = masterState(sentinel);
            String replicas = field(state, "num-slaves");
            String others = field(state, "num-other-sentinels");
            if (!Integer.toString(dataNodes.size() - 1).equals(replicas) || !Integer.toString(sentinels.size() - 1).equals(others)) {
                return sentinel + " sees " + replicas + " replicas and " + others + " other sentinels";
            }
        }
        return null;
    }

    private Optional<RedisServer> settledMaster() {
        RedisServer agreed = null;
        for (RedisServer sentinel : sentinels) {
            if (!sentinel.isRunning()) {
                continue;
            }
            Optional<RedisServer> master;
            try {
                master = reportedMaster(sentinel);
            } catch (RedisFixtureException e) {
                return Optional.empty();
            }
            if (master.isEmpty() || (agreed != null && agreed != master.get())) {
                return Optional.empty();
            }
            agreed = master.get();
        }
        if (agreed == null || !agreed.isRunning() || !"master".equals(agreed.info("replication", "role").orElse(""))) {
            return Optional.empty();
        }
        for (RedisServer replica : dataNodes) {
            if (replica != agreed && replica.isRunning()) {
                String linkedTo = replica.info("replication", "master_port").orElse("");
                String link = replica.info("replication", "master_link_status").orElse("");
                if (!Integer.toString(agreed.port()).equals(linkedTo) || !"up".equals(link)) {
                    return Optional.empty();
                }
            }
        }
        return Optional.of(agreed);
    }

    private Optional<RedisServer> reportedMaster(RedisServer sentinel) {
        Object reply = sentinel.command("SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER_NAME);
        if (!(reply instanceof List<?>) || ((List<?>) reply).size() != 2) {
            return Optional.empty();
        }
        int port = Integer.parseInt(String.valueOf(((List<?>) reply).get(1)));
        return dataNodes.stream().filter(node -> node.port() == port).findFirst();
    }

    private static List<String> masterState(RedisServer sentinel) {
        Object reply = sentinel.command("SENTINEL", "MASTER", MASTER_NAME);
        List<String> fields = new ArrayList<>();
        if (reply instanceof List<?>) {
            ((List<?>) reply).forEach(item -> fields.add(String.valueOf(item)));
        }
        return fields;
    }

    private static String field(List<String> flat, String name) {
        for (int i = 0; i + 1 < flat.size(); i += 2) {
            if (flat.get(i).equals(name)) {
                return flat.get(i + 1);
            }
        }
        return "";
    }
}
