package io.latchkey.testing;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A small Redis Cluster of real {@code redis-server} processes on loopback ports: some masters
 * that share the 16384 slots evenly, and as many replicas per master as asked.
 *
 * <p>Nodes run with {@code --cluster-node-timeout 1000} and
 * {@code --cluster-replica-validity-factor 0}, so that when a master is killed its replica takes
 * over within a few seconds; extra arguments override these. Each node keeps its cluster
 * configuration in its own directory, so a node that is {@link RedisServer#restart() restarted}
 * rejoins the cluster (its data, which is not persisted, is gone).
 *
 * <p>The cluster is created with {@code redis-cli --cluster create}, with the {@code redis-cli}
 * beside the {@code redis-server} binary or on {@code PATH}; without one, or with
 * {@value #CLI_PROPERTY}{@code =none}, with {@code CLUSTER ADDSLOTS}, {@code MEET} and
 * {@code REPLICATE} sent by the fixture itself.
 *
 * <p>Thread-safe; the list of nodes is fixed at start. Always {@link #close()} it.
 */
public final class RedisCluster implements AutoCloseable {

    /** System property naming the {@code redis-cli} to create clusters with, or {@code none}. */
    public static final String CLI_PROPERTY = "latchkey.redis.cli";

    /** The number of hash slots of every Redis Cluster. */
    public static final int SLOTS = 16384;

    private static final Logger log = LoggerFactory.getLogger(RedisCluster.class);
    private static final String HOST = "127.0.0.1";
    private static final int BUS_PORT_OFFSET = 10000;
    private static final Duration SETTLE_TIMEOUT = Duration.ofSeconds(30);
    private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    private static final Pattern SLOT_RANGE = Pattern.compile("\\d+(-\\d+)?");

    private final List<RedisServer> nodes;

    private RedisCluster(List<RedisServer> nodes) {
        this.nodes = List.copyOf(nodes);
    }

    /**
     * Starts {@code masters * (1 + replicasPerMaster)} nodes, joins them into one cluster and
     * waits until every node reports the cluster healthy and every replica is in sync.
     *
     * @param masters how many masters share the slots, at least 3 (Redis's own minimum)
     * @param replicasPerMaster replicas of each master, 0 or more
     * @param extraArgs arguments appended to every node's command line
     * @return the running, healthy cluster
     * @throws IllegalArgumentException if {@code masters < 3} or {@code replicasPerMaster < 0}
     * @throws RedisFixtureException if a node does not come up or the cluster does not form
     *         within 30 seconds
     */
    public static RedisCluster start(int masters, int replicasPerMaster, String... extraArgs) {
        if (masters < 3 || replicasPerMaster < 0) {
            throw new IllegalArgumentException("need at least 3 masters and no negative replica count: "
                    + masters + ", " + replicasPerMaster);
        }
        List<String> args = new ArrayList<>(List.of(
                "--cluster-enabled", "yes",
                "--cluster-config-file", "nodes.conf",
                "--cluster-node-timeout", "1000",
                "--cluster-replica-validity-factor", "0"));
        args.addAll(List.of(extraArgs));
        String[] nodeArgs = args.toArray(String[]::new);
        int count = masters * (1 + replicasPerMaster);
        List<RedisServer> started = new ArrayList<>(count);
        try {
            for (int i = 0; i < count; i++) {
                started.add(RedisServer.start(() -> FreePorts.pickPair(HOST, BUS_PORT_OFFSET), nodeArgs));
            }
            RedisCluster cluster = new RedisCluster(started);
            Optional<Path> cli = redisCli();
            if (cli.isPresent()) {
                cluster.createWithCli(cli.get(), replicasPerMaster);
            } else {
                cluster.createWithCommands(masters, replicasPerMaster);
            }
            cluster.awaitHealthy(SETTLE_TIMEOUT);
            return cluster;
        } catch (RuntimeException | Error e) {
            started.forEach(RedisServer::close);
            throw e;
        }
    }

    /** @return every node in start order (masters first, as created), unmodifiable */
    public List<RedisServer> nodes() {
        return nodes;
    }

    /** @return every node's {@link RedisServer#uri()}, each a seed for a cluster client; a new array on each call */
    public String[] seedUris() {
        return nodes.stream().map(RedisServer::uri).toArray(String[]::new);
    }

    /**
     * @param key a key or channel name
     * @return its hash slot, as {@code CLUSTER KEYSLOT} computes it
     */
    public int slotOf(String key) {
        return Math.toIntExact((Long) anyRunningNode().command("CLUSTER", "KEYSLOT", key));
    }

    /**
     * @return the running nodes that serve slots now, as a running node sees the cluster,
     *         ordered by their first slot
     * @throws RedisFixtureException if no node runs
     */
    public List<RedisServer> masters() {
        return view(anyRunningNode()).values().stream().distinct().filter(RedisServer::isRunning).toList();
    }

    /**
     * @param key a key or channel name
     * @return the node that serves the key's slot now, as a running node sees the cluster
     * @throws RedisFixtureException if no node runs or the slot has no owner
     */
    public RedisServer masterFor(String key) {
        int slot = slotOf(key);
        Map.Entry<Integer, RedisServer> owner = view(anyRunningNode()).floorEntry(slot);
        if (owner == null) {
            throw new RedisFixtureException("no node serves slot " + slot);
        }
        return owner.getValue();
    }

    /**
     * @param master a node of this cluster
     * @return the running nodes that replicate it now
     */
    public List<RedisServer> replicasOf(RedisServer master) {
        String masterId = nodeId(master);
        List<RedisServer> replicas = new ArrayList<>();
        for (ClusterNode node : clusterNodes(anyRunningNode())) {
            if (masterId.equals(node.masterId)) {
                find(node.port).filter(RedisServer::isRunning).ifPresent(replicas::add);
            }
        }
        return replicas;
    }

    /**
     * Waits until the running nodes agree on who serves every slot, only running nodes serve
     * slots, every running node reports {@code cluster_state:ok}, and every running replica is
     * linked to its master. Call it after killing a master to wait for its replica to take over.
     *
     * @param timeout how long to wait at most
     * @throws RedisFixtureException if the cluster is not healthy in time; the message says why
     */
    public void awaitHealthy(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        String problem;
        while (true) {
            problem = healthProblem();
            if (problem == null) {
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new RedisFixtureException("the cluster is not healthy after " + timeout.toMillis() + " ms: " + problem);
            }
            LockSupport.parkNanos(POLL_NANOS);
        }
    }

    /** Closes every node; idempotent, never throws. */
    @Override
    public void close() {
        nodes.forEach(RedisServer::close);
    }

    @Override
    public String toString() {
        return "redis cluster " + nodes.stream().map(node -> Integer.toString(node.port())).collect(Collectors.joining(","));
    }

    // ---- creation --------------------------------------------------------------------------------

    private static Optional<Path> redisCli() {
        String property = System.getProperty(CLI_PROPERTY);
        if ("none".equalsIgnoreCase(property)) {
            return Optional.empty();
        }
        if (property != null && !property.isBlank()) {
            return Optional.of(Paths.get(property));
        }
        Path beside = RedisBinary.path().toAbsolutePath().resolveSibling("redis-cli");
        if (Files.isExecutable(beside)) {
            return Optional.of(beside);
        }
        String path = System.getenv("PATH");
        if (path == null) {
            return Optional.empty();
        }
        return Arrays.stream(path.split(Pattern.quote(File.pathSeparator)))
                .filter(dir -> !dir.isEmpty())
                .map(dir -> Paths.get(dir, "redis-cli"))
                .filter(Files::isExecutable)
                .findFirst();
    }

    private void createWithCli(Path cli, int replicasPerMaster) {
        List<String> command = new ArrayList<>(List.of(cli.toString(), "--cluster", "create"));
        nodes.forEach(node -> command.add(HOST + ":" + node.port()));
        command.addAll(List.of("--cluster-replicas", Integer.toString(replicasPerMaster), "--cluster-yes"));
        Path output = null;
        try {
            output = Files.createTempFile("latchkey-cluster-create-", ".txt");
            Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile()).start();
            process.getOutputStream().close();
            if (!process.waitFor(SETTLE_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new RedisFixtureException(String.join(" ", command) + " did not finish within "
                        + SETTLE_TIMEOUT.toSeconds() + " s: " + Files.readString(output, StandardCharsets.UTF_8));
            }
            String text = Files.readString(output, StandardCharsets.UTF_8);
            if (process.exitValue() != 0 || !text.contains("All 16384 slots covered")) {
                throw new RedisFixtureException(String.join(" ", command) + " failed with exit code "
                        + process.exitValue() + ": " + text.strip());
            }
            log.debug("Created {} with {}", this, cli);
        } catch (IOException e) {
            throw new RedisFixtureException("cannot run " + String.join(" ", command), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RedisFixtureException("interrupted while creating " + this, e);
        } finally {
            if (output != null) {
                output.toFile().delete();
            }
        }
    }

    /** What {@code redis-cli --cluster create} does, for hosts without it. */
    private void createWithCommands(int masters, int replicasPerMaster) {
        for (int i = 0; i < nodes.size(); i++) {
            nodes.get(i).command("CLUSTER", "SET-CONFIG-EPOCH", Integer.toString(i + 1));
        }
        for (int i = 0; i < masters; i++) {
            List<String> addSlots = new ArrayList<>(List.of("CLUSTER", "ADDSLOTS"));
            for (int slot = SLOTS * i / masters; slot < SLOTS * (i + 1) / masters; slot++) {
                addSlots.add(Integer.toString(slot));
            }
            nodes.get(i).command(addSlots.toArray(String[]::new));
        }
        RedisServer first = nodes.get(0);
        for (RedisServer node : nodes.subList(1, nodes.size())) {
            first.command("CLUSTER", "MEET", HOST, Integer.toString(node.port()));
        }
        long deadline = System.nanoTime() + SETTLE_TIMEOUT.toNanos();
        for (RedisServer node : nodes) {
            while (!Integer.toString(nodes.size()).equals(clusterInfo(node, "cluster_known_nodes"))) {
                if (System.nanoTime() - deadline > 0) {
                    throw new RedisFixtureException(node + " did not learn of every node of " + this);
                }
                LockSupport.parkNanos(POLL_NANOS);
            }
        }
        for (int i = masters; i < nodes.size(); i++) {
            RedisServer master = nodes.get((i - masters) % masters);
            nodes.get(i).command("CLUSTER", "REPLICATE", nodeId(master));
        }
        log.debug("Created {} with CLUSTER commands", this);
    }

    // ---- inspection ------------------------------------------------------------------------------

    private String healthProblem() {
        List<RedisServer> running = nodes.stream().filter(RedisServer::isRunning).toList();
        if (running.isEmpty()) {
            return "no node runs";
        }
        String agreed = null;
        for (RedisServer node : running) {
            String state;
            List<ClusterNode> view;
            try {
                state = clusterInfo(node, "cluster_state");
                view = clusterNodes(node);
            } catch (RedisFixtureException e) {
                return e.getMessage();
            }
            if (!"ok".equals(state)) {
                return node + " reports cluster_state:" + state;
            }
            String owners = view.stream().filter(n -> !n.slots.isEmpty())
                    .map(n -> n.port + "=" + n.slots).sorted().collect(Collectors.joining(" "));
            if (agreed == null) {
                agreed = owners;
            } else if (!agreed.equals(owners)) {
                return "nodes disagree on slot owners: " + agreed + " vs " + owners;
            }
            for (ClusterNode other : view) {
                if (!other.slots.isEmpty() && find(other.port).map(server -> !server.isRunning()).orElse(true)) {
                    return "slots " + other.slots + " are still served by stopped node " + other.port;
                }
            }
            if (view.stream().anyMatch(n -> n.myself && n.masterId != null)
                    && !"up".equals(node.info("replication", "master_link_status").orElse(""))) {
                return "replica " + node + " is not linked to its master";
            }
        }
        return null;
    }

    /** Slot ranges' first slots to the node serving them, as {@code node} sees the cluster. */
    private TreeMap<Integer, RedisServer> view(RedisServer node) {
        TreeMap<Integer, RedisServer> owners = new TreeMap<>();
        for (ClusterNode entry : clusterNodes(node)) {
            Optional<RedisServer> server = find(entry.port);
            for (String range : entry.slots) {
                int dash = range.indexOf('-');
                int first = Integer.parseInt(dash < 0 ? range : range.substring(0, dash));
                server.ifPresent(s -> owners.put(first, s));
            }
        }
        return owners;
    }

    private String nodeId(RedisServer node) {
        return String.valueOf(node.command("CLUSTER", "MYID"));
    }

    private RedisServer anyRunningNode() {
        return nodes.stream().filter(RedisServer::isRunning).filter(node -> node.ping(Duration.ofMillis(500)))
                .findFirst().orElseThrow(() -> new RedisFixtureException("no node of " + this + " runs"));
    }

    private Optional<RedisServer> find(int port) {
        return nodes.stream().filter(node -> node.port() == port).findFirst();
    }

    private static String clusterInfo(RedisServer node, String field) {
        String prefix = field + ":";
        return String.valueOf(node.command("CLUSTER", "INFO")).lines()
                .filter(line -> line.startsWith(prefix)).map(line -> line.substring(prefix.length()).strip())
                .findFirst().orElse("");
    }

    private static List<ClusterNode> clusterNodes(RedisServer node) {
        List<ClusterNode> parsed = new ArrayList<>();
        for (String line : String.valueOf(node.command("CLUSTER", "NODES")).split("\n")) {
            if (!line.isBlank()) {
                parsed.add(ClusterNode.parse(line.strip()));
            }
        }
        return parsed;
    }

    /** One line of {@code CLUSTER NODES}. */
    private static final class ClusterNode {
        final int port;
        final boolean myself;
        final String masterId;
        final List<String> slots;

        private ClusterNode(int port, boolean myself, String masterId, List<String> slots) {
            this.port = port;
            this.myself = myself;
            this.masterId = masterId;
            this.slots = slots;
        }

        static ClusterNode parse(String line) {
            // <id> <ip:port@bus[,hostname]> <flags> <master> <ping> <pong> <epoch> <link> <slot>...
            String[] fields = line.split(" ");
            String address = fields[1];
            int colon = address.lastIndexOf(':', address.indexOf('@') < 0 ? address.length() : address.indexOf('@'));
            int end = address.indexOf('@') < 0 ? address.length() : address.indexOf('@');
            int port = Integer.parseInt(address.substring(colon + 1, end));
            List<String> flags = List.of(fields[2].split(","));
            boolean failed = flags.contains("fail") || flags.contains("noaddr");
            String master = "-".equals(fields[3]) ? null : fields[3];
            List<String> slots = new ArrayList<>();
            if (!failed) {
                for (int i = 8; i < fields.length; i++) {
                    if (SLOT_RANGE.matcher(fields[i]).matches()) {
                        slots.add(fields[i]);
                    }
                }
            }
            return new ClusterNode(port, flags.contains("myself"), master, slots);
        }
    }
}
