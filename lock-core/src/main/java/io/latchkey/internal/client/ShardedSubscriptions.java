package io.latchkey.internal.client;

import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.models.partitions.Partitions;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.pubsub.RedisClusterPubSubAdapter;
import io.lettuce.core.cluster.pubsub.StatefulRedisClusterPubSubConnection;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.netty.util.Timer;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.jspecify.annotations.Nullable;

/**
 * Sharded pub/sub channels in a Redis Cluster, each subscribed ({@code SSUBSCRIBE}) on the master
 * that serves its hash slot, and moved to the new master when the slot changes hands (failover,
 * resharding).
 *
 * <p>Lettuce re-subscribes a node connection's channels when that same node comes back, but not
 * on another node when a slot moves, so this class does: {@link #reroute(Partitions)} runs on
 * every topology change. The {@code ssubscribed} confirmation of a moved channel reaches the
 * connection's listeners like any other, which wakes that channel's waiters to re-check the lock,
 * since unlock messages published while the channel was away are lost.
 *
 * <p>Lettuce also subscribes a node connection's channels again when it reconnects, including
 * one whose {@code SUNSUBSCRIBE} it rejected while disconnected; such a channel, which nobody
 * here wants any more, is unsubscribed again as soon as the node confirms it.
 *
 * <p>A client whose waiters only listen sends no command that would make Lettuce notice a
 * failover, so while a channel's node is unreachable, or a channel has no node, this class
 * refreshes the topology itself every {@link #WATCH_PERIOD} until every channel is on a
 * reachable master of its slot again. Thread-safe.
 */
final class ShardedSubscriptions extends RedisClusterPubSubAdapter<String, String> {

    /** How often the topology is refreshed while a channel has no reachable master. */
    static final Duration WATCH_PERIOD = Duration.ofMillis(500);

    private static final Logger log = LoggerFactory.getLogger(ShardedSubscriptions.class);

    private final StatefulRedisClusterPubSubConnection<String, String> pubSub;
    private final Supplier<Partitions> currentTopology;
    private final Supplier<CompletionStage<?>> refreshTopology;
    private final Timer scheduler;
    /** Channel to its live subscription; guarded by {@code this}. */
    private final Map<String, Subscription> channels = new HashMap<>();
    /** {@code host:port} of nodes whose connections are down now. */
    private final Set<String> unreachable = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean watching = new AtomicBoolean();
    private volatile boolean closed;

    /**
     * @param pubSub the cluster pub/sub connection; this object must be one of its cluster
     *     listeners, and node message propagation must be on
     * @param currentTopology the client's current view of the cluster
     * @param refreshTopology asks the client to refresh its view now
     * @param scheduler the client's timer, which schedules topology refreshes while a channel has
     *     no reachable master
     */
    ShardedSubscriptions(StatefulRedisClusterPubSubConnection<String, String> pubSub, Supplier<Partitions> currentTopology,
                         Supplier<CompletionStage<?>> refreshTopology, Timer scheduler) {
        this.pubSub = pubSub;
        this.currentTopology = currentTopology;
        this.refreshTopology = refreshTopology;
        this.scheduler = scheduler;
    }

    /**
     * @param channel a channel nobody here is subscribed to yet
     * @return completes when the slot's master confirmed the subscription
     */
    CompletableFuture<Void> subscribe(String channel) {
        Subscription subscription = new Subscription();
        synchronized (this) {
            channels.put(channel, subscription);
        }
        return moveTo(channel, subscription, owner(currentTopology.get(), channel));
    }

    /**
     * @param channel a channel subscribed by {@link #subscribe}
     * @return completes when the node that carries it confirmed, or at once if it is gone
     */
    CompletableFuture<Void> unsubscribe(String channel) {
        Subscription subscription;
        synchronized (this) {
            subscription = channels.remove(channel);
        }
        String nodeId = subscription == null ? null : subscription.nodeId;
        if (nodeId == null) {
            return CompletableFuture.completedFuture(null);
        }
        return sunsubscribe(nodeId, channel);
    }

    /**
     * Moves every channel whose slot is now served by another master than the one it is
     * subscribed on; a channel whose subscription failed earlier is tried again.
     *
     * @param topology the cluster as it is now
     */
    void reroute(Partitions topology) {
        Map<String, Subscription> current;
        synchronized (this) {
            current = Map.copyOf(channels);
        }
        current.forEach((channel, subscription) -> {
            RedisClusterNode owner = owner(topology, channel);
            if (owner != null && !owner.getNodeId().equals(subscription.nodeId)) {
                log.debug("Moving unlock channel {} from node {} to node {}", channel, subscription.nodeId, owner.getNodeId());
                moveTo(channel, subscription, owner).whenComplete((ok, failure) -> {
                    if (failure != null) {
                        log.debug("Could not move unlock channel {} yet: {}", channel, failure.toString());
                        watch();
                    }
                });
            }
        });
    }

    /** @param node the remote address of a connection that went down */
    void connectionLost(SocketAddress node) {
        if (node instanceof InetSocketAddress address) {
            unreachable.add(address.getHostString() + ":" + address.getPort());
            watch();
        }
    }

    /** @param node the remote address of a connection that is up again */
    void connectionRestored(SocketAddress node) {
        if (node instanceof InetSocketAddress address) {
            unreachable.remove(address.getHostString() + ":" + address.getPort());
        }
    }

    /**
     * A node dropped a channel that nobody here unsubscribed: it gave the channel's slot away
     * (Redis 7 tells sharded subscribers so). Find out where the slot went and follow it.
     */
    @Override
    public void sunsubscribed(RedisClusterNode node, String channel, long count) {
        synchronized (this) {
            Subscription dropped = channels.get(channel);
            if (dropped == null || node == null || !node.getNodeId().equals(dropped.nodeId)) {
                return;
            }
            dropped.nodeId = null;
        }
        log.debug("Node {} dropped unlock channel {}; looking for the slot's new master", node.getNodeId(), channel);
        watch();
    }

    /**
     * A node confirmed a channel that nobody here subscribes any more: Lettuce subscribes a node
     * connection's channels again when it reconnects, also one whose {@code SUNSUBSCRIBE} it
     * rejected while disconnected. Drop it there, or it stays for the connection's life.
     */
    @Override
    public void ssubscribed(RedisClusterNode node, String channel, long count) {
        if (node == null) {
            return;
        }
        synchronized (this) {
            if (channels.containsKey(channel)) {
                return;
            }
            // Under the lock: a later subscribe() of this channel enters it in the map after this,
            // so its SSUBSCRIBE follows this SUNSUBSCRIBE on the node's connection.
            log.debug("Node {} subscribed unlock channel {} again, which nobody here wants; unsubscribing", node.getNodeId(), channel);
            sunsubscribe(node.getNodeId(), channel);
        }
    }

    /** Stops refreshing the topology; idempotent. */
    void close() {
        closed = true;
    }

    /** Starts refreshing the topology until every channel is on a reachable master, unless already doing so. */
    private void watch() {
        if (!closed && watching.compareAndSet(false, true)) {
            scheduleWatch();
        }
    }

    private void scheduleWatch() {
        try {
            scheduler.newTimeout(due -> refreshTopology.get().whenComplete((ok, failure) -> {
                Partitions topology = currentTopology.get();
                reroute(topology);
                if (closed || everyChannelHealthy(topology)) {
                    watching.set(false);
                } else {
                    scheduleWatch();
                }
            }), WATCH_PERIOD.toMillis(), TimeUnit.MILLISECONDS);
        } catch (IllegalStateException clientClosing) {
            watching.set(false);
        }
    }

    private boolean everyChannelHealthy(Partitions topology) {
        Map<String, Subscription> current;
        synchronized (this) {
            current = Map.copyOf(channels);
        }
        for (Map.Entry<String, Subscription> entry : current.entrySet()) {
            RedisClusterNode owner = owner(topology, entry.getKey());
            if (owner == null || !owner.getNodeId().equals(entry.getValue().nodeId) || unreachable.contains(address(owner))) {
                return false;
            }
        }
        return true;
    }

    private CompletableFuture<Void> moveTo(String channel, Subscription subscription, RedisClusterNode owner) {
        if (owner == null) {
            watch();
            return CompletableFuture.failedFuture(new RedisException("no master serves the slot of channel " + channel));
        }
        String target = owner.getNodeId();
        String previous;
        synchronized (this) {
            previous = subscription.nodeId;
            subscription.target = target;
        }
        return connection(target)
                .thenCompose(node -> node.async().ssubscribe(channel).toCompletableFuture())
                .thenAccept(ok -> {
                    boolean latest;
                    synchronized (this) {
                        latest = channels.get(channel) == subscription && target.equals(subscription.target);
                        if (latest) {
                            subscription.nodeId = target;
                        }
                    }
                    if (!latest) {
                        // Unsubscribed, or moved elsewhere, while this subscribe was on its way: undo it.
                        sunsubscribe(target, channel);
                    } else if (previous != null && !previous.equals(target)) {
                        // Best effort: the old node is often down or no longer in the topology.
                        sunsubscribe(previous, channel);
                    }
                });
    }

    private CompletableFuture<Void> sunsubscribe(String nodeId, String channel) {
        return connection(nodeId)
                .thenCompose(node -> node.async().sunsubscribe(channel).toCompletableFuture())
                .handle((ok, failure) -> {
                    if (failure != null) {
                        log.debug("sunsubscribe {} on node {} failed; the node is likely gone: {}", channel, nodeId, failure.toString());
                    }
                    return null;
                });
    }

    private CompletableFuture<StatefulRedisPubSubConnection<String, String>> connection(String nodeId) {
        try {
            return pubSub.getConnectionAsync(nodeId);
        } catch (RuntimeException nodeLeftTheCluster) {
            return CompletableFuture.failedFuture(nodeLeftTheCluster);
        }
    }

    private static RedisClusterNode owner(Partitions topology, String channel) {
        return topology.getMasterBySlot(SlotHash.getSlot(channel));
    }

    private static String address(RedisClusterNode node) {
        RedisURI uri = node.getUri();
        return uri.getHost() + ":" + uri.getPort();
    }

    /**
     * @param nodes the nodes of a topology change event, which Lettuce publishes before it
     *     updates its own view
     * @return them as a topology that answers slot lookups
     */
    static Partitions topologyOf(List<RedisClusterNode> nodes) {
        Partitions partitions = new Partitions();
        partitions.addAll(nodes);
        partitions.updateCache();
        return partitions;
    }

    /** One channel's subscription: where it was last confirmed. Compared by identity. */
    private static final class Subscription {
        /** The node that confirmed it, null until one did; written under the enclosing instance's lock. */
        volatile @Nullable String nodeId;
        /** The node of the latest move, confirmed or not; guarded by the enclosing instance. */
        @Nullable String target;
    }
}
