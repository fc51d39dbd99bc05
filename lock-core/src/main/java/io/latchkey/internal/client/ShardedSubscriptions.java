package io.latchkey.internal.client;

import io.lettuce.core.RedisException;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.models.partitions.Partitions;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.pubsub.RedisClusterPubSubAdapter;
import io.lettuce.core.cluster.pubsub.StatefulRedisClusterPubSubConnection;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sharded pub/sub channels in a Redis Cluster, each subscribed ({@code SSUBSCRIBE}) on the master
 * that serves its hash slot, and moved to the new master when the slot changes hands (failover,
 * resharding).
 *
 * <p>Lettuce re-subscribes a node connection's channels when that same node comes back, but not
 * on another node when a slot moves, so this class does: {@link #reroute(Partitions)} runs on
 * every topology change. The {@code ssubscribed} confirmation of a moved channel reaches the
 * connection's listeners like any other, which wakes that channel's waiters to re-check the lock,
 * since unlock messages published while the channel was away are lost. Thread-safe.
 */
final class ShardedSubscriptions extends RedisClusterPubSubAdapter<String, String> {

    private static final Logger log = LoggerFactory.getLogger(ShardedSubscriptions.class);

    private final StatefulRedisClusterPubSubConnection<String, String> pubSub;
    private final Supplier<Partitions> currentTopology;
    private final Supplier<CompletionStage<?>> refreshTopology;
    /** Channel to its live subscription; guarded by {@code this}. */
    private final Map<String, Subscription> channels = new HashMap<>();

    /**
     * @param pubSub the cluster pub/sub connection; this object must be one of its cluster
     *     listeners, and node message propagation must be on
     * @param currentTopology the client's current view of the cluster
     * @param refreshTopology asks the client to refresh its view now
     */
    ShardedSubscriptions(StatefulRedisClusterPubSubConnection<String, String> pubSub, Supplier<Partitions> currentTopology,
                         Supplier<CompletionStage<?>> refreshTopology) {
        this.pubSub = pubSub;
        this.currentTopology = currentTopology;
        this.refreshTopology = refreshTopology;
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
        if (subscription == null || subscription.nodeId == null) {
            return CompletableFuture.completedFuture(null);
        }
        return sunsubscribe(subscription.nodeId, channel);
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
                        log.debug("Could not move unlock channel {}; its waiters re-check when their lease bound runs out",
                                channel, failure);
                    }
                });
            }
        });
    }

    /**
     * A node dropped a channel that nobody here unsubscribed: it gave the channel's slot away
     * (Redis 7 tells sharded subscribers so). Find out where the slot went and follow it.
     */
    @Override
    public void sunsubscribed(RedisClusterNode node, String channel, long count) {
        Subscription dropped;
        synchronized (this) {
            dropped = channels.get(channel);
            if (dropped == null || node == null || !node.getNodeId().equals(dropped.nodeId)) {
                return;
            }
            dropped.nodeId = null;
        }
        log.debug("Node {} dropped unlock channel {}; refreshing the cluster topology", node.getNodeId(), channel);
        refreshTopology.get().whenComplete((ok, failure) -> reroute(currentTopology.get()));
    }

    private CompletableFuture<Void> moveTo(String channel, Subscription subscription, RedisClusterNode owner) {
        if (owner == null) {
            return CompletableFuture.failedFuture(new RedisException("no master serves the slot of channel " + channel));
        }
        String previous = subscription.nodeId;
        return connection(owner.getNodeId())
                .thenCompose(node -> node.async().ssubscribe(channel).toCompletableFuture())
                .thenAccept(ok -> {
                    boolean stillWanted;
                    synchronized (this) {
                        stillWanted = channels.get(channel) == subscription;
                        if (stillWanted) {
                            subscription.nodeId = owner.getNodeId();
                        }
                    }
                    if (!stillWanted) {
                        // Unsubscribed while this subscribe was on its way: undo it.
                        sunsubscribe(owner.getNodeId(), channel);
                    } else if (previous != null && !previous.equals(owner.getNodeId())) {
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
                        log.debug("sunsubscribe {} on node {} failed; the node is likely gone", channel, nodeId, failure);
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
        volatile String nodeId;
    }
}
