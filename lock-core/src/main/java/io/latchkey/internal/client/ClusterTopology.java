package io.latchkey.internal.client;

import io.latchkey.LockConfig;
import io.latchkey.internal.redis.Failures;
import io.latchkey.internal.redis.LockExceptions;
import io.latchkey.internal.redis.Redaction;
import io.latchkey.internal.redis.RedisExecutor;
import io.latchkey.internal.redis.Retries;
import io.latchkey.internal.wakeup.UnlockSubscriptions;
import io.latchkey.internal.wakeup.UnlockSubscriptions.SubscriptionCommands;
import io.latchkey.spi.Ticker;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.event.ClusterTopologyChangedEvent;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode.NodeFlag;
import io.lettuce.core.cluster.pubsub.StatefulRedisClusterPubSubConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.event.connection.ConnectionActivatedEvent;
import io.lettuce.core.event.connection.DisconnectedEvent;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import org.jspecify.annotations.Nullable;

/**
 * A Redis Cluster through Lettuce's cluster client: commands go to the master of their key's
 * slot, {@code MOVED} and {@code ASK} redirections are followed, and the client's view of the
 * cluster is refreshed on redirections, on persistent reconnects, on uncovered slots and every
 * {@link #PERIODIC_REFRESH}. Nodes marked failed are left out of that view, so that their
 * connections close instead of reconnecting forever.
 *
 * <p>Unlock messages use sharded pub/sub ({@code SPUBLISH}/{@code SSUBSCRIBE}) when every master
 * runs Redis 7 or newer: each channel lives on its slot's master and moves with it
 * ({@link ShardedSubscriptions}). On older servers they use classic pub/sub, which the cluster
 * broadcasts to every node, on one node connection that Lettuce moves to another node if its
 * node fails.
 */
final class ClusterTopology implements RedisTopology {

    private static final Logger log = LoggerFactory.getLogger(ClusterTopology.class);

    /** How often the view of the cluster is refreshed when nothing else triggers it. */
    static final Duration PERIODIC_REFRESH = Duration.ofSeconds(10);
    /** The least time between two refreshes that redirections or reconnects trigger. */
    static final Duration ADAPTIVE_REFRESH_LIMIT = Duration.ofSeconds(1);
    private static final int SHARDED_PUBSUB_MAJOR_VERSION = 7;
    /*
     * Connecting is tried again, for up to the connect timeout, when a connection that had just
     * opened was down again by its first command: seen in soaks on a loaded machine, where the
     * seed's connection failed its CLUSTER NODES, or a master's its INFO, with "Currently not
     * connected" right after the handshake. A refusal (a wrong password, no route) is not.
     */
    private static final long RETRY_FIRST_PAUSE_MILLIS = 20;
    private static final long RETRY_MAX_PAUSE_MILLIS = 200;

    private final RedisClusterClient client;
    private final StatefulRedisClusterConnection<String, String> connection;
    private final StatefulRedisClusterPubSubConnection<String, String> pubSub;
    private final RedisExecutor executor;
    private final @Nullable ShardedSubscriptions sharded;
    private final Disposable topologyChanges;

    private ClusterTopology(SharedResources resources, RedisClusterClient client,
                            StatefulRedisClusterConnection<String, String> connection,
                            StatefulRedisClusterPubSubConnection<String, String> pubSub,
                            boolean useShardedPubSub, Duration commandTimeout, String where, Ticker ticker) {
        this.client = client;
        this.connection = connection;
        this.pubSub = pubSub;
        this.executor = RedisExecutor.forCluster(connection, commandTimeout, where, resources.timer(), ticker);
        if (useShardedPubSub) {
            this.sharded = new ShardedSubscriptions(pubSub, client::getPartitions, client::refreshPartitionsAsync,
                    resources.timer());
            pubSub.setNodeMessagePropagation(true);
            pubSub.addListener(sharded);
        } else {
            this.sharded = null;
        }
        this.topologyChanges = resources.lettuce().eventBus().get().subscribe(event -> {
            if (event instanceof ClusterTopologyChangedEvent change) {
                // Lettuce announces a change before it updates its own view, so the event's nodes decide.
                connectToMasters(change.after());
                if (sharded != null) {
                    sharded.reroute(ShardedSubscriptions.topologyOf(change.after()));
                }
            } else if (sharded != null && event instanceof DisconnectedEvent lost) {
                sharded.connectionLost(lost.remoteAddress());
            } else if (sharded != null && event instanceof ConnectionActivatedEvent restored) {
                sharded.connectionRestored(restored.remoteAddress());
            }
        });
    }

    static ClusterTopology connect(List<String> seeds, LockConfig config, SharedResources resources, Ticker ticker) {
        List<RedisURI> uris = seeds.stream().map(seed -> ConnectionOptions.uri(seed, config)).toList();
        String where = seeds.stream().map(Redaction::uri).collect(Collectors.joining(", ", "cluster [", "]"));
        RedisClusterClient client = RedisClusterClient.create(resources.lettuce(), uris);
        ClusterTopologyRefreshOptions refresh = ClusterTopologyRefreshOptions.builder()
                .enablePeriodicRefresh(PERIODIC_REFRESH)
                // Every adaptive trigger is on by default since Lettuce 7; only their rate limit is ours.
                .adaptiveRefreshTriggersTimeout(ADAPTIVE_REFRESH_LIMIT)
                .closeStaleConnections(true)
                .dynamicRefreshSources(true)
                .build();
        client.setOptions(ConnectionOptions.apply(ClusterClientOptions.builder(), config)
                .topologyRefreshOptions(refresh)
                .nodeFilter(node -> !(node.is(NodeFlag.FAIL) || node.is(NodeFlag.NOADDR) || node.is(NodeFlag.HANDSHAKE)))
                .build());
        try {
            Retries retries = new Retries(resources.timer(), ticker, RETRY_FIRST_PAUSE_MILLIS, RETRY_MAX_PAUSE_MILLIS);
            long deadlineNanos = ticker.read() + ConnectionOptions.connectTimeout(config).toNanos();
            // On the caller's thread, as LockClient.create is: Lettuce's blocking connect loads the
            // view of the cluster first, which its connectAsync leaves to the caller.
            StatefulRedisClusterConnection<String, String> connection = retries.blocking(
                    () -> client.connect(StringCodec.UTF8), ClusterTopology::droppedAsItOpened, deadlineNanos);
            StatefulRedisClusterPubSubConnection<String, String> pubSub = retries.blocking(
                    () -> client.connectPubSub(StringCodec.UTF8), ClusterTopology::droppedAsItOpened, deadlineNanos);
            boolean useShardedPubSub = everyMasterAtLeast(connection, SHARDED_PUBSUB_MAJOR_VERSION, retries, deadlineNanos);
            log.debug("Connected to {}; unlock messages use {} pub/sub", where, useShardedPubSub ? "sharded" : "classic");
            return new ClusterTopology(resources, client, connection, pubSub, useShardedPubSub, config.commandTimeout(), where, ticker);
        } catch (RuntimeException e) {
            client.shutdown(0, 2, TimeUnit.SECONDS);
            // A version probe's failure arrives wrapped, as join() throws it.
            RuntimeException cause = e instanceof CompletionException && e.getCause() instanceof RuntimeException probe ? probe : e;
            // The credentials and TLS of the first seed apply to all.
            throw LockExceptions.connectFailed(where, LoginProbe.explain(cause, uris.get(0), config, resources.lettuce()));
        }
    }

    /**
     * Opens the connection to every master that slot-routed commands will use, and asks each for
     * its version: one master older than {@code major} would reject SPUBLISH for its slots.
     * Lettuce opens node connections on first use, and a command sent while its connection is
     * still opening is rejected, so opening them now spares the first lock calls that failure.
     * A master whose connection was down when asked is asked again while the connect timeout
     * lasts: Lettuce reconnects it meanwhile.
     */
    private static boolean everyMasterAtLeast(StatefulRedisClusterConnection<String, String> connection, int major,
                                              Retries retries, long deadlineNanos) {
        List<CompletableFuture<Integer>> versions = new ArrayList<>();
        for (RedisClusterNode node : connection.getPartitions()) {
            if (node.is(NodeFlag.UPSTREAM)) {
                RedisURI uri = node.getUri();
                versions.add(retries.until(() -> connection.getConnectionAsync(uri.getHost(), uri.getPort())
                        .thenCompose(master -> master.async().info("server"))
                        .thenApply(ClusterTopology::majorVersion)
                        .toCompletableFuture(), ClusterTopology::droppedAsItOpened, deadlineNanos));
            }
        }
        return versions.stream().allMatch(version -> version.join() >= major);
    }

    /**
     * @param failure a failure of connecting or of a first command
     * @return true if a command found its connection down and was not sent: the command itself,
     *     or one of the per-node failures that Lettuce's topology query keeps as suppressed
     */
    static boolean droppedAsItOpened(Throwable failure) {
        int depth = 0;
        for (Throwable cause = failure; cause != null && depth++ < 8; cause = cause.getCause()) {
            if (Failures.wasRejectedUnsent(cause)) {
                return true;
            }
            for (Throwable perNode : cause.getSuppressed()) {
                if (Failures.wasRejectedUnsent(perNode)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Opens the connections to masters that a topology change brought, before commands need them. */
    private void connectToMasters(List<RedisClusterNode> nodes) {
        for (RedisClusterNode node : nodes) {
            if (node.is(NodeFlag.UPSTREAM) && !node.getSlots().isEmpty()) {
                RedisURI uri = node.getUri();
                try {
                    connection.getConnectionAsync(uri.getHost(), uri.getPort()).whenComplete((opened, failure) -> {
                        if (failure != null) {
                            log.debug("Cannot connect to new master {} yet", Redaction.uri(uri), failure);
                        }
                    });
                } catch (RuntimeException notYetInTheView) {
                    log.debug("Cannot connect to new master {} yet", Redaction.uri(uri), notYetInTheView);
                }
            }
        }
    }

    /** @return the major version in {@code INFO server}'s {@code redis_version:7.0.15} line, 0 if there is none */
    static int majorVersion(String info) {
        String prefix = "redis_version:";
        return info.lines().filter(line -> line.startsWith(prefix))
                .map(line -> line.substring(prefix.length()).strip().split("\\.", 2)[0])
                .mapToInt(Integer::parseInt)
                .findFirst().orElse(0);
    }

    @Override
    public RedisExecutor executor() {
        return executor;
    }

    @Override
    public SubscriptionCommands subscriptionCommands() {
        if (sharded != null) {
            return SubscriptionCommands.of(sharded::subscribe, sharded::unsubscribe);
        }
        return SubscriptionCommands.of(
                channel -> pubSub.async().subscribe(channel).toCompletableFuture(),
                channel -> pubSub.async().unsubscribe(channel).toCompletableFuture());
    }

    @Override
    public void listen(UnlockSubscriptions listener) {
        pubSub.addListener(listener);
        client.addListener(new RedisConnectionStateListener() {
            @Override
            public void onRedisDisconnected(RedisChannelHandler<?, ?> connection) {
                listener.connectionLost();
            }
        });
    }

    @Override
    public void onConnected(Runnable connected) {
        client.addListener(new RedisConnectionStateListener() {
            @Override
            public void onRedisConnected(RedisChannelHandler<?, ?> connection, SocketAddress address) {
                connected.run();
            }
        });
    }

    @Override
    public String publishCommand() {
        return sharded != null ? "spublish" : "publish";
    }

    @Override
    public void close() {
        topologyChanges.dispose();
        if (sharded != null) {
            sharded.close();
        }
        pubSub.close();
        connection.close();
        // The client's shared resources outlive this topology; the client closes them last.
        client.shutdown(0, 2, TimeUnit.SECONDS);
    }
}
